import Foundation

extension Double {
    /// One decimal, for messages ("3200.4").
    var formatted1: String { String(format: "%.1f", self) }
}

extension Int64 {
    /// Non-negative milliseconds as seconds with three decimals ("1700000012.345", "0.034"),
    /// in integer arithmetic: exact, and cheap enough for text made on every request.
    var millisecondsAsDecimalSeconds: String {
        let fraction = String(self % 1000)
        return "\(self / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
