import Foundation
import SpotterCore
import Testing

@Suite("Weekly streak")
struct WeeklyStreakTests {
    @Test("runs of consecutive Mondays: the current run ends this week or last week, the longest anywhere")
    func runs() {
        func days(_ texts: [String]) -> [Int] { texts.compactMap(WeeklyStreak.day) }
        func day(_ text: String) -> Int { WeeklyStreak.day(text)! }
        let weeks = days(["2026-10-05", "2026-10-12", "2026-10-19", "2026-11-02", "2026-11-09", "2026-11-16"])
        #expect(
            WeeklyStreak.of(weeks: weeks, thisWeek: day("2026-11-16"))
                == WeeklyStreak(current: 3, longest: 3, currentSince: "2026-11-02", lastWeek: "2026-11-16"))
        // A week without a workout yet does not break the run until it has passed.
        #expect(WeeklyStreak.of(weeks: weeks, thisWeek: day("2026-11-23")).current == 3)
        #expect(WeeklyStreak.of(weeks: weeks, thisWeek: day("2026-11-30")).current == 0)
        #expect(WeeklyStreak.of(weeks: weeks, thisWeek: day("2026-11-30")).longest == 3)
        #expect(WeeklyStreak.of(weeks: [], thisWeek: day("2026-11-30")) == .none)
        // Across a year boundary and ISO week 53 (2026-12-28 is week 53 of 2026).
        #expect(
            WeeklyStreak.of(
                weeks: days(["2026-12-21", "2026-12-28", "2027-01-04", "2027-01-04"]), thisWeek: day("2027-01-04"))
                == WeeklyStreak(current: 3, longest: 3, currentSince: "2026-12-21", lastWeek: "2027-01-04"))
    }

    @Test("the Monday of an instant's ISO week in the lifter's zone, around DST and year ends")
    func mondays() {
        func instant(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        // Sunday 23:30 in Berlin after the clocks went back is still Sunday locally.
        func monday(_ text: String, _ zone: TimeZone) -> String {
            WeeklyStreak.text(WeeklyStreak.monday(of: instant(text), timeZone: zone))
        }
        #expect(monday("2026-10-25T22:30:00Z", berlin) == "2026-10-19")
        #expect(monday("2026-10-25T23:30:00Z", berlin) == "2026-10-26")
        let auckland = TimeZone(identifier: "Pacific/Auckland")!
        #expect(monday("2027-01-03T11:30:00Z", auckland) == "2027-01-04")
        #expect(monday("2021-01-03T12:00:00Z", .gmt) == "2020-12-28")
        #expect(WeeklyStreak.day("2026-13-01") == nil)
        #expect(WeeklyStreak.text(WeeklyStreak.day("1999-12-27")!) == "1999-12-27")
    }
}
