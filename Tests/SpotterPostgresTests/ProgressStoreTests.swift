import Foundation
import Postgres
import SpotterCore
import SpotterTestSupport
import Testing

@Suite("Progress and statistics on PostgreSQL")
struct ProgressStoreTests {
    /// Monday 2026-09-07 12:00 UTC.
    private let monday = Date(timeIntervalSince1970: 1_788_782_400)

    @Test("progress gives per-day e1RM with its method, top set, volume and records; free covers the big three only")
    func progressAndTierGate() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(monday.addingTimeInterval(30 * 86_400))
            let training = database.trainingServices(clock: clock)
            let ada = try await database.lifter("ada")
            _ = try await training.workouts.log(
                ada, id: "", workoutDraft(at: monday, exercises: [Catalog.squat], reps: 5, kilograms: 100))
            _ = try await training.workouts.log(
                ada, id: "",
                workoutDraft(
                    at: monday.addingTimeInterval(2 * 86_400), exercises: [Catalog.squat], sets: 1, reps: 3,
                    kilograms: 110, rpe: 8))
            _ = try await training.workouts.log(
                ada, id: "",
                workoutDraft(
                    at: monday.addingTimeInterval(4 * 86_400), exercises: [Catalog.squat], sets: 2, reps: 15,
                    kilograms: 60))
            _ = try await training.workouts.log(
                ada, id: "", workoutDraft(at: monday, exercises: [Catalog.frontSquat], reps: 5, kilograms: 80))

            let report = try await training.progress.progress(
                ada, exerciseID: Catalog.squat.description, from: nil, to: nil, formula: .epley)
            #expect(report.points.map(\.date) == ["2026-09-07", "2026-09-09", "2026-09-11"])
            #expect(report.points[0].best?.formula == .epley)
            #expect(abs((report.points[0].best?.kilograms ?? 0) - 100 * (1 + 5.0 / 30)) < 1e-9)
            #expect(report.points[0].volume == Mass(kilograms: 1500))
            // 110 kg × 3 at RPE 8 counts 2 reps in reserve: Epley of 5 reps.
            #expect(report.points[1].best?.formula == .epley)
            #expect(report.points[1].best?.repsInReserve == 2)
            #expect(abs((report.points[1].best?.kilograms ?? 0) - 110 * (1 + 5.0 / 30)) < 1e-9)
            #expect(report.points[2].best == nil)
            #expect(report.points[2].noEstimateReason?.contains("15 reps") == true)
            #expect(report.records.heaviest?.set.weight == Mass(kilograms: 110))
            #expect(report.records.bestE1RM?.repsInReserve == 2)
            #expect(report.records.mostReps.map(\.reps) == [3, 5, 15])

            let ranged = try await training.progress.progress(
                ada, exerciseID: Catalog.squat.description, from: monday.addingTimeInterval(86_400),
                to: monday.addingTimeInterval(3 * 86_400), formula: .brzycki)
            #expect(ranged.points.map(\.date) == ["2026-09-09"])

            await #expect(throws: SpotterError.self) {
                try await training.progress.progress(
                    ada, exerciseID: Catalog.frontSquat.description, from: nil, to: nil, formula: .epley)
            }
            do {
                _ = try await training.progress.progress(
                    ada, exerciseID: Catalog.frontSquat.description, from: nil, to: nil, formula: .epley)
            } catch let SpotterError.tierRequired(message, tier) {
                #expect(message.contains("Pro tier") && message.contains("Front Squat") && tier == .pro)
            }
            let owner = try await database.ownerConnection()
            try await owner.query("UPDATE tenants SET tier = 'pro' WHERE tenant_id = $1", [ada.tenantID.rawValue])
            let pro = try await training.progress.progress(
                ada, exerciseID: Catalog.frontSquat.description, from: nil, to: nil, formula: .epley)
            #expect(pro.points.count == 1)
            // An expired tier counts as free again.
            try await owner.query(
                "UPDATE tenants SET tier_expires_at = $2 WHERE tenant_id = $1",
                [ada.tenantID.rawValue, clock.now.addingTimeInterval(-1)])
            await owner.close()
            await #expect(throws: SpotterError.self) {
                try await training.progress.progress(
                    ada, exerciseID: Catalog.frontSquat.description, from: nil, to: nil, formula: .epley)
            }

            let results = try await training.progress.results(
                ada, exerciseID: Catalog.squat.description, pageSize: 4, pageToken: "")
            #expect(results.items.map(\.set.reps) == [15, 15, 3, 5])
            let rest = try await training.progress.results(
                ada, exerciseID: Catalog.squat.description, pageSize: 4, pageToken: results.nextToken)
            #expect(rest.items.map(\.set.reps) == [5, 5] && rest.nextToken.isEmpty)
        }
    }

    @Test("statistics group by day, ISO week (Monday) and month in the lifter's time zone, with muscle groups for Pro")
    func statistics() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(monday.addingTimeInterval(60 * 86_400)))
            let ada = try await database.lifter("ada")
            let owner = try await database.ownerConnection()
            try await owner.query(
                "UPDATE tenants SET time_zone = 'Pacific/Auckland' WHERE tenant_id = $1", [ada.tenantID.rawValue])
            // Sunday 2026-09-06 13:00 UTC is Monday 01:00 in Auckland: the same ISO week as the Monday.
            let sundayUTC = monday.addingTimeInterval(-23 * 3600)
            _ = try await training.workouts.log(ada, id: "", workoutDraft(at: sundayUTC, exercises: [Catalog.squat]))
            _ = try await training.workouts.log(
                ada, id: "", workoutDraft(at: monday, exercises: [Catalog.benchPress, Catalog.squat], sets: 2))
            _ = try await training.workouts.log(
                ada, id: "", workoutDraft(at: monday.addingTimeInterval(7 * 86_400), exercises: [Catalog.deadlift]))

            let range = (from: monday.addingTimeInterval(-10 * 86_400), to: monday.addingTimeInterval(30 * 86_400))
            // Free: the totals, without the advanced statistics (per muscle group and category).
            let free = try await training.progress.statistics(ada, period: .week, from: range.from, to: range.to)
            #expect(free.breakdownsLocked == .pro)
            #expect(free.buckets.map(\.setCount) == [7, 3])
            #expect(free.buckets.allSatisfy { $0.muscleGroups.isEmpty && $0.categories.isEmpty })
            try await owner.query("UPDATE tenants SET tier = 'pro' WHERE tenant_id = $1", [ada.tenantID.rawValue])
            await owner.close()
            let pro = try await training.progress.statistics(ada, period: .week, from: range.from, to: range.to)
            #expect(pro.breakdownsLocked == nil)
            let weeks = pro.buckets
            #expect(weeks.map(\.startDate) == ["2026-09-07", "2026-09-14"])
            #expect(weeks[0].workouts == 2 && weeks[0].activeMinutes == 120 && weeks[0].setCount == 7)
            #expect(weeks[0].volume == Mass(kilograms: 3500))
            #expect(weeks[0].muscleGroups.map(\.muscleGroup) == [.quadriceps, .chest])
            #expect(weeks[0].muscleGroups.map(\.setCount) == [5, 2])
            let days = try await training.progress.statistics(ada, period: .day, from: range.from, to: range.to).buckets
            #expect(days.map(\.startDate) == ["2026-09-07", "2026-09-08", "2026-09-15"])
            let months = try await training.progress.statistics(ada, period: .month, from: range.from, to: range.to)
                .buckets
            #expect(months.map(\.startDate) == ["2026-09-01"] && months[0].workouts == 3)

            // Active minutes: each workout to the nearest minute, so the days add up to their week
            // (90 s and 90 s are 2 + 2 minutes, and the week 4, not 3).
            for day in [14.0, 15] {
                var short = workoutDraft("Mobility", at: monday.addingTimeInterval(day * 86_400), sets: 1)
                short.durationSeconds = 90
                _ = try await training.workouts.log(ada, id: "", short)
            }
            let later = (from: monday.addingTimeInterval(13 * 86_400), to: monday.addingTimeInterval(20 * 86_400))
            #expect(
                try await training.progress.statistics(ada, period: .day, from: later.from, to: later.to).buckets
                    .map(\.activeMinutes) == [2, 2])
            #expect(
                try await training.progress.statistics(ada, period: .week, from: later.from, to: later.to).buckets
                    .map(\.activeMinutes) == [4])

            let invalid = await #expect(throws: SpotterError.self) {
                try await training.progress.statistics(ada, period: nil, from: range.to, to: range.from)
            }
            #expect(
                invalid
                    == .invalidArgument([
                        FieldViolation(field: "period", reason: "is required (DAY, WEEK or MONTH)"),
                        FieldViolation(field: "to", reason: "must be after from"),
                    ]))
        }
    }

    @Test(
        "the weekly streak matches a reference on Foundation's ISO calendar, in six time zones, around DST changes and ISO week 53"
    )
    func weeklyStreakProperty() async throws {
        try await TestDatabase.with { database in
            // Friday 15 January 2027: the weeks before span 2026's DST changes and its week 53.
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let training = database.trainingServices(clock: TestClock(now))
            var generator = SystemRandomNumberGenerator()
            let zones = [
                "UTC", "Europe/Berlin", "America/New_York", "Pacific/Auckland", "Asia/Kolkata", "Australia/Lord_Howe",
            ]
            for (index, zone) in zones.enumerated() {
                var lifter = try await database.lifter("streak\(index)")
                _ = try await database.accountService().updateProfile(lifter, ProfileUpdate(timeZone: zone))
                lifter.tenant = nil
                var calendar = Calendar(identifier: .iso8601)
                calendar.timeZone = TimeZone(identifier: zone)!
                let thisMonday = calendar.dateInterval(of: .weekOfYear, for: now)!.start
                // Mostly consecutive weeks with gaps, at times near the edges of a local week.
                var offset = 0
                var instants: [Date] = []
                for _ in 0..<14 {
                    offset += [0, 1, 1, 1, 2, 3].randomElement(using: &generator)!
                    let monday = calendar.date(byAdding: .weekOfYear, value: -offset, to: thisMonday)!
                    let edge = [
                        DateComponents(minute: 5), DateComponents(day: 6, hour: 23, minute: 55),
                        DateComponents(
                            day: Int.random(in: 0...6, using: &generator),
                            hour: Int.random(in: 0...23, using: &generator)),
                    ].randomElement(using: &generator)!
                    let instant = calendar.date(byAdding: edge, to: monday)!
                    guard instant <= now else { continue }
                    instants.append(instant)
                    _ = try await training.workouts.log(lifter, id: "", workoutDraft(at: instant, sets: 1))
                }
                let streak = try await training.progress.statistics(
                    lifter, period: .week, from: now.addingTimeInterval(-86_400), to: now
                ).streak
                #expect(streak == Self.referenceStreak(instants, calendar: calendar, now: now), "in \(zone)")
            }
        }
    }

    /// The streak by Foundation's ISO-8601 calendar in the lifter's zone, stepping week by week.
    private static func referenceStreak(_ instants: [Date], calendar: Calendar, now: Date) -> WeeklyStreak {
        func start(_ date: Date) -> Date { calendar.dateInterval(of: .weekOfYear, for: date)!.start }
        func text(_ date: Date) -> String {
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        }
        let weeks = Set(instants.map(start)).sorted()
        guard let last = weeks.last else { return .none }
        var runs: [(start: Date, length: Int)] = []
        for week in weeks {
            if let previous = runs.last,
                calendar.date(byAdding: .weekOfYear, value: previous.length, to: previous.start) == week
            {
                runs[runs.count - 1].length += 1
            } else {
                runs.append((week, 1))
            }
        }
        let thisWeek = start(now)
        let lastWeek = calendar.date(byAdding: .weekOfYear, value: -1, to: thisWeek)!
        let alive = last == thisWeek || last == lastWeek
        return WeeklyStreak(
            current: alive ? runs.last!.length : 0, longest: runs.map(\.length).max()!,
            currentSince: alive ? text(runs.last!.start) : nil, lastWeek: text(last))
    }
}
