import Crypto
import Foundation
import Synchronization

/// Signs GOP documents on a thread of its own, so a slow signature never holds up the
/// recording thread: the recorder hands over a closed GOP's hashes and picks up the finished
/// SEI at a later frame (the spec lets the SEI come after the GOP it signs). Jobs are done in
/// order; each links to the one before through that one's first hash (the reference
/// implementation's linked hash: the previous (partial) GOP's anchor).
final class SignatureWorker: Sendable {
    /// One closed (partial) GOP. `hashes` goes back to the recorder for reuse once signed.
    struct Job: Sendable {
        var partial: Bool
        var startTime: Int64
        var endTime: Int64
        var counter: UInt32
        var hashes: [UInt8]
    }

    struct Signed: Sendable {
        var nal: [UInt8]
        var recycledHashes: [UInt8]
        /// How many slices it signs.
        var slices: Int
    }

    private struct State {
        var jobs: [Job] = []
        var signed: [Signed] = []
        var busy = false
        var stopped = false
    }

    private let key: P256.Signing.PrivateKey
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let idle = DispatchSemaphore(value: 0)
    /// The first hash of the last GOP signed: the next one's linked hash.
    private let linkedHash = Mutex(MediaSigningSEI.noLinkedHash)

    init(key: P256.Signing.PrivateKey) {
        self.key = key
        state.withLock {
            $0.jobs.reserveCapacity(16)
            $0.signed.reserveCapacity(16)
        }
        let thread = Thread { [self] in run() }
        thread.name = "allspark-signer"
        thread.start()
    }

    func submit(_ job: Job) {
        state.withLock { $0.jobs.append(job) }
        wake.signal()
    }

    /// Moves the SEIs signed so far into `into` (which keeps its capacity).
    func takeSigned(into output: inout [Signed]) {
        state.withLock { state in
            output.append(contentsOf: state.signed)
            state.signed.removeAll(keepingCapacity: true)
        }
    }

    /// Blocks until every job submitted so far is signed (at a chunk's end).
    func waitUntilDone() {
        while state.withLock({ !$0.jobs.isEmpty || $0.busy }) { idle.wait() }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
    }

    private func run() {
        while true {
            wake.wait()
            while let job = nextJob() {
                let nal = sign(job)
                var hashes = job.hashes
                let slices = hashes.count / MediaSigningSEI.hashBytes
                hashes.removeAll(keepingCapacity: true)
                state.withLock {
                    $0.signed.append(Signed(nal: nal, recycledHashes: hashes, slices: slices))
                    $0.busy = false
                }
                idle.signal()
            }
            if state.withLock({ $0.stopped }) { return }
        }
    }

    private func nextJob() -> Job? {
        state.withLock { state in
            guard !state.jobs.isEmpty else { return nil }
            state.busy = true
            return state.jobs.removeFirst()
        }
    }

    private func sign(_ job: Job) -> [UInt8] {
        let gopHash = Array(SHA256.hash(data: job.hashes))
        let anchor = Array(job.hashes.prefix(MediaSigningSEI.hashBytes))
        let info = MediaSigningSEI.GOPInfo(
            partial: job.partial, startTime: job.startTime, endTime: job.endTime, counter: job.counter,
            nalCount: job.hashes.count / MediaSigningSEI.hashBytes, gopHash: gopHash,
            linkedHash: linkedHash.withLock { previous in
                defer { previous = anchor }
                return previous
            })
        // The crypto information rides in the certificate SEI only, as in the reference's
        // certificate SEI mode.
        let document = MediaSigningSEI.document(
            reserved: 0, tlvs: MediaSigningSEI.generalTLV(info) + MediaSigningSEI.hashListTLV(job.hashes))
        return MediaSigningSEI.nal(document: document, signature: Self.signature(of: document, with: key))
    }

    /// ECDSA P-256 over SHA-256 of the document, DER-encoded.
    static func signature(of document: [UInt8], with key: P256.Signing.PrivateKey) -> [UInt8] {
        // Signing with a valid key only fails when the system's random source does.
        Array(try! key.signature(for: document).derRepresentation)
    }
}
