import Foundation
import SpotterCore

/// Dates, weights and durations as a signed-in viewer reads them: in their time zone and unit.
struct Format: Sendable {
    let timeZone: TimeZone
    let unit: WeightUnit
    private let calendar: Calendar

    init(_ profile: Profile) {
        timeZone = TimeZone(identifier: profile.timeZone) ?? .gmt
        unit = profile.unit
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    /// `Mon 23 Nov 2026`.
    func day(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
        return "\(Self.weekdays[(parts.weekday ?? 1) - 1]) \(parts.day ?? 0) \(Self.months[(parts.month ?? 1) - 1]) "
            + "\(parts.year ?? 0)"
    }

    /// `Mon 23 Nov 2026, 18:05`.
    func moment(_ date: Date) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return day(date) + ", " + Self.twoDigits(parts.hour ?? 0) + ":" + Self.twoDigits(parts.minute ?? 0)
    }

    // Dates are written out here, not by DateFormatter: creating one costs about 100 µs (ICU), and
    // a page of 200 clients showed that in its profile. The names are English, as the pages are.
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }

    /// The start of the local day `text` (`YYYY-MM-DD`), or of the day after it (`end`). The text is
    /// read as the API reads a date (`ProgramSchedule.date`: midnight UTC of that date); the day
    /// starts here in the viewer's time zone.
    func date(_ text: String, end: Bool = false) -> Date? {
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

    /// `102.5 kg`; bodyweight sets say so.
    func weight(_ mass: Mass?) -> String {
        guard let mass else { return "bodyweight" }
        return "\(mass.value(in: unit)) \(unit.rawValue)"
    }

    /// A weight in the viewer's unit, for charts.
    func value(_ mass: Mass) -> Double { mass.value(in: unit).doubleValue }

    /// An estimate given in kilograms, in the viewer's unit.
    func estimate(_ kilograms: Double) -> String {
        let value = unit == .kg ? kilograms : kilograms / Mass.kilogramsPerPound.doubleValue
        return "\(Self.oneDecimal(value)) \(unit.rawValue)"
    }

    /// `123.4`: one decimal, rounded half away from zero. (`String(format:)` costs microseconds a
    /// call through Foundation's formatter; a year of progress formats hundreds of numbers.)
    static func oneDecimal(_ value: Double) -> String {
        guard value.isFinite else { return "–" }
        let tenths = (abs(value) * 10).rounded()
        guard tenths < 1e15 else { return String(Int(value.rounded())) }
        let whole = Int(tenths) / 10
        let fraction = Int(tenths) % 10
        return (value < 0 && tenths > 0 ? "-" : "") + "\(whole).\(fraction)"
    }

    func estimateValue(_ kilograms: Double) -> Double {
        unit == .kg ? kilograms : kilograms / Mass.kilogramsPerPound.doubleValue
    }

    /// `1 h 05 min`, `45 min`.
    func duration(_ seconds: Int) -> String {
        let minutes = (seconds + 30) / 60
        return minutes >= 60 ? "\(minutes / 60) h \(Self.twoDigits(minutes % 60)) min" : "\(minutes) min"
    }

    /// `today`, `yesterday`, `3 days ago`, or the date.
    func relative(_ date: Date, now: Date) -> String {
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

    /// What a scope shares, for "… has not shared … with you".
    static func shared(_ scope: Scope) -> String {
        switch scope {
        case .history: "their workout history"
        case .details: "the details of their workouts"
        case .progress: "their progress"
        case .body: "their body measurements"
        }
    }

    /// A scope's name and what it lets a coach see.
    static func scopeLabel(_ scope: Scope) -> (label: String, hint: String) {
        switch scope {
        case .history: ("History", "workout names, dates and durations")
        case .details: ("Details", "every set, rep, weight, RPE and note; needed to comment")
        case .progress: ("Progress", "estimated maxes, records and statistics")
        case .body: ("Body", "body weight and measurements")
        }
    }

    static func scopes(_ scopes: Set<Scope>) -> String {
        scopes.isEmpty ? "nothing" : scopes.sorted().map(\.rawValue).joined(separator: ", ")
    }
}
