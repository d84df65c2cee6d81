import COpenCVShim

/// What runs the face net (`privacyEngine`).
public enum FaceNetEngineChoice: String, Sendable, CaseIterable {
    /// ONNX Runtime where its library opens and runs the model, else OpenCV's dnn with a warning.
    case auto
    /// ONNX Runtime; the node does not start without it.
    case onnxruntime
    /// OpenCV's dnn module.
    case opencv
}

/// The engine a run's face nets use, chosen once before anything is recorded.
///
/// ONNX Runtime runs YuNet 2.3 times as fast as OpenCV 4.6's dnn on one thread (4.7
/// against 10.9 ms at 640x352, the same outputs within 3e-6; bench/history 15), and one
/// session serves every input size. CenterFace stays on OpenCV's dnn.
public enum FaceNetEngine: Sendable {
    case openCV
    case onnxRuntime(OnnxRuntimeLibrary)

    /// What `/api/status`, the dashboard and the log call it: "onnxruntime 1.21.1", "opencv-dnn".
    public var name: String {
        switch self {
        case .openCV: "opencv-dnn"
        case .onnxRuntime(let library): "onnxruntime " + library.version
        }
    }

    /// The `version` label of `allspark_privacy_engine_info`: the library's, or OpenCV's.
    public var version: String {
        switch self {
        case .openCV: String(cString: allspark_opencv_version())
        case .onnxRuntime(let library): library.version
        }
    }

    /// The `engine` label of `allspark_privacy_engine_info`.
    public var label: String {
        switch self {
        case .openCV: "opencv-dnn"
        case .onnxRuntime: "onnxruntime"
        }
    }

    /// The engine for `choice`, proved by loading `net` with it, and why it is slower than
    /// asked for when ONNX Runtime could not be used.
    /// - Parameter library: the library to open; nil for the usual places (`InstallLayout`).
    static func resolve(
        _ choice: FaceNetEngineChoice, net: FaceNetSettings, library: String?
    ) -> (engine: FaceNetEngine, fallbackReason: String?) {
        guard choice != .opencv else { return (.openCV, nil) }
        guard net.model == .yuNet else {
            return (.openCV, choice == .onnxruntime ? "ONNX Runtime runs YuNet only; \(net.model.rawValue) runs on OpenCV's dnn" : nil)
        }
        let opened = OnnxRuntimeLibrary.open(candidates: library.map { [$0] } ?? InstallLayout.current.onnxRuntimeCandidates)
        switch opened {
        case .failure(let unavailable):
            return (.openCV, "ONNX Runtime is not available (\(unavailable)): the face net runs on OpenCV's dnn, about half as fast")
        case .success(let library):
            do {
                _ = try FaceNetDetector(settings: net, engine: .onnxRuntime(library))
                return (.onnxRuntime(library), nil)
            } catch {
                // A missing model is the detector's own error to report, on any engine.
                if case .modelUnavailable = error { return (.onnxRuntime(library), nil) }
                return (.openCV, "ONNX Runtime \(library.version) at \(library.path) cannot run the face net (\(error)): "
                    + "it runs on OpenCV's dnn, about half as fast")
            }
        }
    }
}
