import Foundation

/// Ways a target turns libFuzzer's bytes into what its parser takes.
enum FuzzInput {
    /// The input as text, invalid UTF-8 repaired as any reader of outside text would.
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Parts of the input between `separator` bytes (a seed file of several values uses it).
    static func parts(_ bytes: [UInt8], separator: UInt8 = 0) -> [[UInt8]] {
        bytes.split(separator: separator, omittingEmptySubsequences: false).map(Array.init)
    }
}

/// A folder per target process for the parsers that read paths: `ALLSPARK_FUZZ_SCRATCH`
/// (scripts/fuzz.sh puts it on /dev/shm, so the disk sees none of the millions of writes,
/// and removes it after the run, findings and all), else one in the temporary directory.
enum FuzzScratch {
    static let directory: String = {
        let path = ProcessInfo.processInfo.environment["ALLSPARK_FUZZ_SCRATCH"] ?? "\(NSTemporaryDirectory())/allspark-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Writes `bytes` to `name` in the scratch directory and returns its path.
    static func file(_ name: String, _ bytes: [UInt8]) -> String {
        let path = "\(directory)/\(name)"
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }
}
