import COnnxRuntimeShim
import Foundation

/// One model loaded into ONNX Runtime, run on the caller's thread alone (one intra-op
/// thread, no pool to spin). Buffers for the last few input sizes are kept, so a steady
/// size allocates nothing per run. Not safe to use from two threads at once.
final class OnnxRuntimeSession {
    let library: OnnxRuntimeLibrary
    private let session: OpaquePointer
    private let outputCount: Int
    /// Where the last run's outputs lie, and how many floats each holds.
    private let outputs: UnsafeMutablePointer<UnsafePointer<Float>?>
    private let lengths: UnsafeMutablePointer<Int>
    private var error = [CChar](repeating: 0, count: 512)

    /// - Parameters:
    ///   - model: the ONNX file's bytes; its one input is a float tensor [1, 3, H, W].
    ///   - outputNames: the outputs `run` reads, in that order.
    init(library: OnnxRuntimeLibrary, model: [UInt8], outputNames: [String]) throws(OnnxRuntimeSessionError) {
        var error = [CChar](repeating: 0, count: 512)
        let names = outputNames.map { strdup($0) }
        defer { names.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = names.map { $0.map { UnsafePointer($0) } }
        let made = pointers.withUnsafeBufferPointer { names in
            model.withUnsafeBytes { bytes in
                allspark_ort_session_create(
                    library.runtime, bytes.baseAddress, bytes.count, names.baseAddress, Int32(names.count), &error, error.count)
            }
        }
        guard let made else { throw OnnxRuntimeSessionError(message: error) }
        self.library = library
        session = made
        outputCount = outputNames.count
        outputs = .allocate(capacity: outputCount)
        outputs.initialize(repeating: nil, count: outputCount)
        lengths = .allocate(capacity: outputCount)
        lengths.initialize(repeating: 0, count: outputCount)
    }

    deinit {
        allspark_ort_session_free(session)
        outputs.deallocate()
        lengths.deallocate()
    }

    /// The input for the next run: 3 planes of `width` x `height` floats.
    func input(width: Int, height: Int) throws(OnnxRuntimeSessionError) -> UnsafeMutablePointer<Float> {
        guard let input = allspark_ort_session_input(session, Int32(clamping: width), Int32(clamping: height), &error, error.count) else {
            throw OnnxRuntimeSessionError(message: error)
        }
        return input
    }

    /// Runs the model on the input last asked for. The outputs stay valid until the next run.
    func run() throws(OnnxRuntimeSessionError) -> (outputs: UnsafePointer<UnsafePointer<Float>?>, lengths: UnsafePointer<Int>, count: Int) {
        guard allspark_ort_session_run(session, outputs, lengths, &error, error.count) == 0 else {
            throw OnnxRuntimeSessionError(message: error)
        }
        return (UnsafePointer(outputs), UnsafePointer(lengths), outputCount)
    }
}

struct OnnxRuntimeSessionError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }

    /// From the shim's NUL-terminated message buffer.
    init(message: [CChar]) {
        reason = String(nulTerminated: message)
    }
}
