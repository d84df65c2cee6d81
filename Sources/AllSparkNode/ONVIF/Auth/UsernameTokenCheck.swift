import Crypto
import Foundation
import Synchronization

/// WS-Security UsernameToken checking for ONVIF: PasswordDigest is
/// Base64(SHA1(nonce + Created + password)), with the Created string exactly as received
/// (`Z` or `+00:00`), which must lie within ±5 min of the node's clock; a nonce seen within
/// that window is refused (a replay). PasswordText is accepted too (the token itself).
final class UsernameTokenCheck: Sendable {
    static let windowMs: Int64 = 5 * 60 * 1000
    /// Nonces remembered at most; beyond, the oldest go (they could be replayed only within the window anyway).
    static let maximumNonces = 4096

    let user: String
    private let seen = Mutex<[String: Int64]>([:])

    init(user: String) {
        self.user = user
    }

    enum Outcome: Equatable, Sendable { case valid, invalid, replayed, outsideWindow }

    /// Judges `token` against `password`. A nonce is remembered only once its digest matched,
    /// so wrong guesses cannot fill the table.
    func check(_ token: UsernameToken, password: String, nowMs: Int64 = WallClock.nowMs()) -> Outcome {
        guard AccessPolicy.sameSecret(token.username, user) else { return .invalid }
        guard token.isDigest else {
            return AccessPolicy.sameSecret(token.password, password) ? .valid : .invalid
        }
        guard let createdMs = Self.parseTime(token.created), abs(createdMs - nowMs) <= Self.windowMs else { return .outsideWindow }
        guard let nonce = Data(base64Encoded: token.nonce), !nonce.isEmpty else { return .invalid }
        let expected = Self.digest(nonce: nonce, created: token.created, password: password)
        guard AccessPolicy.sameSecret(token.password, expected) else { return .invalid }
        return seen.withLock { seen in
            seen = seen.filter { nowMs - $0.value <= Self.windowMs }
            if seen[token.nonce] != nil { return .replayed }
            if seen.count >= Self.maximumNonces, let oldest = seen.min(by: { $0.value < $1.value }) { seen[oldest.key] = nil }
            seen[token.nonce] = nowMs
            return .valid
        }
    }

    static func digest(nonce: Data, created: String, password: String) -> String {
        Data(Insecure.SHA1.hash(data: nonce + Data(created.utf8) + Data(password.utf8))).base64EncodedString()
    }

    /// An xs:dateTime as milliseconds since 1970: `Z` or a numeric offset, fractions of a second allowed.
    static func parseTime(_ text: String) -> Int64? {
        // ICU's parser traps (SIGFPE) on a fraction of a hundred digits (a fuzz finding), and
        // a UsernameToken's Created reaches here before any password: only the xs:dateTime
        // shape goes to it, its fraction cut to milliseconds.
        guard let text = xsDateTime(text) else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return Int64(date.timeIntervalSince1970 * 1000) }
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return Int64(date.timeIntervalSince1970 * 1000) }
        return nil
    }

    /// `text` if it has the shape YYYY-MM-DDThh:mm:ss[.f+](Z|±hh:mm), with a fraction of
    /// more than 3 digits cut to 3; nil for anything else.
    static func xsDateTime(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 80 else { return nil }
        func digits(_ range: Range<Int>) -> Bool { range.upperBound <= bytes.count && range.allSatisfy { (48...57).contains(bytes[$0]) } }
        let punctuation: [(Int, UInt8)] = [(4, 45), (7, 45), (10, 84), (13, 58), (16, 58)]
        guard digits(0..<4), digits(5..<7), digits(8..<10), digits(11..<13), digits(14..<16), digits(17..<19),
            punctuation.allSatisfy({ bytes[$0.0] == $0.1 })
        else { return nil }
        var end = 19
        var fraction: [UInt8] = []
        if bytes[end] == 46 {
            end += 1
            while end < bytes.count, (48...57).contains(bytes[end]) { fraction.append(bytes[end]); end += 1 }
            guard !fraction.isEmpty else { return nil }
        }
        let zone = Array(bytes[end...])
        let zoneIsValid = zone == [90]
            || (zone.count == 6 && (zone[0] == 43 || zone[0] == 45) && zone[3] == 58
                && [1, 2, 4, 5].allSatisfy { (48...57).contains(zone[$0]) })
        guard zoneIsValid else { return nil }
        let kept = fraction.isEmpty ? [] : [46] + fraction.prefix(3)
        return String(decoding: Array(bytes[0..<19]) + kept + zone, as: UTF8.self)
    }
}
