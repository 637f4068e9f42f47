import Foundation

/// Consecutive training weeks: ISO weeks, Monday 00:00 to Monday 00:00 in the lifter's time zone,
/// with at least one workout. The current streak is the run that ends this week, or last week
/// while this week has no workout yet (a streak is only broken once a whole week passes without
/// one); the longest is the longest run in all of history.
public struct WeeklyStreak: Sendable, Equatable {
    /// Weeks in the current run; 0 when neither this week nor last week had a workout.
    public var current: Int
    public var longest: Int
    /// The Monday (`YYYY-MM-DD`) the current run began; `nil` when there is none.
    public var currentSince: String?
    /// The Monday of the last week with a workout; `nil` without any.
    public var lastWeek: String?

    public init(current: Int, longest: Int, currentSince: String?, lastWeek: String?) {
        self.current = current
        self.longest = longest
        self.currentSince = currentSince
        self.lastWeek = lastWeek
    }

    public static let none = WeeklyStreak(current: 0, longest: 0, currentSince: nil, lastWeek: nil)

    /// How far back the coach's client list looks for a client's current streak: a longer one
    /// shows as this many weeks and more.
    public static let clientListWeeks = 104

    /// The streaks of `weeks` (the Mondays, `YYYY-MM-DD`, of the weeks with a workout, any order)
    /// as of the week whose Monday is `thisWeek`. Dates are compared as day numbers, so a week
    /// with a change of clocks or a year's week 53 is just another 7 days.
    public static func of(weeks: [String], thisWeek: String) -> WeeklyStreak {
        let days = Set(weeks.compactMap(dayNumber)).sorted()
        guard let last = days.last, let today = dayNumber(thisWeek) else { return .none }
        var longest = 1
        var run = 1
        var runStart = days[0]
        for (previous, day) in zip(days, days.dropFirst()) {
            if day - previous == 7 {
                run += 1
            } else {
                run = 1
                runStart = day
            }
            longest = max(longest, run)
        }
        let alive = last == today || last == today - 7
        return WeeklyStreak(
            current: alive ? run : 0, longest: longest, currentSince: alive ? date(runStart) : nil,
            lastWeek: date(last))
    }

    /// The Monday of the ISO week holding `instant` in `timeZone`, `YYYY-MM-DD`.
    public static func monday(of instant: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = timeZone
        let start = calendar.dateInterval(of: .weekOfYear, for: instant)?.start ?? instant
        let parts = calendar.dateComponents([.year, .month, .day], from: start)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    /// Days since 1970-01-01 of a `YYYY-MM-DD` date (proleptic Gregorian).
    static func dayNumber(_ text: String) -> Int? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...9999).contains(parts[0]), (1...12).contains(parts[1]), (1...31).contains(parts[2])
        else { return nil }
        // Howard Hinnant's days_from_civil.
        let (y, m, d) = (parts[1] <= 2 ? parts[0] - 1 : parts[0], parts[1], parts[2])
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func date(_ dayNumber: Int) -> String {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let d = dayOfYear - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yearOfEra + era * 400 + (m <= 2 ? 1 : 0)
        // Written out rather than with String(format:): the client list does this per client.
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(y, 4))-\(padded(m, 2))-\(padded(d, 2))"
    }
}

/// What GetStatistics answers: the periods' totals and the weekly streak.
public struct Statistics: Sendable, Equatable {
    public var buckets: [StatisticsBucket]
    public var streak: WeeklyStreak

    public init(buckets: [StatisticsBucket], streak: WeeklyStreak) {
        self.buckets = buckets
        self.streak = streak
    }
}
