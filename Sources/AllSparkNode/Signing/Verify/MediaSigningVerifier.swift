import CFFmpeg
import Crypto
import Foundation
import X509

/// Checks ONVIF Media Signing SEIs offline, from the file alone or against given trust
/// anchors: each signing SEI's signature, its hash list against the slices in the file
/// (hashed as `NALHashChain` does), the GOP counter running on by one, and each GOP linked
/// to the one before (the linked hash: that GOP's first hash, as the reference
/// implementation makes it). A GOP whose slices changed is invalid; slices missing from a
/// GOP, or GOPs whose SEI is gone, are missing; both make the file invalid. Reads footage
/// of other signers too: certificates in every GOP SEI instead of a certificate SEI, and
/// the general TLV's version 1.
public enum MediaSigningVerifier {
    /// How far ahead in a GOP's hash list a dropped frame's slices are looked for.
    static let dropSearchSlices = 64

    /// - Parameter trustedPEM: certificates to check against: trust anchors (CAs), or
    ///   signing certificates; nil checks against the certificate the file carries.
    public static func verify(path: String, trustedPEM: String? = nil) throws -> SignedFootageReport {
        let reader = try ChunkReader(path: path)
        // H.265's NAL headers are laid out otherwise: its footage would read as unsigned.
        guard reader.codecParameters.pointee.codec_id == AV_CODEC_ID_H264 else {
            throw VerifyError("only H.264 footage can be checked; this file's video is \(String(cString: avcodec_get_name(reader.codecParameters.pointee.codec_id)))")
        }
        var accessUnits: [[UInt8]] = []
        reader.forEachPacket { packet in
            guard let data = packet.pointee.data else { return }
            accessUnits.append(Array(UnsafeRawBufferPointer(start: data, count: Int(packet.pointee.size))))
        }
        return try verify(accessUnits: accessUnits, file: path, trustedPEM: trustedPEM)
    }

    private struct Document {
        let parsed: MediaSigningSEI.Parsed
        let info: MediaSigningSEI.GOPInfo
        /// The hash list; nil when the signer left it out (then the GOP hash alone is checked).
        let hashes: ArraySlice<UInt8>?
    }

    /// The check on access units in decode order (each as stored: Annex B or length-prefixed).
    static func verify(accessUnits: [[UInt8]], file: String, trustedPEM: String?) throws -> SignedFootageReport {
        let trusted: [Certificate]?
        do {
            trusted = try trustedPEM.map { try SigningChain.certificates(inPEM: $0) }
        } catch {
            throw VerifyError("the given certificates cannot be read: \(error)")
        }
        if let trusted, trusted.isEmpty { throw VerifyError("no certificate in the given PEM") }
        var report = SignedFootageReport(file: file)
        var chain = NALHashChain()
        var sliceHashes: [UInt8] = []
        var documents: [Document] = []
        var carriers: [MediaSigningSEI.Parsed] = []
        var malformed = 0
        for unit in accessUnits {
            report.frames += 1
            unit.withUnsafeBytes { bytes in
                var firstSlice = true
                H264Framing.of(bytes).forEachNAL(in: bytes) { _, nal in
                    guard let header = nal.first else { return true }
                    if H264Framing.isSlice(header) {
                        chain.append(slice: nal, startsGOP: firstSlice && header & 0x1F == 5, to: &sliceHashes)
                        firstSlice = false
                    } else if let parsed = MediaSigningSEI.parse(nal: nal) {
                        if parsed.certificatePEM != nil { carriers.append(parsed) }
                        if parsed.isSentOnce { return true }
                        if let info = parsed.gopInfo, parsed.hashList.map({ $0.count % MediaSigningSEI.hashBytes == 0 }) ?? true {
                            documents.append(Document(parsed: parsed, info: info, hashes: parsed.hashList))
                        } else {
                            malformed += 1
                        }
                    }
                    return true
                }
            }
        }
        guard !documents.isEmpty || !carriers.isEmpty || malformed > 0 else { return report }
        let signedAt = documents.first.map { Date(timeIntervalSince1970: Double(MediaSigningSEI.epochMs(windowsTime: $0.info.startTime)) / 1000) } ?? Date()
        let key = verificationKey(carriers: carriers, trusted: trusted, signedAt: signedAt, report: &report)
        if malformed > 0 {
            report.problems.append(.init(kind: .invalid, counter: nil, startMs: nil, endMs: nil, reason: "\(malformed) signing SEIs cannot be read"))
        }
        match(documents, sliceHashes: sliceHashes, key: key, report: &report)
        report.status = report.problems.isEmpty ? .valid : .invalid
        return report
    }

    /// The key the GOP signatures must verify with: the signing certificate's that the file
    /// carries, once its SEI verifies with it and (when certificates are given) its chain
    /// reaches one of them; or a given signing certificate's, for a file without one.
    private static func verificationKey(
        carriers: [MediaSigningSEI.Parsed], trusted: [Certificate]?, signedAt: Date, report: inout SignedFootageReport
    ) -> Certificate.PublicKey? {
        func problem(_ reason: String) {
            report.problems.append(.init(kind: .invalid, counter: nil, startMs: nil, endMs: nil, reason: reason))
        }
        var embedded: [Certificate]?
        for sei in carriers {
            guard let pem = sei.certificatePEM, let certificates = try? SigningChain.certificates(inPEM: pem), let leaf = certificates.first,
                isValid(sei, key: leaf.publicKey)
            else {
                problem("a SEI carrying certificates does not verify")
                continue
            }
            if let embedded, embedded[0].publicKey != leaf.publicKey {
                problem("the footage carries certificates of different keys")
            }
            embedded = embedded ?? certificates
        }
        if let leaf = embedded?.first {
            report.certificateSubject = leaf.subject.description
            report.certificateFingerprint = try? leaf.sha256Fingerprint()
        }
        guard let trusted else {
            guard let embedded else {
                problem("no certificate in the file: give the signing node's trust anchor or certificate with --certificate")
                return nil
            }
            report.trust = .embedded
            return embedded[0].publicKey
        }
        guard let embedded else {
            guard let given = trusted.first(where: { !SigningChain.isAuthority($0) }) else {
                problem("no certificate in the file, and the given ones are trust anchors: give the signing certificate itself")
                return nil
            }
            report.trust = .signingCertificate
            report.certificateSubject = given.subject.description
            report.certificateFingerprint = try? given.sha256Fingerprint()
            return given.publicKey
        }
        switch TrustCheck.check(chain: embedded, trusted: trusted, at: signedAt) {
        case .anchor(let anchor):
            report.trust = .anchor
            report.anchorSubject = anchor.subject.description
            report.anchorFingerprint = try? anchor.sha256Fingerprint()
        case .signingCertificate:
            report.trust = .signingCertificate
        case .untrusted(let reason):
            let fingerprint = (try? embedded[0].sha256Fingerprint()) ?? "?"
            problem("signed by a certificate the given ones do not vouch for (\(embedded[0].subject), SHA-256 \(fingerprint)): \(reason)")
        }
        return embedded[0].publicKey
    }

    private static func isValid(_ sei: MediaSigningSEI.Parsed, key: Certificate.PublicKey) -> Bool {
        key.isValidSignature(sei.signature, for: Array(sei.document), signatureAlgorithm: .ecdsaWithSHA256)
    }

    /// Walks the documents in the order they appear, matching each one's hash list against
    /// the file's slices from where the previous one ended.
    private static func match(
        _ documents: [Document], sliceHashes: [UInt8], key: Certificate.PublicKey?, report: inout SignedFootageReport
    ) {
        let width = MediaSigningSEI.hashBytes
        let sliceCount = sliceHashes.count / width
        func slice(_ index: Int) -> ArraySlice<UInt8> { sliceHashes[index * width..<(index + 1) * width] }
        var position = 0
        var previous: MediaSigningSEI.GOPInfo?
        var previousFirstHash: ArraySlice<UInt8>?
        for document in documents {
            let info = document.info
            // Without a hash list, the GOP's slices are the next ones in the file.
            let listedHashes = document.hashes
                ?? sliceHashes[min(position, sliceCount) * width..<min(position + info.nalCount, sliceCount) * width]
            defer { previousFirstHash = listedHashes.prefix(width) }
            report.signedGOPs += 1
            let startMs = MediaSigningSEI.epochMs(windowsTime: info.startTime)
            let endMs = MediaSigningSEI.epochMs(windowsTime: info.endTime)
            var reasons: [String] = []
            func problem(_ kind: SignedFootageReport.Problem.Kind, _ reason: String, counter: UInt32? = nil, start: Int64? = nil, end: Int64? = nil) {
                report.problems.append(.init(kind: kind, counter: counter ?? info.counter, startMs: start ?? startMs, endMs: end ?? endMs, reason: reason))
            }
            if let key, !isValid(document.parsed, key: key) { reasons.append("its signature does not verify") }
            // With a hash list, the signed list decides slice by slice (as the reference
            // validator does when a GOP hash fails: its own signer's last SEI carries a stale one).
            if document.hashes == nil, Array(SHA256.hash(data: listedHashes)) != info.gopHash {
                reasons.append("its slices do not match its GOP hash")
            }
            var gopMissing = false
            if let previous {
                if info.counter == previous.counter &+ 1 {
                    if let previousFirstHash, !info.linkedHash.elementsEqual(previousFirstHash) { reasons.append("it is not linked to the GOP before it") }
                } else if info.counter > previous.counter {
                    gopMissing = true
                    problem(
                        .missing, "\(info.counter - previous.counter - 1) GOP(s) missing (their signing SEIs are not in the file)",
                        counter: previous.counter + 1, start: MediaSigningSEI.epochMs(windowsTime: previous.endTime), end: startMs)
                } else {
                    reasons.append("out of order: GOP \(info.counter) follows GOP \(previous.counter)")
                }
            }
            let listed = listedHashes.count / width
            func listedHash(_ index: Int) -> ArraySlice<UInt8> {
                let start = listedHashes.startIndex + index * width
                return listedHashes[start..<start + width]
            }
            // Where the GOP starts: at its first hash, or right where the last one ended when
            // a later hash lines up there (its first slice changed).
            let alignsHere = (1..<max(1, min(listed, dropSearchSlices))).contains { position + $0 < sliceCount && slice(position + $0) == listedHash($0) }
            let first = listed == 0 ? nil : alignsHere ? position : (position..<sliceCount).first(where: { slice($0) == listedHash(0) })
            if first == nil, position == 0, reasons.isEmpty, !(0..<listed).contains(where: { index in (0..<sliceCount).contains { slice($0) == listedHash(index) } }) {
                // A clip cut at a keyframe starts with the SEI of the GOP before it: it signs
                // footage the file does not hold, which is no fault of the file.
                report.signedGOPs -= 1
                previous = info
                continue
            }
            guard let first else {
                reasons.append("its frames are not in the file, or its first frame changed")
                problem(.invalid, reasons.joined(separator: "; "))
                previous = info
                continue
            }
            // Every GOP from a file's first IDR on is signed, so slices no signature covers
            // before a signed GOP had their SEI removed (only a cut-off tail is merely unsigned).
            if first > position {
                if previous == nil {
                    report.unsignedHeadSlices = first - position
                    problem(.missing, "\(first - position) slices before the first signed GOP are covered by no signature", start: nil, end: startMs)
                } else if !gopMissing {
                    problem(.invalid, "\(first - position) slices before it are covered by no signature", start: nil, end: startMs)
                }
            }
            var changed = 0
            var missing = 0
            var cursor = first
            var index = 0
            while index < listed {
                if cursor < sliceCount, slice(cursor) == listedHash(index) {
                    cursor += 1
                    index += 1
                } else if cursor < sliceCount,
                    let found = (index + 1..<min(listed, index + 1 + dropSearchSlices)).first(where: { listedHash($0) == slice(cursor) })
                {
                    missing += found - index
                    index = found
                } else {
                    changed += 1
                    index += 1
                    if cursor < sliceCount { cursor += 1 }
                }
            }
            position = cursor
            if changed > 0 { reasons.append("\(changed) of its \(listed) slices changed") }
            if !reasons.isEmpty { problem(.invalid, reasons.joined(separator: "; ")) }
            if missing > 0 { problem(.missing, "\(missing) of its \(listed) slices missing (dropped frames)") }
            if reasons.isEmpty && missing == 0 {
                report.validGOPs += 1
                report.firstSignedMs = report.firstSignedMs ?? startMs
                report.lastSignedMs = endMs
            }
            previous = info
        }
        report.unsignedTailSlices = sliceCount - position
    }
}

/// A verification that could not be made (as opposed to footage that failed it).
public struct VerifyError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
