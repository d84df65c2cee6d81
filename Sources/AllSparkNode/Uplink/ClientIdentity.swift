import Foundation

/// The name the node gives an edge server in clientInfo. As the iOS app does, a name with
/// no run of 3 digits gets a 3-digit nonce appended (`-123`), kept in the store directory
/// so the node keeps its name across restarts.
public enum ClientIdentity {
    static let nonceFileName = ".allspark-client-nonce"

    public static func name(configured: String, storeDirectory: URL) -> String {
        let base = configured.isEmpty ? (ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "allspark-node") : configured
        guard !hasRunOfThreeDigits(base) else { return base }
        return "\(base)-\(nonce(in: storeDirectory))"
    }

    static func hasRunOfThreeDigits(_ text: String) -> Bool {
        var run = 0
        for character in text {
            run = character.isASCII && character.isNumber ? run + 1 : 0
            if run >= 3 { return true }
        }
        return false
    }

    static func nonce(in directory: URL) -> String {
        let path = directory.appendingPathComponent(nonceFileName).path
        if let saved = try? String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
            saved.count == 3, saved.allSatisfy(\.isNumber)
        {
            return saved
        }
        let fresh = String(format: "%03d", Int.random(in: 0...999))
        _ = try? DurableFile.write(fresh + "\n", to: path)
        return fresh
    }
}
