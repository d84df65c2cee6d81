import Foundation

/// Works around an FFmpeg 5.1 leak: when libavdevice's v4l2 input fails after mapping its
/// buffers (VIDIOC_STREAMON refused, as vivid's `inject_vidioc_streamon_error` does), it
/// closes the device but leaves the buffers mapped. The mappings keep the driver's queue
/// owned, so every later open gets EBUSY, and after an unplug they keep the old device
/// number taken, so the camera comes back under another one. Unmapping what is still
/// mapped from the device right after such a failure frees it.
enum LeakedBufferMappings {
    /// Unmaps this process's mappings of `devicePath` (no capture holds the device when this
    /// runs: the recording loop opens one capture at a time). Returns how many were unmapped.
    @discardableResult
    static func release(devicePath: String) -> Int {
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: devicePath)).map {
            URL(fileURLWithPath: $0, relativeTo: URL(fileURLWithPath: devicePath).deletingLastPathComponent()).standardizedFileURL.path
        } ?? devicePath
        guard let maps = try? TextFile.read("/proc/self/maps") else { return 0 }
        var released = 0
        for line in maps.split(separator: "\n") {
            // "start-end perms offset dev inode   pathname"
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[5].trimmingCharacters(in: .whitespaces) == target else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), end > start,
                let address = UnsafeMutableRawPointer(bitPattern: start)
            else { continue }
            if munmap(address, Int(end - start)) == 0 { released += 1 }
        }
        return released
    }
}
