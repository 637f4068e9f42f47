import Foundation

/// Consecutive training weeks: ISO weeks, Monday 00:00 to Monday 00:00 in the lifter's time zone,
/// with at least one workout. The current streak is the run that ends this week, or last week
/// while this week has no workout yet (a streak is only broken once a whole week passes without
/// one); the longest is the longest run in all of history.
public struct WeeklyStreak: Sendable, Equatable {
    /// Weeks in the current run; 0 when neither this week nor last week had a workout.
    public var current: Int
    public var longest: Int
    /// The Monday the current run began, as days since 1970-01-01; `nil` when there is none.
    public var currentSinceDay: Int?
    /// The Monday of the last week with a workout, as days since 1970-01-01; `nil` without any.
    public var lastWeekDay: Int?

    public init(current: Int, longest: Int, currentSinceDay: Int?, lastWeekDay: Int?) {
        self.current = current
        self.longest = longest
        self.currentSinceDay = currentSinceDay
        self.lastWeekDay = lastWeekDay
    }

    /// With the Mondays as `YYYY-MM-DD`.
    public init(current: Int, longest: Int, currentSince: String?, lastWeek: String?) {
        self.init(
            current: current, longest: longest, currentSinceDay: currentSince.flatMap(Self.day),
            lastWeekDay: lastWeek.flatMap(Self.day))
    }

    /// `YYYY-MM-DD`.
    public var currentSince: String? { currentSinceDay.map(Self.text) }
    public var lastWeek: String? { lastWeekDay.map(Self.text) }

    public static let none = WeeklyStreak(current: 0, longest: 0, currentSinceDay: nil, lastWeekDay: nil)

    /// How far back the coach's client list looks for a client's current streak: a longer one
    /// shows as this many weeks and more.
    public static let clientListWeeks = 104

    /// The streaks of `weeks` (their Mondays as days since 1970-01-01, any order, repeats allowed)
    /// as of the week whose Monday is `thisWeek`. Weeks are day numbers 7 apart, so a week with a
    /// change of clocks or a year's week 53 is just another week.
    public static func of(weeks: [Int], thisWeek: Int) -> WeeklyStreak {
        let days = Set(weeks).sorted()
        guard let last = days.last else { return .none }
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
        let alive = last == thisWeek || last == thisWeek - 7
        return WeeklyStreak(
            current: alive ? run : 0, longest: longest, currentSinceDay: alive ? runStart : nil, lastWeekDay: last)
    }

    /// The Monday of the ISO week holding `instant` in `timeZone`, as days since 1970-01-01.
    public static func monday(of instant: Date, timeZone: TimeZone) -> Int {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = timeZone
        let start = calendar.dateInterval(of: .weekOfYear, for: instant)?.start ?? instant
        let parts = calendar.dateComponents([.year, .month, .day], from: start)
        let midnight = utc.date(from: parts) ?? start
        return Int((midnight.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// `YYYY-MM-DD` of a day number.
    public static func text(_ day: Int) -> String { CivilDate(day: day).text }

    /// The day number of `YYYY-MM-DD`; `nil` for other text.
    public static func day(_ text: String) -> Int? { CivilDate.dayNumber(text) }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()
}

/// What GetStatistics answers: the periods' totals and the weekly streak.
public struct Statistics: Sendable, Equatable {
    public var buckets: [StatisticsBucket]
    public var streak: WeeklyStreak
    /// The tier that would add the buckets' muscle groups and categories, left out for the reader's
    /// tier; `nil` when they are in.
    public var breakdownsLocked: Tier?

    public init(buckets: [StatisticsBucket], streak: WeeklyStreak, breakdownsLocked: Tier? = nil) {
        self.buckets = buckets
        self.streak = streak
        self.breakdownsLocked = breakdownsLocked
    }
}
