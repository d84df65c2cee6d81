import Foundation

/// A hold as asked for (API, CLI, fleet), checked before anything is written.
public struct HoldRequest: Sendable, Equatable {
    public let startMs: Int64
    public let endMs: Int64
    public let reason: String
    public let expiresMs: Int64?
    /// When the fleet places the same hold on many nodes, it carries one id everywhere.
    public let id: String?

    /// Longest span one hold may cover: a year. Anything longer is a typo, not an incident.
    static let maximumSpanMs: Int64 = 366 * 86_400_000
    static let maximumReasonCharacters = 500

    public init(startMs: Int64, endMs: Int64, reason: String, expiresMs: Int64? = nil, id: String? = nil, nowMs: Int64 = WallClock.nowMs()) throws(HoldError) {
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard startMs < endMs else { throw .invalid("start must be before end") }
        guard endMs - startMs <= Self.maximumSpanMs else {
            throw .invalid("a hold may cover at most 366 days; \(startMs)...\(endMs) ms is \((endMs - startMs) / 86_400_000) days")
        }
        guard !reason.isEmpty else { throw .invalid("a hold needs a reason (who asked for it and why)") }
        guard reason.count <= Self.maximumReasonCharacters, !reason.contains("\0") else {
            throw .invalid("the reason must be at most \(Self.maximumReasonCharacters) characters of text")
        }
        if let expiresMs {
            guard expiresMs > nowMs else { throw .invalid("expires must be in the future") }
            guard expiresMs > startMs else { throw .invalid("expires must be after the hold's start") }
        }
        if let id {
            guard Self.isValidID(id) else { throw .invalid("a hold id is 1 to 64 letters, digits, '-' or '_', got \(id)") }
        }
        self.startMs = startMs
        self.endMs = endMs
        self.reason = reason
        self.expiresMs = expiresMs
        self.id = id
    }

    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 64 && id.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
    }

    func hold(createdMs: Int64) -> Hold {
        Hold(id: id ?? Hold.newID(), startMs: startMs, endMs: endMs, reason: reason, createdMs: createdMs, expiresMs: expiresMs)
    }
}
