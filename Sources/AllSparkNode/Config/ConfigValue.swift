import Foundation

/// A value as it arrives from YAML, JSON, an environment variable or a flag, before the
/// key it is meant for checks it.
public enum ConfigValue: Sendable, Equatable, CustomStringConvertible {
    case text(String)
    case number(Double)
    case flag(Bool)

    public var description: String {
        switch self {
        case .text(let text): "\"\(text)\""
        case .number(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .flag(let flag): String(flag)
        }
    }

    var asDouble: Double? {
        switch self {
        case .number(let number): number
        case .text(let text): Double(text.trimmingCharacters(in: .whitespaces))
        case .flag: nil
        }
    }

    var asInteger: Int? {
        guard let double = asDouble, double.isFinite, double == double.rounded(), abs(double) < 1e15 else { return nil }
        return Int(double)
    }

    var asBool: Bool? {
        switch self {
        case .flag(let flag): flag
        case .number: nil
        case .text(let text):
            switch text.lowercased() {
            case "true", "yes", "on", "1": true
            case "false", "no", "off", "0": false
            default: nil
            }
        }
    }

    var asText: String? {
        if case .text(let text) = self { return text }
        return nil
    }
}
