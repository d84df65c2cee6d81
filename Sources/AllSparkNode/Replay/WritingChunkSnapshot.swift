import Foundation

/// The chunk the recorder is writing, as far as its complete fragments go: replay copies
/// them (the `ftyp`, the initial `moov` and each whole `moof`+`mdat`, a fragment a key-frame
/// interval) so that footage reaches a replay a second or two after its capture, not a
/// chunk's length later. The writer appends to the part file meanwhile; a fragment it is
/// still writing is left out, as a power cut's torn one is.
enum WritingChunkSnapshot {
    /// Copies `partPath`'s complete fragments to `copyPath`; false when it has none yet.
    /// - Throws: when the part cannot be read (gone: finished since), or the copy not written.
    static func copy(partPath: String, to copyPath: String) throws -> Bool {
        let part = try FinishingFile(path: partPath, readOnly: true)
        let layout = try FragmentedFileLayout.scan(part, keepingIntactPrefix: true)
        // A torn last fragment is in `fragments`, and `appendOffset` is where it starts.
        let whole = layout.fragments.count - (layout.tornDataEnd == nil ? 0 : 1)
        guard whole > 0 else { return false }
        guard FileManager.default.createFile(atPath: copyPath, contents: nil),
            let output = FileHandle(forWritingAtPath: copyPath)
        else { throw FinishingError(path: copyPath, reason: "creating the copy: \(String(cString: strerror(errno)))") }
        defer { try? output.close() }
        let piece: UInt64 = 1 << 20
        var offset: UInt64 = 0
        while offset < layout.appendOffset {
            let count = Int(min(piece, layout.appendOffset - offset))
            try output.write(contentsOf: try part.read(count: count, at: offset))
            offset += UInt64(count)
        }
        return true
    }
}
