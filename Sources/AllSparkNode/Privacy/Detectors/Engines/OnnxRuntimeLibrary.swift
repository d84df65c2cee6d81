import COnnxRuntimeShim
import Foundation
import Synchronization

/// ONNX Runtime's library, opened once per path for the life of the process (it cannot be
/// unloaded), with its environment. Immutable once made; ONNX Runtime's environment may be
/// used from any thread, which is why this is `@unchecked Sendable`.
public final class OnnxRuntimeLibrary: @unchecked Sendable {
    /// The file (or soname) it was opened from, and the library's own version ("1.21.1").
    public let path: String
    public let version: String
    let runtime: OpaquePointer

    private init(path: String, runtime: OpaquePointer) {
        self.path = path
        self.runtime = runtime
        version = String(cString: allspark_ort_runtime_version(runtime))
    }

    /// Why no ONNX Runtime could be opened: each place tried, and what it said.
    public struct Unavailable: Error, Sendable, Equatable, CustomStringConvertible {
        public let attempts: [String]
        public var description: String { attempts.joined(separator: "; ") }
    }

    private static let opened = Mutex<[String: Result<OnnxRuntimeLibrary, Unavailable>]>([:])

    /// The first of `candidates` that opens; an earlier result for the same path is reused.
    public static func open(candidates: [String] = InstallLayout.current.onnxRuntimeCandidates) -> Result<OnnxRuntimeLibrary, Unavailable> {
        var attempts: [String] = []
        for path in candidates {
            switch open(path: path) {
            case .success(let library): return .success(library)
            case .failure(let failure): attempts += failure.attempts
            }
        }
        return .failure(Unavailable(attempts: attempts.isEmpty ? ["no place to look for it"] : attempts))
    }

    private static func open(path: String) -> Result<OnnxRuntimeLibrary, Unavailable> {
        opened.withLock { cache in
            if let known = cache[path] { return known }
            var error = [CChar](repeating: 0, count: 512)
            let result: Result<OnnxRuntimeLibrary, Unavailable>
            if let runtime = allspark_ort_runtime_load(path, &error, error.count) {
                result = .success(OnnxRuntimeLibrary(path: path, runtime: runtime))
            } else {
                result = .failure(Unavailable(attempts: ["\(path): \(String(nulTerminated: error))"]))
            }
            cache[path] = result
            return result
        }
    }
}
