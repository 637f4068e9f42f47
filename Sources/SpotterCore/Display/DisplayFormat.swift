import Foundation
import ValueText

/// Dates, weights and durations as a viewer reads them: in their time zone and unit, in English.
/// The portal's pages and the share images write with it.
public struct DisplayFormat: Sendable {
    public let timeZone: TimeZone
    public let unit: WeightUnit
    private let calendar: Calendar

    /// An unknown zone reads as UTC.
    public init(timeZone identifier: String, unit: WeightUnit) {
        timeZone = TimeZone(identifier: identifier) ?? .gmt
        self.unit = unit
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    /// `Mon 23 Nov 2026`.
    public func day(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
        return
            "\(Self.weekdays[(parts.weekday ?? 1) - 1]) \(parts.day ?? 0) \(Self.monthAbbreviations[(parts.month ?? 1) - 1]) "
            + "\(parts.year ?? 0)"
    }

    /// `Mon 23 Nov 2026, 18:05`.
    public func moment(_ date: Date) -> String {
        day(date) + ", " + clock(date)
    }

    /// `18:05`.
    public func clock(_ date: Date) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return Self.twoDigits(parts.hour ?? 0) + ":" + Self.twoDigits(parts.minute ?? 0)
    }

    /// `Thu 26 Nov 2026` for a calendar date (`YYYY-MM-DD`, as the API writes one); other text as
    /// it is.
    public func day(_ text: String) -> String {
        date(text).map(day) ?? text
    }

    /// `Nov 2026` for a calendar date (a month's first day); other text as it is.
    public func month(_ text: String) -> String {
        guard let date = date(text) else { return text }
        let parts = calendar.dateComponents([.year, .month], from: date)
        return "\(Self.monthAbbreviations[(parts.month ?? 1) - 1]) \(parts.year ?? 0)"
    }

    // Dates are written out here, not by DateFormatter: creating one costs about 100 µs (ICU), and
    // a page of 200 clients showed that in its profile. The names are English, as the pages are.
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    /// "Jan" … "Dec", as dates are written everywhere.
    public static let monthAbbreviations = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }

    /// The start of the local day `text` (`YYYY-MM-DD`), or of the day after it (`end`). The text is
    /// read as the API reads a date (`ProgramSchedule.date`: midnight UTC of that date); the day
    /// starts here in the viewer's time zone.
    public func date(_ text: String, end: Bool = false) -> Date? {
        guard let utcDay = try? ProgramSchedule.date(text, field: "date") else { return nil }
        guard let start = calendar.date(from: Self.utc.dateComponents([.year, .month, .day], from: utcDay)) else {
            return nil
        }
        return end ? calendar.date(byAdding: .day, value: 1, to: start) : start
    }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()

    /// `102.5 kg`, `6,150 kg` (a volume, thousands grouped as on every page and card); bodyweight
    /// sets say so.
    public func weight(_ mass: Mass?) -> String {
        guard let mass else { return "bodyweight" }
        return Self.written(mass.value(in: unit), unit)
    }

    /// `1,803 lb`: a weight to the whole unit, for a share card's volume tile, which has no room
    /// for `1,802.92 lb`.
    public func wholeWeight(_ mass: Mass) -> String {
        Self.written(mass.value(in: unit).rounded(scale: 0), unit)
    }

    /// A set's weight as `weight(_:)` writes it, followed by the weight in the other unit when only
    /// that unit holds it exactly, as when it was logged so: `61.23 kg (135 lb)` for 135 lb read by
    /// a kilogram coach, where `61.23 kg` alone hides what the lifter typed.
    public func setWeight(_ mass: Mass?) -> String {
        guard let mass, let other = typedIn(mass) else { return weight(mass) }
        return "\(weight(mass)) (\(Self.written(mass.value(in: other), other)))"
    }

    /// A set's weight in the unit that holds it exactly, the viewer's when both do: `255 lb` for
    /// 255 lb logged by a lifter who counts in kilograms (a share card has no room for both).
    public func typedWeight(_ mass: Mass?) -> String {
        guard let mass, let other = typedIn(mass) else { return weight(mass) }
        return Self.written(mass.value(in: other), other)
    }

    /// The other unit than the viewer's when only it holds `mass` exactly: the unit it was
    /// logged in. `nil` when the viewer's unit holds it.
    private func typedIn(_ mass: Mass) -> WeightUnit? {
        let other: WeightUnit = unit == .kg ? .lb : .kg
        func holds(_ unit: WeightUnit) -> Bool { Mass(mass.value(in: unit), unit) == mass }
        return !holds(unit) && holds(other) ? other : nil
    }

    /// `6,150 kg`: a value in `unit`, thousands grouped.
    private static func written(_ value: Decimal, _ unit: WeightUnit) -> String {
        "\(grouped(value)) \(unit.rawValue)"
    }

    /// `1 set`, `3 sets`: a count with its noun, plural but for one.
    public static func count(_ value: Int, _ noun: String) -> String {
        "\(value) \(noun)\(value == 1 ? "" : "s")"
    }

    /// `12,345.5`: thousands grouped, decimals as given.
    public static func grouped(_ value: Decimal) -> String {
        let text = "\(value)"
        let parts = text.split(separator: ".", maxSplits: 1)
        var whole = String(parts[0])
        let negative = whole.hasPrefix("-")
        if negative { whole.removeFirst() }
        var groups: [Substring] = []
        while whole.count > 3 {
            groups.insert(whole.suffix(3)[...], at: 0)
            whole.removeLast(3)
        }
        groups.insert(whole[...], at: 0)
        return (negative ? "-" : "") + groups.joined(separator: ",") + (parts.count > 1 ? "." + parts[1] : "")
    }

    /// A weight in the viewer's unit, for charts.
    public func value(_ mass: Mass) -> Double { mass.doubleValue(in: unit) }

    /// An estimate given in kilograms, in the viewer's unit.
    public func estimate(_ kilograms: Double) -> String {
        let value = unit == .kg ? kilograms : kilograms / Mass.kilogramsPerPound.doubleValue
        return "\(Self.oneDecimal(value)) \(unit.rawValue)"
    }

    /// `123.4`: one decimal, rounded half away from zero. (`String(format:)` costs microseconds a
    /// call through Foundation's formatter; a year of progress formats hundreds of numbers.)
    public static func oneDecimal(_ value: Double) -> String {
        guard value.isFinite else { return "–" }
        let tenths = (abs(value) * 10).rounded()
        guard tenths < 1e15 else { return String(Int(value.rounded())) }
        let whole = Int(tenths) / 10
        let fraction = Int(tenths) % 10
        return (value < 0 && tenths > 0 ? "-" : "") + "\(whole).\(fraction)"
    }

    public func estimateValue(_ kilograms: Double) -> Double {
        unit == .kg ? kilograms : kilograms / Mass.kilogramsPerPound.doubleValue
    }

    /// `1 h 05 min`, `45 min`.
    public func duration(_ seconds: Int) -> String {
        let minutes = (seconds + 30) / 60
        return minutes >= 60 ? "\(minutes / 60) h \(Self.twoDigits(minutes % 60)) min" : "\(minutes) min"
    }

    /// A set's time and distance: `1:05`, `500 m`, `500 m in 1:35`, `5.2 km in 26:10`, `1:02:00`;
    /// empty when it has neither.
    public func timedWork(seconds: Int?, meters: Int?) -> String {
        let time = seconds.map { seconds in
            let clock = "\(seconds / 60 % 60):\(Self.twoDigits(seconds % 60))"
            return seconds >= 3600
                ? "\(seconds / 3600):\(Self.twoDigits(seconds / 60 % 60)):\(Self.twoDigits(seconds % 60))" : clock
        }
        let distance = meters.map { meters in
            meters >= 1000 && meters % 100 == 0 ? "\(Decimal(meters) / 1000) km" : "\(meters) m"
        }
        switch (distance, time) {
        case (let distance?, let time?): return "\(distance) in \(time)"
        default: return distance ?? time ?? ""
        }
    }

    /// `today`, `yesterday`, `3 days ago`, or the date.
    public func relative(_ date: Date, now: Date) -> String {
        let days =
            calendar.dateComponents([.day], from: calendar.startOfDay(for: date), to: calendar.startOfDay(for: now))
            .day ?? 0
        switch days {
        case 0: return "today"
        case 1: return "yesterday"
        case 2..<14: return "\(days) days ago"
        default: return day(date)
        }
    }
}
