import CFFmpeg

/// A failed libav call: which call, and libav's own description of the code.
public struct LibavError: Error, CustomStringConvertible, Equatable {
    public let operation: String
    public let code: Int32

    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code, &buffer, buffer.count)
        let text = String(nulTerminated: buffer)
        return "\(operation) failed: \(text) (\(code))"
    }

    public var isOutOfSpace: Bool { code == allspark_averror_enospc() }
    public var isEndOfFile: Bool { code == allspark_averror_eof() }
}

/// Returns `result` when it is not a libav error code, throws otherwise.
@discardableResult
func checkLibav(_ result: Int32, _ operation: @autoclosure () -> String) throws -> Int32 {
    if result < 0 { throw LibavError(operation(), code: result) }
    return result
}
