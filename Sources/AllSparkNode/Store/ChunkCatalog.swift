import Foundation
import Logging

/// Lists a store's finished chunks without changing anything, so it is safe while a node
/// records into the same directory.
public enum ChunkCatalog {
    public static func read(directory: String) throws -> [ChunkRecord] {
        let url = URL(fileURLWithPath: directory).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path])
        }
        return ChunkIndexBuilder(directory: url, logger: Logger(label: "allspark-node.catalog"), readOnly: true).rebuild()
    }
}
