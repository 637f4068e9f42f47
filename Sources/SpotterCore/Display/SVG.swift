import Foundation

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

    /// The x of each of `days` (`YYYY-MM-DD`, oldest first) between `left` and `right`, by date: a
    /// month without training is a month of width, not the step to the next point. A single day (or
    /// a list with one that is not a date) is spread evenly instead.
    public static func timeAxis(_ days: [String], left: Double, right: Double) -> [Double] {
        guard let numbers = dayNumbers(days), let first = numbers.first, let last = numbers.last, last > first else {
            guard days.count > 1 else { return days.map { _ in (left + right) / 2 } }
            return days.indices.map { left + Double($0) * (right - left) / Double(days.count - 1) }
        }
        return numbers.map { left + Double($0 - first) * (right - left) / Double(last - first) }
    }

    /// Days from the first of `days` to the last, or nil when one of them is not a date.
    public static func daySpan(_ days: [String]) -> Int? {
        guard let numbers = dayNumbers(days), let first = numbers.first, let last = numbers.last else { return nil }
        return last - first
    }

    /// Each of `days` as `dayNumber`, or nil when one of them is not a date.
    private static func dayNumbers(_ days: [String]) -> [Int]? {
        let numbers = days.compactMap(dayNumber)
        return numbers.count == days.count ? numbers : nil
    }

    /// Which of `positions` (ascending) carry a label at least `spacing` apart, left to right; the
    /// last always does, in place of the one before it when that is too close.
    public static func labelled(_ positions: [Double], spacing: Double) -> [Int] {
        var chosen: [Int] = []
        for index in positions.indices where chosen.last.map({ positions[index] - positions[$0] >= spacing }) ?? true {
            chosen.append(index)
        }
        if let lastIndex = positions.indices.last, chosen.last != lastIndex {
            if let previous = chosen.last, positions[lastIndex] - positions[previous] < spacing, chosen.count > 1 {
                chosen.removeLast()
            }
            if chosen.last.map({ positions[lastIndex] - positions[$0] >= spacing }) ?? true { chosen.append(lastIndex) }
        }
        return chosen
    }

    /// Labels for `days` on an axis: `4 Mar`, with the year on the first, wherever it changes
    /// (`4 Mar 2025`), so a chart that reaches back a year says so, and on the last: a chart seen
    /// from its newest end (a phone scrolls there first) names its year too.
    public static func dayLabels(_ days: [String]) -> [String] {
        var year: Substring?
        let last = days.indices.last
        return days.indices.map { index in
            let day = days[index]
            let parts = day.split(separator: "-")
            guard parts.count == 3, let month = Int(parts[1]), (1...12).contains(month), let date = Int(parts[2]) else {
                return day
            }
            defer { year = parts[0] }
            let withYear = parts[0] != year || index == last
            return "\(date) \(DisplayFormat.monthAbbreviations[month - 1])" + (withYear ? " \(parts[0])" : "")
        }
    }

    /// Days since 1970-01-01 of a `YYYY-MM-DD` day (the proleptic Gregorian calendar, as PostgreSQL's
    /// `date`), or nil when it is not one.
    static func dayNumber(_ day: String) -> Int? {
        let parts = day.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let date = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(date)
        else { return nil }
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + date - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Round grid values covering `values`, about four steps of `roundStep` apart, from zero when
    /// `fromZero`; the first and last are the axis's ends.
    public static func ticks(_ values: [Double], fromZero: Bool) -> [Double] {
        let range = range(fromZero ? [0] + values : values)
        let step = roundStep((range.high - (fromZero ? 0 : range.low)) / 4)
        let low = fromZero ? 0 : (range.low / step).rounded(.down) * step
        let high = max(low + step, (range.high / step).rounded(.up) * step)
        let count = Int(((high - low) / step).rounded())
        return (0...count).map { low + Double($0) * step }
    }

    /// A grid value's text: grouped whole numbers when the grid's step is whole, else one decimal.
    public static func tickText(_ value: Double, in ticks: [Double]) -> String {
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : 1
        return step.rounded() == step
            ? DisplayFormat.grouped(Decimal(Int(value.rounded()))) : DisplayFormat.oneDecimal(value)
    }

    /// The round step of an axis at least `raw` apart: 1, 2, 2.5 or 5 times a power of ten.
    public static func roundStep(_ raw: Double) -> Double {
        guard raw.isFinite, raw > 0 else { return 1 }
        let power = pow(10, (log10(raw)).rounded(.down))
        let fraction = raw / power
        let round = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 ? 2.5 : fraction <= 5 ? 5 : 10
        return round * power
    }

    /// An axis value: whole above 100 (`6,765`), one decimal below.
    public static func number(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return DisplayFormat.oneDecimal(value) }
        return value >= 100 ? DisplayFormat.grouped(Decimal(Int(value.rounded()))) : DisplayFormat.oneDecimal(value)
    }
}
