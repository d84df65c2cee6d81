import Foundation

/// The `--boxes` file: one JSON line per frame or image,
/// `{"boxes":[[x,y,w,h],...],"source":"photo.jpg"}` (a frame's source is its 0-based index,
/// as a number), holding exactly the rectangles that were masked, in IN's pixel coordinates.
public final class BoxesLog {
    public enum Source: Encodable, Equatable {
        case image(String)
        case frame(Int)

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .image(let name): try container.encode(name)
            case .frame(let index): try container.encode(index)
            }
        }
    }

    private struct Line: Encodable {
        let source: Source
        let boxes: [[Int]]
    }

    private let handle: FileHandle
    private let encoder = JSONEncoder()

    /// Creates or truncates the file at `path`.
    public init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    deinit { try? handle.close() }

    public func append(source: Source, boxes: [PixelRect]) throws {
        var line = try encoder.encode(Line(source: source, boxes: boxes.map { [$0.x, $0.y, $0.width, $0.height] }))
        line.append(UInt8(ascii: "\n"))
        try handle.write(contentsOf: line)
    }
}
