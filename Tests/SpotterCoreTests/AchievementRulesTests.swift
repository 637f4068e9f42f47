import Foundation
import SpotterTestSupport
import Testing

@testable import SpotterCore

@Suite("Achievement rules")
struct AchievementRulesTests {
    static let zones = [
        "UTC", "America/New_York", "Europe/Berlin", "Australia/Sydney", "Pacific/Kiritimati", "Pacific/Pago_Pago",
        "Asia/Kolkata",
    ]

    @Test("random histories in seven zones earn what a Calendar reading of the rules earns")
    func randomHistories() {
        var generator = SeededGenerator(seed: 0x5EED_AC41_2026)
        let histories = 140
        var failures: [String] = []
        var earnedKeys: [String: Int] = [:]
        var week53 = 0
        for index in 0..<histories {
            let lifter = Lifter(Self.zones[index % Self.zones.count])
            let history = RandomHistory(lifter, using: &generator)
            let facts = lifter.facts(
                history.logged, firstRecord: history.firstRecord, birthday: history.birthday,
                challenges: history.challenges, today: lifter.day(of: RandomHistory.now))
            let expected = Reference(lifter.calendar).awards(
                history.logged, firstRecord: history.firstRecord, birthday: history.birthday,
                challenges: history.challenges)
            let actual = AchievementRules.awards(facts.facts)
            if actual != expected {
                failures.append(
                    "history \(index) in \(lifter.zone), birthday \(history.birthday ?? "none"): "
                        + difference(actual, expected, facts, lifter))
            }
            for key in Set(actual.map { $0.key.hasPrefix("challenge:") ? "challenge" : $0.key }) {
                earnedKeys[key, default: 0] += 1
            }
            if history.logged.contains(where: { lifter.calendar.component(.weekOfYear, from: $0.startedAt) == 53 }) {
                week53 += 1
            }
            for entry in AchievementRules.evaluate(facts.facts) {
                let consistent =
                    entry.earned == nil
                    ? (0...entry.target).contains(entry.progress) && entry.progressText != "Earned"
                    : entry.progress == entry.target && entry.progressText == "Earned"
                if !consistent { failures.append("history \(index): \(entry.key) shows \(entry.progressText)") }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) differences; the first: \(failures.prefix(3))")
        // The histories are worth something only if they reach every rule, and miss each now and then.
        let keys =
            [1, 5, 10, 25, 50, 100, 250, 500].map { "milestone:\($0)" } + [3, 5, 10, 26, 52].map { "streak:\($0)" }
            + [3, 4, 5, 7].map { "frequency:\($0)" }
            + ["night_owl", "early_bird", "birthday", "new_pr", "anniversary"].map { "trophy:\($0)" } + ["challenge"]
        for key in keys {
            #expect((1..<histories).contains(earnedKeys[key] ?? 0), "\(key) earned in \(earnedKeys[key] ?? 0)")
        }
        #expect(week53 >= 10)
    }

    @Test("a streak runs on from ISO week 53 into week 1, earned by the first workout of its Nth week")
    func streakAcrossWeek53() {
        let berlin = Lifter("Europe/Berlin")
        #expect(berlin.calendar.component(.weekOfYear, from: berlin.instant("2020-12-31 19:00")) == 53)
        let facts = berlin.facts(
            [
                "2020-12-14 18:00", "2020-12-20 10:00",  // week 51
                "2020-12-22 07:00",  // week 52
                "2020-12-31 19:00", "2021-01-03 23:59",  // week 53
                "2021-01-04 00:00",  // week 1 of 2021
                "2021-01-13 12:00", "2021-01-14 12:00",  // week 2
            ], today: "2021-01-14")
        #expect(earners(facts)["streak:3"] == 3)
        #expect(earners(facts)["streak:5"] == 6)
        #expect(earners(facts)["streak:10"] == nil)
        #expect(entry("streak:10", facts).progressText == "5 weeks in a row now")
        #expect(entry("streak:10", facts).progress == 5)

        // UTC+14: local Monday 00:30 is still Sunday in UTC, so UTC weeks would be a day behind.
        let kiritimati = Lifter("Pacific/Kiritimati")
        #expect(kiritimati.calendar.component(.weekOfYear, from: kiritimati.instant("2026-12-28 00:30")) == 53)
        let late = kiritimati.facts(
            ["2026-12-14 00:30", "2026-12-21 00:30", "2026-12-28 00:30", "2027-01-04 00:30", "2027-01-11 00:30"],
            today: "2027-01-11")
        #expect(earners(late)["streak:3"] == 2)
        #expect(earners(late)["streak:5"] == 4)
        #expect(earners(late)["trophy:night_owl"] == 0)
    }

    @Test("a week of seven workouts earns 3x, 4x, 5x and 7x by its 3rd, 4th, 5th and 7th workout")
    func weeklyFrequency() {
        let kolkata = Lifter("Asia/Kolkata")
        let facts = kolkata.facts(
            [
                "2025-12-22 10:00", "2025-12-24 10:00",
                // ISO week 1 of 2026, from Monday 29 December.
                "2025-12-29 06:00", "2025-12-30 06:00", "2025-12-30 20:00", "2025-12-31 23:59", "2026-01-01 00:00",
                "2026-01-03 10:00", "2026-01-04 23:59",
                "2026-01-05 00:00",
            ], today: "2026-01-05")
        let earned = earners(facts)
        #expect(earned["frequency:3"] == 4)
        #expect(earned["frequency:4"] == 5)
        #expect(earned["frequency:5"] == 6)
        #expect(earned["frequency:7"] == 8)
        #expect(earned["trophy:early_bird"] == 2)
        #expect(earned["trophy:night_owl"] == 5)
        #expect(entry("streak:5", facts).progressText == "3 weeks in a row now")

        // Each count is earned in the first week that reaches it, not the busiest.
        let utc = Lifter("UTC")
        let spread = utc.facts(
            [
                "2026-05-04 08:00", "2026-05-05 08:00", "2026-05-06 08:00", "2026-05-07 08:00", "2026-05-08 08:00",
                "2026-05-11 08:00", "2026-05-12 08:00", "2026-05-13 08:00", "2026-05-14 08:00", "2026-05-15 08:00",
                "2026-05-16 08:00",
                "2026-05-18 08:00", "2026-05-18 09:00", "2026-05-19 08:00", "2026-05-20 08:00", "2026-05-21 08:00",
                "2026-05-22 08:00", "2026-05-24 23:59",
            ], today: "2026-05-25")
        #expect(earners(spread)["frequency:3"] == 2)
        #expect(earners(spread)["frequency:5"] == 4)
        #expect(earners(spread)["frequency:7"] == 17)
        #expect(
            entry("frequency:7", utc.facts(Array(spread.workouts.prefix(11)), today: "2026-05-16")).progressText
                == "6 of 7 workouts this week")
    }

    @Test("a week of 5,000 workouts (a load test's lifter) folds into one week's count")
    func crowdedWeek() {
        let utc = Lifter("UTC")
        let monday = utc.instant("2026-05-04 00:00")
        let facts = utc.facts((0..<5_000).map { monday.addingTimeInterval(Double($0) * 60) }, today: "2026-05-07")
        let fold = facts.facts.tally.folded
        #expect(fold.weeks == [.init(monday: AchievementRules.monday(utc.day(of: monday)), workouts: 5_000)])
        #expect(fold.milestones.count == AchievementRules.milestones.count)
        #expect(fold.streaks.allSatisfy { $0 == nil })
        let earned = earners(facts)
        #expect(earned["frequency:3"] == 2)
        #expect(earned["frequency:7"] == 6)
        #expect(earned["milestone:500"] == 499)
    }

    @Test("workouts started at one instant fold the same in any order: by id, as the database sorts them")
    func tiesInAnyOrder() {
        var generator = SeededGenerator(seed: 0x7135_2026)
        let utc = Lifter("UTC")
        let monday = utc.instant("2026-05-04 06:30")
        let may = challenge(.workouts, 4, "2026-05-01", "2026-05-31", number: 5)
        for round in 0..<40 {
            // 24 workouts at 6 instants a day apart, 1 to 7 at each.
            var workouts: [ActivityWorkout] = []
            for day in 0..<6 {
                let start = monday.addingTimeInterval(Double(day) * 86_400)
                for _ in 0..<Int.random(in: 1...7, using: &generator) {
                    let logged = Logged(id: WorkoutID(rawValue: generator.uuid()), startedAt: start, seconds: 600)
                    workouts.append(utc.workout(logged))
                }
            }
            let inOrder = workouts.sorted { ($0.startedAt, $0.id.description) < ($1.startedAt, $1.id.description) }
            let expected = ActivityTally(inOrder, birthday: "05-05", challenges: [may])
            var shuffled = ActivityTally(birthday: "05-05", challenges: [may])
            for workout in workouts { shuffled.add(workout) }
            #expect(shuffled == expected, "round \(round)")
            #expect(shuffled.first == inOrder.first && shuffled.last == inOrder.last, "round \(round)")
            let today = utc.day(of: monday) + 6
            #expect(
                AchievementRules.awards(ActivityFacts(tally: shuffled, today: today))
                    == AchievementRules.awards(ActivityFacts(tally: expected, today: today)))
        }
    }

    @Test("a week without a workout starts the run again, and the current run survives only the week after")
    func gapWeek() {
        let pagoPago = Lifter("Pacific/Pago_Pago")
        let times = [
            "2026-01-05 20:00",  // week 2
            "2026-01-18 23:59",  // week 3, Sunday night (Monday in UTC)
            // week 4 has none
            "2026-01-26 00:00", "2026-01-30 12:00",  // week 5
            "2026-02-08 22:00",  // week 6
            "2026-02-09 06:00",  // week 7
        ]
        let facts = pagoPago.facts(times, today: "2026-02-10")
        #expect(earners(facts)["streak:3"] == 5)
        #expect(entry("streak:5", facts).progressText == "3 weeks in a row now")
        #expect(entry("streak:5", pagoPago.facts(times, today: "2026-02-16")).progress == 3)
        #expect(entry("streak:5", pagoPago.facts(times, today: "2026-02-23")).progressText == "0 weeks in a row now")
        #expect(earners(pagoPago.facts(Array(times.prefix(5)), today: "2026-02-10"))["streak:3"] == nil)
    }

    @Test("Sunday 23:30 and Monday 00:10 local are different weeks even where UTC puts them in one day")
    func sundayNightAndMondayMorning() {
        // New York's clocks go forward on Sunday 8 March 2026; Sydney's on Sunday 4 October 2026.
        for (zone, times) in [
            ("America/New_York", ["2026-02-23 18:00", "2026-03-08 23:30", "2026-03-09 00:10"]),
            ("Australia/Sydney", ["2026-09-22 07:30", "2026-10-04 23:30", "2026-10-05 00:10"]),
        ] {
            let lifter = Lifter(zone)
            let facts = lifter.facts(times, today: String(times[2].prefix(10)))
            #expect(lifter.day(of: facts.workouts[2].startedAt) - lifter.day(of: facts.workouts[1].startedAt) == 1)
            #expect(earners(facts)["streak:3"] == 2, "\(zone)")
            #expect(earners(facts)["frequency:3"] == nil, "\(zone)")
            #expect(earners(facts)["trophy:night_owl"] == 1, "\(zone)")
            // Read in UTC, the same instants give two weeks that do not follow each other, or one week of two.
            let utc = Lifter("UTC")
            let inUTC = utc.facts(facts.workouts.map(\.startedAt), today: String(times[2].prefix(10)))
            #expect(earners(inUTC)["streak:3"] == nil, "\(zone)")
        }
    }

    @Test("a 29 February birthday counts on 28 February only in years without a 29th")
    func leapBirthday() {
        let berlin = Lifter("Europe/Berlin")
        func birthday(_ times: [String], _ day: String?, _ lifter: Lifter = berlin) -> Int? {
            earners(lifter.facts(times, birthday: day, today: "2026-01-01"))["trophy:birthday"]
        }
        #expect(birthday(["2023-02-27 10:00", "2023-02-28 10:00"], "02-29") == 1)
        #expect(birthday(["2024-02-28 10:00", "2024-03-01 10:00"], "02-29") == nil)
        #expect(birthday(["2024-02-28 10:00", "2024-02-29 10:00"], "02-29") == 1)
        #expect(birthday(["2024-02-29 10:00", "2025-03-01 10:00"], "02-28") == nil)
        #expect(birthday(["2024-02-29 10:00", "2025-03-01 10:00"], "03-01") == 1)
        #expect(birthday(["2025-07-14 10:00", "2025-07-15 23:30"], "07-15") == 1)
        #expect(birthday(["2025-07-15 10:00"], "02-30") == nil)
        #expect(birthday(["2025-07-15 10:00"], nil) == nil)
        // The local date counts: 20:00 on 28 February in Pago Pago is 1 March in UTC, and 08:00 on 1 March in
        // Kiritimati is still 28 February there.
        #expect(birthday(["2025-02-28 20:00"], "02-29", Lifter("Pacific/Pago_Pago")) == 0)
        #expect(birthday(["2025-03-01 08:00"], "02-29", Lifter("Pacific/Kiritimati")) == nil)
        let facts = berlin.facts(["2025-07-15 10:00"], birthday: nil, today: "2026-01-01")
        #expect(entry("trophy:birthday", facts).progressText == "Add your birthday to your profile")
    }

    @Test("the anniversary is the first workout on or after the same local date a year later; 29 February's is 28")
    func anniversary() {
        let berlin = Lifter("Europe/Berlin")
        func anniversary(_ times: [String], _ lifter: Lifter = berlin) -> Int? {
            earners(lifter.facts(times, today: "2027-01-01"))["trophy:anniversary"]
        }
        #expect(anniversary(["2024-02-29 10:00", "2025-02-27 23:59"]) == nil)
        #expect(anniversary(["2024-02-29 10:00", "2025-02-27 23:59", "2025-02-28 00:00"]) == 2)
        #expect(anniversary(["2023-02-28 10:00", "2024-02-27 10:00", "2024-02-28 10:00"]) == 2)
        #expect(anniversary(["2023-03-10 10:00", "2024-03-09 10:00", "2024-03-12 10:00", "2024-03-13 10:00"]) == 2)
        // 23:30 on New Year's Eve in New York is already 1 January in UTC.
        let newYork = Lifter("America/New_York")
        #expect(anniversary(["2023-12-31 23:30", "2024-12-31 08:00"], newYork) == 1)
        let waiting = berlin.facts(["2024-02-29 10:00"], today: "2024-03-10")
        #expect(entry("trophy:anniversary", waiting).progressText == "10 of 365 days since your first workout")
        #expect(entry("trophy:anniversary", waiting).target == 365)
        #expect(
            entry("trophy:anniversary", berlin.facts([String](), today: "2024-03-10")).progressText
                == "Starts with your first workout")
    }

    @Test("an active-minutes challenge is earned by the workout whose minutes within its local dates reach the target")
    func challenges() {
        let kiritimati = Lifter("Pacific/Kiritimati")
        let minutes = challenge(.activeMinutes, 120, "2026-03-01", "2026-03-31", number: 1)
        let count = challenge(.workouts, 2, "2026-03-01", "2026-03-31", number: 2)
        let any = challenge(.anyWorkout, 1, "2026-03-01", "2026-03-31", number: 3)
        func facts(last seconds: Int, today: String) -> Folded {
            kiritimati.facts(
                [
                    ("2026-02-28 23:50", 3600),  // the day before
                    ("2026-03-01 00:10", 2700),  // 45 minutes, on 28 February in UTC
                    ("2026-03-15 12:00", 3600),  // 105
                    ("2026-03-31 23:50", seconds),
                    ("2026-04-01 00:05", 3600),  // the day after
                ], challenges: [minutes, count, any], today: today)
        }
        let short = facts(last: 899, today: "2026-03-31")
        #expect(earners(short)[minutes.key] == nil)
        #expect(earners(short)[count.key] == 2)
        #expect(earners(short)[any.key] == 1)
        #expect(entry(minutes.key, short).progressText == "119 of 120 minutes by 2026-03-31")
        #expect(entry(minutes.key, short).progress == 119)
        #expect(entry(minutes.key, short).group == .challenge)
        #expect(entry(minutes.key, short).challenge == minutes)
        // Once over, a challenge not earned leaves the list; an earned one stays.
        #expect(
            !AchievementRules.evaluate(facts(last: 899, today: "2026-04-01").facts).contains { $0.key == minutes.key })
        let enough = facts(last: 900, today: "2026-04-01")
        #expect(earners(enough)[minutes.key] == 3)
        #expect(entry(minutes.key, enough).progressText == "Earned")
        #expect(
            AchievementRules.awards(enough.facts).first { $0.key == minutes.key }
                == Award(key: minutes.key, earnedAt: enough.workouts[3].startedAt, workoutID: enough.workouts[3].id))
        #expect(entry(minutes.key, facts(last: 899, today: "2026-02-28")).progressText == "Starts 2026-03-01")
    }

    @Test("locked entries say how far along they are: milestones, streaks, weekly frequency, trophies, challenges")
    func lockedEntries() {
        let utc = Lifter("UTC")
        let march = challenge(.workouts, 3, "2026-03-10", "2026-03-31", number: 4)
        let facts = utc.facts(
            [
                "2026-02-16 10:00", "2026-02-18 10:00", "2026-02-19 10:00",
                "2026-03-02 10:00", "2026-03-03 10:00",
                "2026-03-09 10:00", "2026-03-10 10:00",
            ], challenges: [march], today: "2026-03-11")
        let list = AchievementRules.evaluate(facts.facts)
        #expect(
            list.map(\.key)
                == [
                    "milestone:1", "milestone:5", "milestone:10", "milestone:25", "milestone:50", "milestone:100",
                    "milestone:250", "milestone:500", "streak:3", "streak:5", "streak:10", "streak:26", "streak:52",
                    "frequency:3", "frequency:4", "frequency:5", "frequency:7", "trophy:night_owl", "trophy:early_bird",
                    "trophy:birthday", "trophy:new_pr", "trophy:anniversary", march.key,
                ])
        #expect(
            list.map(\.group)
                == [AchievementGroup](repeating: .milestone, count: 8) + Array(repeating: .streak, count: 5)
                + Array(repeating: .frequency, count: 4) + Array(repeating: .trophy, count: 5) + [.challenge])
        func shown(_ key: String) -> String { entry(key, facts).progressText }
        #expect(shown("milestone:5") == "Earned")
        #expect(entry("milestone:5", facts).progress == 5)
        #expect(shown("milestone:10") == "7 of 10 workouts")
        #expect(entry("milestone:10", facts).progress == 7)
        #expect(entry("milestone:10", facts).target == 10)
        #expect(entry("milestone:10", facts).title == "10 Workouts")
        #expect(shown("milestone:500") == "7 of 500 workouts")
        #expect(shown("streak:3") == "2 weeks in a row now")
        #expect(entry("streak:3", facts).progress == 2)
        #expect(shown("frequency:3") == "Earned")
        #expect(shown("frequency:4") == "2 of 4 workouts this week")
        #expect(shown("trophy:night_owl") == "Not yet")
        #expect(entry("trophy:night_owl", facts).target == 1)
        #expect(shown("trophy:birthday") == "Add your birthday to your profile")
        #expect(shown("trophy:anniversary") == "23 of 365 days since your first workout")
        #expect(shown(march.key) == "1 of 3 workouts by 2026-03-31")

        let none = utc.facts([String](), today: "2026-03-11")
        #expect(entry("milestone:1", none).progressText == "0 of 1 workouts")
        #expect(entry("streak:3", none).progressText == "0 weeks in a row now")
        #expect(AchievementRules.awards(none.facts).isEmpty)
    }

    @Test("CivilDate and its day number agree with Calendar on every day from 1900 to 2100")
    func civilDates() {
        var mismatches: [String] = []
        var instant = utcCalendar.date(from: DateComponents(year: 1900, month: 1, day: 1))!
        var number = dayNumber(LocalDate(year: 1900, month: 1, day: 1))
        #expect(number == -25_567)
        while true {
            let parts = utcCalendar.dateComponents([.year, .month, .day], from: instant)
            if parts.year! > 2100 { break }
            let expected = CivilDate(year: parts.year!, month: parts.month!, day: parts.day!)
            if CivilDate(day: number) != expected || expected.dayNumber != number {
                mismatches.append("\(number): \(parts) vs \(CivilDate(day: number)), \(expected.dayNumber)")
            }
            instant += 86_400
            number += 1
        }
        #expect(number == dayNumber(LocalDate(year: 2101, month: 1, day: 1)))
        #expect(mismatches.isEmpty, "\(mismatches.count) days differ, such as \(mismatches.prefix(3))")
        #expect(CivilDate.dayNumber("2000-02-29") == 11_016)
        #expect(CivilDate.dayNumber("2100-02-29") == nil)
        #expect(CivilDate.dayNumber("2026-1-05") == nil)
    }
}

// MARK: Helpers

extension SeededGenerator {
    mutating func uuid() -> UUID {
        var bytes = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!.uuid
        let (high, low) = (next(), next())
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: high, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
        }
        return UUID(uuid: bytes)
    }
}

private let utcCalendar: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
}()

private let epoch = Date(timeIntervalSince1970: 0)

/// A date on the wall calendar, ordered as dates are.
private struct LocalDate: Comparable, CustomStringConvertible {
    var year: Int
    var month: Int
    var day: Int

    init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// `YYYY-MM-DD`.
    init(_ text: some StringProtocol) {
        let parts = text.split(separator: "-").map { Int($0)! }
        self.init(year: parts[0], month: parts[1], day: parts[2])
    }

    static func < (a: LocalDate, b: LocalDate) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }

    var description: String { "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))" }
}

private func padded(_ number: Int, _ width: Int) -> String {
    let digits = String(number)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

/// Days since 1970-01-01, counted by the Gregorian calendar in UTC.
private func dayNumber(_ date: LocalDate) -> Int {
    let midnight = utcCalendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day))!
    return Int((midnight.timeIntervalSince1970 / 86_400).rounded(.down))
}

/// Facts and the workouts they fold, oldest first, so a test names the workout that earned an
/// award by its place.
private struct Folded {
    var workouts: [ActivityWorkout]
    var facts: ActivityFacts
}

/// A workout as logged: its id, start and length.
private struct Logged {
    var id: WorkoutID
    var startedAt: Date
    var seconds: Int
}

/// A lifter in one time zone: makes instants from local wall-clock times and reads workouts as the
/// database does (local date and minute of the start), both with Foundation's ISO 8601 calendar.
private struct Lifter {
    var calendar: Calendar

    init(_ zone: String) {
        calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: zone)!
    }

    var zone: String { calendar.timeZone.identifier }

    /// The instant of a local time, `YYYY-MM-DD HH:MM`.
    func instant(_ text: String) -> Date {
        let date = LocalDate(text.prefix(10))
        let time = text.dropFirst(11).split(separator: ":").map { Int($0)! }
        return calendar.date(
            from: DateComponents(year: date.year, month: date.month, day: date.day, hour: time[0], minute: time[1]))!
    }

    func date(of instant: Date) -> LocalDate {
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return LocalDate(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    func day(of instant: Date) -> Int { dayNumber(date(of: instant)) }

    func workout(_ logged: Logged) -> ActivityWorkout {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: logged.startedAt)
        return ActivityWorkout(
            id: logged.id, startedAt: logged.startedAt, durationSeconds: logged.seconds,
            localDay: dayNumber(LocalDate(year: parts.year!, month: parts.month!, day: parts.day!)),
            localMinute: parts.hour! * 60 + parts.minute!)
    }

    /// The facts of these workouts in start order (then id, as the database sorts them).
    func facts(
        _ logged: [Logged], firstRecord: Logged? = nil, birthday: String? = nil, challenges: [Challenge] = [],
        today: Int
    ) -> Folded {
        let workouts = logged.map(workout)
        return Folded(
            workouts: workouts,
            facts: ActivityFacts(
                workouts: workouts, firstRecord: firstRecord.map(workout), birthday: birthday,
                challenges: challenges, today: today))
    }

    /// Workouts of an hour each at these local times; the nth one's id ends in n.
    func facts(
        _ times: [String], birthday: String? = nil, challenges: [Challenge] = [], today: String
    ) -> Folded {
        facts(times.map { ($0, 3600) }, birthday: birthday, challenges: challenges, today: today)
    }

    func facts(
        _ times: [(String, Int)], birthday: String? = nil, challenges: [Challenge] = [], today: String
    ) -> Folded {
        let logged = times.enumerated().map { number, time in
            Logged(id: workoutID(number), startedAt: instant(time.0), seconds: time.1)
        }
        return facts(
            logged.sorted { $0.startedAt < $1.startedAt }, birthday: birthday, challenges: challenges,
            today: dayNumber(LocalDate(today)))
    }

    func facts(_ starts: [Date], today: String) -> Folded {
        facts(
            starts.enumerated().map { Logged(id: workoutID($0), startedAt: $1, seconds: 3600) },
            today: dayNumber(LocalDate(today)))
    }

    func facts(_ workouts: [ActivityWorkout], today: String) -> Folded {
        facts(
            workouts.map { Logged(id: $0.id, startedAt: $0.startedAt, seconds: $0.durationSeconds) },
            today: dayNumber(LocalDate(today)))
    }

    /// The local time of an instant, `YYYY-MM-DD HH:MM`, for messages.
    func text(_ instant: Date) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: instant)
        return "\(date(of: instant)) \(padded(parts.hour!, 2)):\(padded(parts.minute!, 2))"
    }
}

private func workoutID(_ number: Int) -> WorkoutID {
    WorkoutID(rawValue: UUID(uuidString: "00000000-0000-4000-8000-\(padded(number, 12))")!)
}

private func challenge(_ rule: Challenge.Rule, _ target: Int, _ from: String, _ to: String, number: Int) -> Challenge {
    Challenge(
        id: UUID(uuidString: "00000000-0000-4000-8000-c\(padded(number, 11))")!, name: "Challenge \(number)",
        description: "", startsOn: from, endsOn: to, rule: rule, target: target,
        createdAt: Date(timeIntervalSince1970: 0), createdBy: "admin")
}

/// Which workout, by its place in the facts, earned each award.
private func earners(_ facts: Folded) -> [String: Int] {
    Dictionary(
        uniqueKeysWithValues: AchievementRules.awards(facts.facts).map { award in
            (award.key, facts.workouts.firstIndex { $0.id == award.workoutID && $0.startedAt == award.earnedAt } ?? -1)
        })
}

private func entry(_ key: String, _ facts: Folded) -> Achievement {
    AchievementRules.evaluate(facts.facts).first { $0.key == key }!
}

/// The awards that differ, each with the workout that earned it (its place and local start).
private func difference(_ actual: [Award], _ expected: [Award], _ facts: Folded, _ lifter: Lifter) -> String {
    func show(_ award: Award?) -> String {
        guard let award else { return "none" }
        let index = facts.workouts.firstIndex { $0.id == award.workoutID }.map(String.init) ?? "?"
        return "#\(index) \(lifter.text(award.earnedAt))"
    }
    var keys: [String] = []
    for award in expected + actual where !keys.contains(award.key) { keys.append(award.key) }
    let differing = keys.filter { key in actual.first { $0.key == key } != expected.first { $0.key == key } }
    let sameKeys = Set(actual.map(\.key)) == Set(expected.map(\.key))
    let order = sameKeys && actual.map(\.key) != expected.map(\.key) ? " (in the order \(actual.map(\.key)))" : ""
    return differing.map { key in
        "\(key) expected \(show(expected.first { $0.key == key })), got \(show(actual.first { $0.key == key }))"
    }.joined(separator: "; ") + order
}

/// The rules as the issue states them, read with Foundation's ISO 8601 calendar in the lifter's
/// zone rather than the day-number arithmetic of `AchievementRules`.
private struct Reference {
    var calendar: Calendar

    init(_ calendar: Calendar) { self.calendar = calendar }

    func awards(_ workouts: [Logged], firstRecord: Logged?, birthday: String?, challenges: [Challenge]) -> [Award] {
        var awards: [Award] = []
        func earn(_ key: String, _ workout: Logged?) {
            if let workout { awards.append(Award(key: key, earnedAt: workout.startedAt, workoutID: workout.id)) }
        }
        for n in [1, 5, 10, 25, 50, 100, 250, 500] where workouts.count >= n { earn("milestone:\(n)", workouts[n - 1]) }

        // Weeks from Monday 00:00 local, as the calendar delimits them.
        var weeks: [(start: Date, workouts: [Logged])] = []
        for workout in workouts {
            let start = calendar.dateInterval(of: .weekOfYear, for: workout.startedAt)!.start
            if weeks.last?.start == start {
                weeks[weeks.count - 1].workouts.append(workout)
            } else {
                weeks.append((start, [workout]))
            }
        }
        for n in [3, 5, 10, 26, 52] {
            var run = 0
            var previous: Date?
            for week in weeks {
                let follows = previous.map { calendar.date(byAdding: .weekOfYear, value: 1, to: $0) == week.start }
                run = follows == true ? run + 1 : 1
                previous = week.start
                if run == n {
                    earn("streak:\(n)", week.workouts[0])
                    break
                }
            }
        }
        for n in [3, 4, 5, 7] { earn("frequency:\(n)", weeks.first { $0.workouts.count >= n }?.workouts[n - 1]) }

        let hours = workouts.map { calendar.component(.hour, from: $0.startedAt) }
        earn("trophy:night_owl", zip(workouts, hours).first { $1 >= 21 || $1 < 4 }?.0)
        earn("trophy:early_bird", zip(workouts, hours).first { (4..<7).contains($1) }?.0)

        if let birthday, let wanted = validBirthday(birthday) {
            earn(
                "trophy:birthday",
                workouts.first { workout in
                    let parts = calendar.dateComponents([.month, .day], from: workout.startedAt)
                    if (parts.month!, parts.day!) == wanted { return true }
                    let february = calendar.range(of: .day, in: .month, for: workout.startedAt)!.count
                    return wanted == (2, 29) && (parts.month!, parts.day!) == (2, 28) && february == 28
                })
        }
        earn("trophy:new_pr", firstRecord)
        if let first = workouts.first {
            // Foundation keeps a year later within the month: 29 February 2024 + 1 year = 28 February 2025.
            let later = calendar.date(byAdding: .year, value: 1, to: calendar.startOfDay(for: first.startedAt))!
            let due = Lifter.date(of: later, calendar)
            earn("trophy:anniversary", workouts.first { Lifter.date(of: $0.startedAt, calendar) >= due })
        }

        for challenge in challenges {
            let range = LocalDate(challenge.startsOn)...LocalDate(challenge.endsOn)
            var reached = 0
            for workout in workouts where range.contains(Lifter.date(of: workout.startedAt, calendar)) {
                reached += challenge.rule == .activeMinutes ? workout.seconds : 1
                if reached >= (challenge.rule == .activeMinutes ? challenge.target * 60 : challenge.target) {
                    earn(challenge.key, workout)
                    break
                }
            }
        }
        return awards
    }

    /// `MM-DD` when it is a day of some year (a leap one: 2000).
    func validBirthday(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 2, (1...12).contains(parts[0]) else { return nil }
        let date = calendar.date(from: DateComponents(year: 2000, month: parts[0], day: parts[1], hour: 12))!
        let found = calendar.dateComponents([.month, .day], from: date)
        return (found.month!, found.day!) == (parts[0], parts[1]) ? (parts[0], parts[1]) : nil
    }
}

extension Lifter {
    fileprivate static func date(of instant: Date, _ calendar: Calendar) -> LocalDate {
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return LocalDate(year: parts.year!, month: parts.month!, day: parts.day!)
    }
}

/// A random history: workouts around DST changes and ISO year ends, some at the edges of the night
/// owl's and early bird's hours, some sharing a start, with a birthday, challenges and a first record.
private struct RandomHistory {
    static let now = Date(timeIntervalSince1970: 1_830_000_000)  // 2027-12-28
    static let starts = [
        "2014-12-01 09:00", "2015-11-02 09:00", "2019-02-25 09:00", "2020-10-19 09:00", "2022-09-05 09:00",
        "2023-12-11 09:00", "2026-10-05 09:00", "2026-12-14 09:00",
    ]
    /// Local times at the edges of the rules' hours and of the day.
    static let edges = [(20, 59), (21, 0), (3, 59), (4, 0), (6, 59), (7, 0), (23, 59), (0, 0), (0, 10), (23, 30)]
    static let birthdays: [String?] = [nil, "02-29", "02-28", "03-01", "12-31", "01-01", "02-30"]

    var logged: [Logged] = []
    var firstRecord: Logged?
    var birthday: String?
    var challenges: [Challenge] = []

    init(_ lifter: Lifter, using generator: inout SeededGenerator) {
        let calendar = lifter.calendar
        // Casual, steady (rarely missing a week, for the long streaks) or frequent (for 500 workouts).
        let style = [0, 0, 1, 1, 2].randomElement(using: &generator)!
        let count = Int.random(in: [0...120, 150...260, 480...560][style], using: &generator)
        let breaks = [0, 5, 20, 60].randomElement(using: &generator)!
        var instant =
            lifter.instant(Self.starts.randomElement(using: &generator)!)
            + Double(Int.random(in: 0...(60 * 86_400), using: &generator))
        for _ in 0..<count {
            let roll = Int.random(in: 0..<1000, using: &generator)
            let gap: ClosedRange<Int>
            switch style {
            case 0:
                gap =
                    roll < 100
                    ? 600...10_800
                    : roll < 700 ? 86_400...259_200 : roll < 900 ? 259_200...604_800 : 691_200...2_160_000
            case 1: gap = roll < breaks ? 691_200...1_728_000 : roll < 200 ? 3600...28_800 : 86_400...345_600
            default: gap = roll < 20 ? 0...0 : 1800...108_000
            }
            instant += Double(Int.random(in: gap, using: &generator))
            var start = instant
            if Int.random(in: 0..<10, using: &generator) < 3 {
                let (hour, minute) = Self.edges.randomElement(using: &generator)!
                start =
                    calendar.date(
                        bySettingHour: hour, minute: minute, second: Int.random(in: 0...59, using: &generator),
                        of: instant) ?? instant
            }
            logged.append(
                Logged(
                    id: WorkoutID(rawValue: generator.uuid()), startedAt: start,
                    seconds: Int.random(in: 0...7200, using: &generator)))
        }
        logged = logged.map { ($0, $0.id.rawValue.lowercasedString) }.sorted {
            ($0.0.startedAt, $0.1) < ($1.0.startedAt, $1.1)
        }
        .map(\.0)

        if Bool.random(using: &generator) { firstRecord = logged.randomElement(using: &generator) }
        birthday =
            Int.random(in: 0..<4, using: &generator) == 0
            ? "\(padded(Int.random(in: 1...12, using: &generator), 2))-\(padded(Int.random(in: 1...28, using: &generator), 2))"
            : Self.birthdays.randomElement(using: &generator)!
        for number in 0..<Int.random(in: 0...3, using: &generator) {
            let from = lifter.date(of: (logged.randomElement(using: &generator)?.startedAt ?? instant) - 86_400 * 3)
            let to = lifter.date(
                of: calendar.date(from: DateComponents(year: from.year, month: from.month, day: from.day, hour: 12))!
                    + Double(86_400 * Int.random(in: 0...60, using: &generator)))
            let rule = Challenge.Rule.allCases.randomElement(using: &generator)!
            let target =
                rule == .anyWorkout
                ? 1
                : rule == .workouts
                    ? Int.random(in: 1...12, using: &generator) : Int.random(in: 10...900, using: &generator)
            challenges.append(
                Challenge(
                    id: generator.uuid(), name: "Random \(number)", description: "", startsOn: "\(from)",
                    endsOn: "\(to)", rule: rule, target: target, createdAt: Self.now, createdBy: "admin"))
        }
    }
}
