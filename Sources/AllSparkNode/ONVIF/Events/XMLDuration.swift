import Foundation

/// An xs:duration (`PT600S`, `PT1M30.5S`, `P1DT2H`) as milliseconds: days, hours, minutes
/// and seconds; years and months (of no fixed length) and negative durations are refused.
enum XMLDuration {
    static func milliseconds(_ text: String) -> Int64? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard rest.first == "P", rest.count <= 40 else { return nil }
        rest = rest.dropFirst()
        var total = 0.0
        var inTime = false
        var number = ""
        var sawField = false
        for character in rest {
            if character == "T" {
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
                continue
            }
            if character.isASCII, character.isNumber || character == "." {
                number.append(character)
                continue
            }
            guard let value = Double(number), value >= 0, value.isFinite else { return nil }
            let unitSeconds: Double
            switch (character, inTime) {
            case ("D", false): unitSeconds = 86_400
            case ("H", true): unitSeconds = 3_600
            case ("M", true): unitSeconds = 60
            case ("S", true): unitSeconds = 1
            default: return nil
            }
            // Only seconds may have a fraction.
            if number.contains("."), character != "S" { return nil }
            total += value * unitSeconds
            number = ""
            sawField = true
        }
        guard sawField, number.isEmpty, total < 1e12 else { return nil }
        return Int64((total * 1000).rounded())
    }

    /// `PT…S` for `ms` milliseconds.
    static func text(ms: Int64) -> String {
        ms % 1000 == 0 ? "PT\(ms / 1000)S" : "PT\(Double(ms) / 1000)S"
    }
}
