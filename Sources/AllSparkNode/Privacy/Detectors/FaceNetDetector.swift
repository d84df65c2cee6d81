import COpenCVShim
import Foundation

/// Finds faces with a small convolutional net (YuNet or CenterFace, `FaceNetModel`),
/// run by ONNX Runtime or OpenCV's dnn module (`FaceNetEngine`).
///
/// Unlike the cascades it finds faces turned, tilted, laughing or half-covered, in colour
/// (the frame's three planes are shrunk and converted to the model's colour order inside
/// the shim). Boxes cover the brow or forehead to the chin. Not safe to use from two
/// threads at once.
public final class FaceNetDetector: RegionDetector {
    public let settings: FaceNetSettings
    public let engine: FaceNetEngine
    /// OpenCV's side: the input picture, the decoder and, on OpenCV's engine, the net.
    private let handle: OpaquePointer
    /// ONNX Runtime's side, on its engine.
    private let session: OnnxRuntimeSession?
    private let found: UnsafeMutablePointer<allspark_rect>

    /// - Throws: `PrivacyError.modelUnavailable` naming the model file when it is missing,
    ///   is not the model the settings name, or (YuNet) does not match its pinned sha256;
    ///   `.detectorUnavailable` when ONNX Runtime cannot run it.
    public init(settings: FaceNetSettings = FaceNetSettings(), engine: FaceNetEngine = .openCV) throws(PrivacyError) {
        try settings.validate()
        guard FileManager.default.isReadableFile(atPath: settings.modelPath) else {
            throw .modelUnavailable(
                path: settings.modelPath, reason: "no readable file at this path (scripts/setup.sh installs it)")
        }
        try settings.model.checkIdentity(ofFileAt: settings.modelPath)
        var handle: OpaquePointer?
        let status = allspark_face_net_create(settings.modelPath, settings.model.kind, &handle)
        guard status == ALLSPARK_OK, let handle else {
            throw .modelUnavailable(
                path: settings.modelPath,
                reason: "not a \(settings.model.rawValue) ONNX model (\(String(cString: allspark_status_description(status))))")
        }
        self.handle = handle
        self.settings = settings
        self.engine = engine
        self.found = .allocate(capacity: settings.maxFaces)
        do {
            session = try Self.makeSession(engine, model: settings, handle: handle)
        } catch {
            allspark_face_net_free(handle)
            found.deallocate()
            throw error
        }
        if session != nil { try searchGreyPicture() }
    }

    /// One search of a plain grey picture: proves the library runs the model and that its
    /// outputs decode, before the detector is trusted with a frame.
    private func searchGreyPicture() throws(PrivacyError) {
        let side = 64
        let lumaSize = side * side
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: lumaSize * 3 / 2)
        defer { pixels.deallocate() }
        pixels.initialize(repeating: 128, count: lumaSize * 3 / 2)
        let grey = YUV420Frame(
            width: side, height: side, y: pixels, yStride: side, u: pixels + lumaSize, uStride: side / 2,
            v: pixels + lumaSize * 5 / 4, vStride: side / 2)
        var ignored: [PixelRect] = []
        try detect(in: grey, appendingTo: &ignored)
    }

    /// ONNX Runtime's session of the model, its input freed to any size, on that engine.
    private static func makeSession(
        _ engine: FaceNetEngine, model settings: FaceNetSettings, handle: OpaquePointer
    ) throws(PrivacyError) -> OnnxRuntimeSession? {
        guard case .onnxRuntime(let library) = engine else { return nil }
        let model: [UInt8]
        do {
            model = try OnnxFreeImageSize.rewrite(Array(Data(contentsOf: URL(fileURLWithPath: settings.modelPath))))
        } catch {
            throw .modelUnavailable(path: settings.modelPath, reason: "cannot prepare it for ONNX Runtime: \(error)")
        }
        let outputNames = (0..<allspark_face_net_output_count(handle)).map {
            String(cString: allspark_face_net_output_name(handle, $0))
        }
        do {
            return try OnnxRuntimeSession(library: library, model: model, outputNames: outputNames)
        } catch {
            throw .detectorUnavailable("ONNX Runtime \(library.version) cannot load \(settings.modelPath): \(error)")
        }
    }

    deinit {
        found.deallocate()
        allspark_face_net_free(handle)
    }

    public func detect(in frame: YUV420Frame, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        try detect(in: frame, within: PixelRect(x: 0, y: 0, width: frame.width, height: frame.height), appendingTo: &regions)
    }

    /// Searches only `region` of the frame, scaled to the net's input as a whole frame
    /// would be: a small region is searched at a finer scale than the whole frame. A region
    /// may reach up to its own size past the frame's edges: the part outside is the
    /// inside's mirror image, so a face cut by the edge is seen with its reflection.
    public func detect(in frame: YUV420Frame, within region: PixelRect, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        try detect(in: frame, within: region, scale: nil, appendingTo: &regions)
    }

    /// Searches `region` at `scale` net pixels per frame pixel (at most the widest input).
    public func detect(
        in frame: YUV420Frame, within region: PixelRect, scale: Double, appendingTo regions: inout [PixelRect]
    ) throws(PrivacyError) {
        try detect(in: frame, within: region, scale: Optional(scale), appendingTo: &regions)
    }

    private func detect(
        in frame: YUV420Frame, within region: PixelRect, scale: Double?, appendingTo regions: inout [PixelRect]
    ) throws(PrivacyError) {
        guard frame.width >= 2, frame.height >= 2, frame.width <= Int(Int32.max), frame.height <= Int(Int32.max) else {
            throw .detectionFailed("unusable frame \(frame.width)x\(frame.height)")
        }
        let inside = region.clamped(toWidth: frame.width, height: frame.height)
        guard inside.width >= 2, inside.height >= 2 else { return }
        let searched = region.width <= 3 * frame.width && region.height <= 3 * frame.height ? region : inside
        let input = settings.inputSize(forWidth: searched.width, height: searched.height, scale: scale)
        let image = allspark_yuv420_image(
            y: UnsafePointer(frame.y), u: UnsafePointer(frame.u), v: UnsafePointer(frame.v),
            width: Int32(frame.width), height: Int32(frame.height),
            y_stride: Int32(frame.yStride), u_stride: Int32(frame.uStride), v_stride: Int32(frame.vStride))
        let area = allspark_rect(
            x: Int32(searched.x), y: Int32(searched.y), width: Int32(searched.width), height: Int32(searched.height))
        var count: Int32 = 0
        let status: allspark_status
        if let session {
            status = try runSession(session, image: image, area: area, input: input, count: &count)
        } else {
            status = allspark_face_net_detect(
                handle, image, area, Int32(input.width), Int32(input.height), settings.scoreThreshold,
                settings.overlapThreshold, found, Int32(settings.maxFaces), &count)
        }
        guard status == ALLSPARK_OK else {
            let detail = String(cString: allspark_face_net_last_error(handle))
            throw .detectionFailed(
                "face net: " + String(cString: allspark_status_description(status)) + (detail.isEmpty ? "" : ": \(detail)"))
        }
        for index in 0..<Int(count) {
            let box = PixelRect(
                x: Int(found[index].x), y: Int(found[index].y), width: Int(found[index].width), height: Int(found[index].height))
            guard !box.isEmpty else { continue }
            var face = Self.completedAtFrameEdge(
                box, faceAspect: settings.model.faceAspect, frameWidth: frame.width, frameHeight: frame.height)
            let forehead = Int((Double(face.height) * settings.model.foreheadShare).rounded(.up))
            face.y -= forehead
            face.height += forehead
            regions.append(face.clamped(toWidth: frame.width, height: frame.height))
        }
    }

    /// The search on ONNX Runtime: OpenCV's side fills the session's input and reads its outputs.
    private func runSession(
        _ session: OnnxRuntimeSession, image: allspark_yuv420_image, area: allspark_rect, input: (width: Int, height: Int),
        count: inout Int32
    ) throws(PrivacyError) -> allspark_status {
        do {
            let buffer = try session.input(width: input.width, height: input.height)
            let prepared = allspark_face_net_prepare(handle, image, area, Int32(input.width), Int32(input.height), buffer)
            guard prepared == ALLSPARK_OK else { return prepared }
            let ran = try session.run()
            return allspark_face_net_decode(
                handle, ran.outputs, ran.lengths, Int32(ran.count), image, area, Int32(input.width), Int32(input.height),
                settings.scoreThreshold, settings.overlapThreshold, found, Int32(settings.maxFaces), &count)
        } catch {
            throw .detectionFailed("face net on ONNX Runtime: \(error)")
        }
    }

    /// A net's box of a whole face is `faceAspect` times as tall as wide. A face cut by
    /// the frame's edge gets a box of its visible part, often placed towards
    /// the missing part (half a face below the eyes is boxed from the nose down). Such a
    /// box is extended into the frame to the face's proportions, so its mask covers all
    /// that shows.
    static func completedAtFrameEdge(_ box: PixelRect, faceAspect: Double, frameWidth: Int, frameHeight: Int) -> PixelRect {
        var completed = box
        let faceHeight = Int((Double(box.width) * faceAspect).rounded(.up))
        let faceWidth = Int((Double(box.height) / faceAspect).rounded(.up))
        if box.maxY >= frameHeight, box.height < faceHeight {
            completed.y = box.maxY - faceHeight
            completed.height = faceHeight
        } else if box.y <= 0, box.height < faceHeight {
            completed.height = faceHeight
        }
        if box.maxX >= frameWidth, box.width < faceWidth {
            completed.x = box.maxX - faceWidth
            completed.width = faceWidth
        } else if box.x <= 0, box.width < faceWidth {
            completed.width = faceWidth
        }
        return completed.clamped(toWidth: frameWidth, height: frameHeight)
    }
}
