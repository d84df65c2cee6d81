import Foundation

extension Double {
    /// One decimal, for messages ("3200.4").
    var formatted1: String { String(format: "%.1f", self) }
}
