/// Rewrites an ONNX model so that its image input takes any height and width.
///
/// YuNet's file declares its input as 1x3x640x640, but its layers work at any size
/// (reshapes to -1, resizes by scale): OpenCV's dnn searches 640x352 by parsing the file
/// again for that size. ONNX Runtime holds inputs to the declared shape, so the input's
/// last two dimensions become named ones ("height", "width"), and the shapes the file
/// records for its outputs and inner values (640x640 figures) are dropped: ONNX Runtime
/// infers them again for each size. One session then serves every size.
enum OnnxFreeImageSize {
    // Field numbers in onnx.proto.
    private static let modelGraph: UInt64 = 7
    private static let graphInput: UInt64 = 11
    private static let graphOutput: UInt64 = 12
    private static let graphValueInfo: UInt64 = 13
    private static let valueInfoType: UInt64 = 2
    private static let typeTensor: UInt64 = 1
    private static let tensorShape: UInt64 = 2
    private static let shapeDimension: UInt64 = 1
    private static let dimensionParam: UInt64 = 2

    /// `model` with every rank-4 input's height and width freed.
    /// - Throws: when the bytes are not a protobuf message or hold no graph with such an input.
    static func rewrite(_ model: [UInt8]) throws(ProtobufWire.Malformed) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(model.count)
        var freedInputs = 0
        for field in try ProtobufWire.fields(of: model, in: model.indices) {
            guard field.number == modelGraph, field.isLengthDelimited else {
                out.append(contentsOf: model[field.bytes])
                continue
            }
            ProtobufWire.appendField(modelGraph, payload: try rewriteGraph(model, field.payload, freed: &freedInputs), to: &out)
        }
        guard freedInputs > 0 else { throw ProtobufWire.Malformed(description: "the model has no input of rank 4") }
        return out
    }

    private static func rewriteGraph(_ bytes: [UInt8], _ graph: Range<Int>, freed: inout Int) throws(ProtobufWire.Malformed) -> [UInt8] {
        var out: [UInt8] = []
        for field in try ProtobufWire.fields(of: bytes, in: graph) {
            switch field.number {
            case graphValueInfo:
                continue
            case graphInput where field.isLengthDelimited:
                let input = try rewriteShape(bytes, of: field.payload) { shape throws(ProtobufWire.Malformed) in
                    try freeImageDimensions(bytes, shape, freed: &freed)
                }
                ProtobufWire.appendField(graphInput, payload: input, to: &out)
            case graphOutput where field.isLengthDelimited:
                ProtobufWire.appendField(graphOutput, payload: try rewriteShape(bytes, of: field.payload) { _ in nil }, to: &out)
            default:
                out.append(contentsOf: bytes[field.bytes])
            }
        }
        return out
    }

    /// A ValueInfoProto with its tensor's shape replaced by what `newShape` makes of it
    /// (nil drops the shape).
    private static func rewriteShape(
        _ bytes: [UInt8], of valueInfo: Range<Int>, _ newShape: (Range<Int>) throws(ProtobufWire.Malformed) -> [UInt8]?
    ) throws(ProtobufWire.Malformed) -> [UInt8] {
        try rewriteChild(bytes, valueInfo, valueInfoType) { type throws(ProtobufWire.Malformed) in
            try rewriteChild(bytes, type, typeTensor) { tensor throws(ProtobufWire.Malformed) in
                try rewriteChild(bytes, tensor, tensorShape, newShape)
            }
        }
    }

    /// The message in `range` with its length-delimited field `number` replaced by what
    /// `rewrite` makes of its contents (nil drops the field); every other field as it was.
    private static func rewriteChild(
        _ bytes: [UInt8], _ range: Range<Int>, _ number: UInt64, _ rewrite: (Range<Int>) throws(ProtobufWire.Malformed) -> [UInt8]?
    ) throws(ProtobufWire.Malformed) -> [UInt8] {
        var out: [UInt8] = []
        for field in try ProtobufWire.fields(of: bytes, in: range) {
            guard field.number == number, field.isLengthDelimited else {
                out.append(contentsOf: bytes[field.bytes])
                continue
            }
            if let child = try rewrite(field.payload) { ProtobufWire.appendField(number, payload: child, to: &out) }
        }
        return out
    }

    /// A TensorShapeProto of four dimensions with the last two named; any other shape as it was.
    private static func freeImageDimensions(_ bytes: [UInt8], _ shape: Range<Int>, freed: inout Int) throws(ProtobufWire.Malformed) -> [UInt8] {
        let fields = try ProtobufWire.fields(of: bytes, in: shape)
        let dimensions = fields.filter { $0.number == shapeDimension && $0.isLengthDelimited }
        guard dimensions.count == 4 else { return Array(bytes[shape]) }
        freed += 1
        var out: [UInt8] = []
        var seen = 0
        for field in fields {
            guard field.number == shapeDimension, field.isLengthDelimited else {
                out.append(contentsOf: bytes[field.bytes])
                continue
            }
            defer { seen += 1 }
            guard seen >= 2 else {
                out.append(contentsOf: bytes[field.bytes])
                continue
            }
            var dimension: [UInt8] = []
            ProtobufWire.appendField(dimensionParam, payload: Array((seen == 2 ? "height" : "width").utf8), to: &dimension)
            ProtobufWire.appendField(shapeDimension, payload: dimension, to: &out)
        }
        return out
    }
}
