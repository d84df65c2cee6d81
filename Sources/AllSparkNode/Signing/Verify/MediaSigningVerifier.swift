import Crypto
import Foundation
import X509

/// Checks ONVIF Media Signing SEIs offline, from the file alone (or against a given
/// certificate): each signing SEI's signature, its hash list against the slices in the file
/// (hashed as `NALHashChain` does), the GOP counter running on by one, and each GOP linked
/// to the one before. A GOP whose slices changed is invalid; slices missing from a GOP, or
/// GOPs whose SEI is gone, are missing; both make the file invalid.
public enum MediaSigningVerifier {
    /// How far ahead in a GOP's hash list a dropped frame's slices are looked for.
    static let dropSearchSlices = 64

    public static func verify(path: String, trustedCertificatePEM: String? = nil) throws -> SignedFootageReport {
        let reader = try ChunkReader(path: path)
        var accessUnits: [[UInt8]] = []
        reader.forEachPacket { packet in
            guard let data = packet.pointee.data else { return }
            accessUnits.append(Array(UnsafeRawBufferPointer(start: data, count: Int(packet.pointee.size))))
        }
        return try verify(accessUnits: accessUnits, file: path, trustedCertificatePEM: trustedCertificatePEM)
    }

    private struct Slice {
        let hash: ArraySlice<UInt8>
    }

    private struct Document {
        let parsed: MediaSigningSEI.Parsed
        let info: MediaSigningSEI.GOPInfo
        let hashes: ArraySlice<UInt8>
    }

    /// The check on access units in decode order (each as stored: Annex B or length-prefixed).
    static func verify(accessUnits: [[UInt8]], file: String, trustedCertificatePEM: String?) throws -> SignedFootageReport {
        var report = SignedFootageReport(file: file)
        var chain = NALHashChain()
        var sliceHashes: [UInt8] = []
        var documents: [Document] = []
        var certificates: [MediaSigningSEI.Parsed] = []
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
                        if parsed.isSentOnce {
                            certificates.append(parsed)
                        } else if let info = parsed.gopInfo, let hashes = parsed.hashList, hashes.count % MediaSigningSEI.hashBytes == 0 {
                            documents.append(Document(parsed: parsed, info: info, hashes: hashes))
                        } else {
                            malformed += 1
                        }
                    }
                    return true
                }
            }
        }
        guard !documents.isEmpty || !certificates.isEmpty || malformed > 0 else { return report }
        let key = try verificationKey(certificates: certificates, trustedPEM: trustedCertificatePEM, report: &report)
        if malformed > 0 {
            report.problems.append(.init(kind: .invalid, counter: nil, startMs: nil, endMs: nil, reason: "\(malformed) signing SEIs cannot be read"))
        }
        match(documents, sliceHashes: sliceHashes, key: key, report: &report)
        report.status = report.problems.isEmpty ? .valid : .invalid
        return report
    }

    /// The key the GOP signatures must verify with: the given certificate's, else the one in
    /// the footage's certificate SEI (whose own signature must verify with it).
    private static func verificationKey(
        certificates: [MediaSigningSEI.Parsed], trustedPEM: String?, report: inout SignedFootageReport
    ) throws -> P256.Signing.PublicKey? {
        func leaf(_ pem: String) -> (certificate: Certificate, key: P256.Signing.PublicKey)? {
            guard let certificate = try? Certificate(pemEncoded: pem), let key = P256.Signing.PublicKey(certificate.publicKey) else { return nil }
            return (certificate, key)
        }
        func describe(_ certificate: Certificate) {
            report.certificateSubject = certificate.subject.description
            report.certificateFingerprint = try? certificate.sha256Fingerprint()
        }
        var embedded: (certificate: Certificate, key: P256.Signing.PublicKey)?
        for sei in certificates {
            guard let pem = sei.certificatePEM, let found = leaf(pem), isValid(sei, key: found.key) else {
                report.problems.append(.init(kind: .invalid, counter: nil, startMs: nil, endMs: nil, reason: "a certificate SEI does not verify"))
                continue
            }
            if let embedded, embedded.key.rawRepresentation != found.key.rawRepresentation {
                report.problems.append(.init(kind: .invalid, counter: nil, startMs: nil, endMs: nil, reason: "the footage carries certificates of different keys"))
            }
            embedded = embedded ?? found
        }
        if let trustedPEM {
            guard let trusted = leaf(trustedPEM) else { throw VerifyError("the given certificate is not a PEM certificate with an ECDSA P-256 key") }
            describe(trusted.certificate)
            if let embedded, embedded.key.rawRepresentation != trusted.key.rawRepresentation {
                let fingerprint = (try? embedded.certificate.sha256Fingerprint()) ?? "?"
                report.problems.append(
                    .init(kind: .invalid, counter: nil, startMs: nil, endMs: nil,
                        reason: "signed by another certificate (\(embedded.certificate.subject), SHA-256 \(fingerprint)), not the given one"))
            }
            return trusted.key
        }
        guard let embedded else {
            report.problems.append(
                .init(kind: .invalid, counter: nil, startMs: nil, endMs: nil,
                    reason: "no certificate SEI in the file: give the signing node's certificate with --certificate"))
            return nil
        }
        describe(embedded.certificate)
        return embedded.key
    }

    private static func isValid(_ sei: MediaSigningSEI.Parsed, key: P256.Signing.PublicKey) -> Bool {
        guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: sei.signature) else { return false }
        return key.isValidSignature(signature, for: Data(sei.document))
    }

    /// Walks the documents in the order they appear, matching each one's hash list against
    /// the file's slices from where the previous one ended.
    private static func match(
        _ documents: [Document], sliceHashes: [UInt8], key: P256.Signing.PublicKey?, report: inout SignedFootageReport
    ) {
        let width = MediaSigningSEI.hashBytes
        let sliceCount = sliceHashes.count / width
        func slice(_ index: Int) -> ArraySlice<UInt8> { sliceHashes[index * width..<(index + 1) * width] }
        var position = 0
        var previous: MediaSigningSEI.GOPInfo?
        for document in documents {
            let info = document.info
            report.signedGOPs += 1
            let startMs = MediaSigningSEI.epochMs(windowsTime: info.startTime)
            let endMs = MediaSigningSEI.epochMs(windowsTime: info.endTime)
            var reasons: [String] = []
            func problem(_ kind: SignedFootageReport.Problem.Kind, _ reason: String, counter: UInt32? = nil, start: Int64? = nil, end: Int64? = nil) {
                report.problems.append(.init(kind: kind, counter: counter ?? info.counter, startMs: start ?? startMs, endMs: end ?? endMs, reason: reason))
            }
            if let key, !isValid(document.parsed, key: key) { reasons.append("its signature does not verify") }
            if Array(SHA256.hash(data: document.hashes)) != info.gopHash { reasons.append("its hash list does not match its GOP hash") }
            var gopMissing = false
            if let previous {
                if info.counter == previous.counter &+ 1 {
                    if info.linkedHash != previous.gopHash { reasons.append("it is not linked to the GOP before it") }
                } else if info.counter > previous.counter {
                    gopMissing = true
                    problem(
                        .missing, "\(info.counter - previous.counter - 1) GOP(s) missing (their signing SEIs are not in the file)",
                        counter: previous.counter + 1, start: MediaSigningSEI.epochMs(windowsTime: previous.endTime), end: startMs)
                } else {
                    reasons.append("out of order: GOP \(info.counter) follows GOP \(previous.counter)")
                }
            }
            let listed = document.hashes.count / width
            func listedHash(_ index: Int) -> ArraySlice<UInt8> {
                let start = document.hashes.startIndex + index * width
                return document.hashes[start..<start + width]
            }
            let first = listed > 0 ? (position..<sliceCount).first(where: { slice($0) == listedHash(0) }) : nil
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
