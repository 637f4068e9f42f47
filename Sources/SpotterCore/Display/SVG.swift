/// Pieces every SVG Spotter draws uses: escaping, numbers, value ranges.
public enum SVG {
    /// Text and attribute values for SVG (XML).
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A coordinate: one decimal.
    public static func f(_ value: Double) -> String { DisplayFormat.oneDecimal(value) }

    /// A range with some room above and below, never empty.
    public static func range(_ values: [Double]) -> (low: Double, high: Double) {
        let low = values.min() ?? 0
        let high = values.max() ?? 0
        guard high > low else { return (max(0, low - 10), high + 10) }
        let margin = (high - low) * 0.1
        return (max(0, low - margin), high + margin)
    }

    /// An axis value: whole above 100, one decimal below.
    public static func number(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : DisplayFormat.oneDecimal(value)
    }
}
