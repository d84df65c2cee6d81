import Foundation
import Synchronization

/// Tells the store's own directory from whatever else appears at its path. An unmounted
/// disk leaves its mount point behind, an empty directory on the root file system: chunks
/// written there would fill the system disk and vanish again when the disk returns. So the
/// store remembers the device it was opened on and keeps a marker file with a random id;
/// the path is the store while it is on that device or holds that marker (the same disk
/// back under another device number, e.g. another loop or sd device).
final class StoreIdentity: Sendable {
    static let markerFileName = ".allspark-store-id"
    let path: String
    let marker: String
    private let device = Atomic<UInt64>(0)

    /// Reads the marker, writing a new one into a store that has none (on a full disk that
    /// waits for `restoreMarker`: the device tells the store meanwhile).
    init(directory: URL) throws {
        path = directory.path
        if let existing = Self.readMarker(at: directory.appendingPathComponent(Self.markerFileName).path) {
            marker = existing
        } else {
            marker = UUID().uuidString
            try? writeMarker()
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw DurableFile.Failure(operation: "reading", path: path, code: errno) }
        device.store(UInt64(info.st_dev), ordering: .relaxed)
    }

    /// Nil while the path is this store, else why it is not. Cheap: one stat, and a read of
    /// the marker only when the device changed.
    func problem() -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return "store vanished: \(path) is gone (\(String(cString: strerror(errno))))"
        }
        let current = UInt64(info.st_dev)
        let known = device.load(ordering: .relaxed)
        if current == known { return nil }
        if Self.readMarker(at: markerPath) == marker {
            device.store(current, ordering: .relaxed)
            return nil
        }
        return "store vanished: \(path) is now on another file system (device \(Self.describe(current)), "
            + "was \(Self.describe(known))) without this store's \(Self.markerFileName); nothing is written there "
            + "until the store's own disk is back (restart the node to start a new store there)"
    }

    /// Writes the marker again if it is missing (the directory was emptied or made again).
    func restoreMarker() {
        guard Self.readMarker(at: markerPath) != marker else { return }
        try? writeMarker()
    }

    private var markerPath: String { path + "/" + Self.markerFileName }

    private func writeMarker() throws {
        let temporaryPath = markerPath + ".tmp"
        _ = try DurableFile.write(marker + "\n", to: temporaryPath)
        try DurableFile.rename(temporaryPath, to: markerPath)
        DurableFile.syncDirectory(path)
    }

    private static func readMarker(at path: String) -> String? {
        guard let text = try? TextFile.read(path) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// major:minor, as glibc's major() and minor() split a dev_t (macros Swift cannot call).
    private static func describe(_ device: UInt64) -> String {
        let major = (device & 0x0000_0000_000f_ff00) >> 8 | (device & 0xffff_f000_0000_0000) >> 32
        let minor = device & 0xff | (device & 0x0000_0fff_fff0_0000) >> 12
        return "\(major):\(minor)"
    }
}
