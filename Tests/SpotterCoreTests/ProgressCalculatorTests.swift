import Foundation
import SpotterCore
import Testing

@Suite("Training rules: progress")
struct TrainingRulesProgressTests {
    static let newYork = TimeZone(identifier: "America/New_York")!

    static func record(
        _ workout: WorkoutID,
        _ startedAt: String,
        exercise: Int = 0,
        set: Int,
        _ kilograms: Decimal?,
        _ reps: Int,
        rpe: Decimal? = nil,
        type: SetType = .working
    ) -> ExerciseSetRecord {
        ExerciseSetRecord(
            workoutID: workout,
            workoutName: "Workout",
            startedAt: date(startedAt),
            exerciseIndex: exercise,
            setIndex: set,
            set: WorkoutSet(reps: reps, weight: kilograms.map(kg), rpe: rpe, type: type)
        )
    }

    @Test("sets are grouped by local day, warm-ups are ignored, and each day has its best estimate and top set")
    func pointsPerLocalDay() throws {
        let w1 = WorkoutID("00000000-0000-4000-8000-000000000001")!
        let w2 = WorkoutID("00000000-0000-4000-8000-000000000002")!
        let w3 = WorkoutID("00000000-0000-4000-8000-000000000003")!
        let w4 = WorkoutID("00000000-0000-4000-8000-000000000004")!
        // 2024-01-09 in New York (UTC−5): an evening workout and one at 03:00 UTC the next day (22:00 local).
        let a0 = Self.record(w1, "2024-01-09T23:00:00Z", set: 0, 60, 10, type: .warmUp)
        let a1 = Self.record(w1, "2024-01-09T23:00:00Z", set: 1, 100, 5)
        let a2 = Self.record(w1, "2024-01-09T23:00:00Z", set: 2, 105, 3)
        let a3 = Self.record(w1, "2024-01-09T23:00:00Z", set: 3, 100, 5)
        let a4 = Self.record(w2, "2024-01-10T03:00:00Z", exercise: 1, set: 0, 120, 1)
        let a5 = Self.record(w2, "2024-01-10T03:00:00Z", exercise: 1, set: 1, 300, 1, type: .warmUp)
        // 2024-01-11: only sets of 15 reps.
        let b0 = Self.record(w3, "2024-01-11T15:00:00Z", set: 0, 80, 15)
        let b1 = Self.record(w3, "2024-01-11T15:00:00Z", set: 1, 80, 15)
        let b2 = Self.record(w3, "2024-01-11T15:00:00Z", set: 2, 80, 15)
        // 2024-01-13 (02:00 UTC on the 14th).
        let c0 = Self.record(w4, "2024-01-14T02:00:00Z", set: 0, 110, 2)
        let c1 = Self.record(w4, "2024-01-14T02:00:00Z", set: 1, 110, 3)
        let c2 = Self.record(w4, "2024-01-14T02:00:00Z", set: 2, 110, 3)
        let c3 = Self.record(w4, "2024-01-14T02:00:00Z", set: 3, 130, 1, type: .warmUp)

        let report = ProgressCalculator.report(
            exercise: squat,
            sets: [c3, b2, a4, c0, a1, b0, a5, c2, a0, a3, b1, c1, a2],
            formula: .epley,
            timeZone: Self.newYork)

        #expect(report.exercise == squat)
        #expect(report.points.map(\.date) == ["2024-01-09", "2024-01-11", "2024-01-13"])
        try #require(report.points.count == 3)
        let (a, b, c) = (report.points[0], report.points[1], report.points[2])

        #expect(a.setCount == 4)
        #expect(a.volume == kg(500 + 315 + 500 + 120))
        #expect(a.best?.record == a4)
        #expect(a.best?.kilograms == 120)
        #expect(a.best?.formula == .epley)
        #expect(a.noEstimateReason == nil)
        #expect(a.topSet == a4)

        #expect(b.setCount == 3)
        #expect(b.volume == kg(3600))
        #expect(b.best == nil)
        let reason = try #require(b.noEstimateReason)
        #expect(reason.contains("15 reps"))
        #expect(b.topSet == b0)

        #expect(c.setCount == 3)
        #expect(c.volume == kg(220 + 330 + 330))
        #expect(c.topSet == c1)
        #expect(c.best?.record == c1)
        #expect(abs((c.best?.kilograms ?? 0) - 121) < 1e-9)
    }

    @Test("the top set is the heaviest, and at equal weight the one with more reps")
    func topSet() {
        let w = WorkoutID("00000000-0000-4000-8000-000000000005")!
        let s0 = Self.record(w, "2024-01-09T15:00:00Z", set: 0, 100, 8)
        let s1 = Self.record(w, "2024-01-09T15:00:00Z", set: 1, 110, 2)
        let s2 = Self.record(w, "2024-01-09T15:00:00Z", set: 2, 110, 4)
        let s3 = Self.record(w, "2024-01-09T15:00:00Z", set: 3, 110, 3)
        let report = ProgressCalculator.report(
            exercise: squat, sets: [s0, s1, s2, s3], formula: .epley, timeZone: Self.newYork)
        #expect(report.points.map(\.topSet) == [s2])
    }

    @Test("records: heaviest weight, best estimate and most reps per weight heaviest first; ties keep the earlier")
    func records() {
        let w1 = WorkoutID("00000000-0000-4000-8000-000000000006")!
        let w2 = WorkoutID("00000000-0000-4000-8000-000000000007")!
        let r1 = Self.record(w1, "2024-01-09T15:00:00Z", set: 0, 100, 5)
        let r2 = Self.record(w1, "2024-01-09T15:00:00Z", set: 1, 100, 5)
        let r3 = Self.record(w1, "2024-01-09T15:00:00Z", set: 2, 120, 1)
        let r4 = Self.record(w2, "2024-01-10T15:00:00Z", set: 0, 120, 1)
        let r5 = Self.record(w2, "2024-01-10T15:00:00Z", set: 1, 90, 8)
        let r6 = Self.record(w2, "2024-01-10T15:00:00Z", set: 2, 200, 3, type: .warmUp)
        let r7 = Self.record(w2, "2024-01-10T15:00:00Z", set: 3, nil, 20)
        let r8 = Self.record(w2, "2024-01-10T15:00:00Z", set: 4, 100, 4)

        let report = ProgressCalculator.report(
            exercise: squat, sets: [r8, r7, r6, r5, r4, r3, r2, r1], formula: .epley, timeZone: Self.newYork)
        let records = report.records
        #expect(records.heaviest == r3)
        #expect(records.bestE1RM?.record == r3)
        #expect(records.bestE1RM?.kilograms == 120)
        #expect(records.bestE1RM?.formula == .epley)
        #expect(records.mostReps.map(\.reps) == [1, 5, 8])
        #expect(records.mostReps.map(\.record) == [r3, r1, r5])
    }

    @Test(
        "a missed attempt (0 reps) is neither the day's top set nor a heaviest record, unless it is all the day has; a day without estimate says why for its top set"
    )
    func missedAndReasons() {
        let w1 = WorkoutID("00000000-0000-4000-8000-000000000016")!
        let done = Self.record(w1, "2024-01-09T15:00:00Z", set: 0, 90, 3)
        let missed = Self.record(w1, "2024-01-09T15:00:00Z", set: 1, 100, 0)
        let report = ProgressCalculator.report(exercise: squat, sets: [done, missed], formula: .epley, timeZone: .gmt)
        #expect(report.points[0].topSet == done)
        #expect(report.records.heaviest == done)
        let onlyMissed = Self.record(
            WorkoutID("00000000-0000-4000-8000-000000000018")!, "2024-01-11T15:00:00Z", set: 0, 110, 0)
        let alone = ProgressCalculator.report(exercise: squat, sets: [onlyMissed], formula: .epley, timeZone: .gmt)
        #expect(alone.points[0].topSet == onlyMissed && alone.records.heaviest == nil)

        // High reps first, then the heavier set at RPE 5: the reason given is the heavier set's.
        let w2 = WorkoutID("00000000-0000-4000-8000-000000000017")!
        let light = Self.record(w2, "2024-01-10T15:00:00Z", set: 0, 40, 10, rpe: 7)
        let heavy = Self.record(w2, "2024-01-10T15:00:00Z", set: 1, 80, 3, rpe: 5)
        let day = ProgressCalculator.report(exercise: squat, sets: [light, heavy], formula: .epley, timeZone: .gmt)
        #expect(day.points[0].topSet == heavy)
        #expect(day.points[0].noEstimateReason == "RPE 5 is below 6, too far from a maximum to estimate one")
    }

    @Test("no sets give no points and no records")
    func empty() {
        let report = ProgressCalculator.report(exercise: squat, sets: [], formula: .brzycki, timeZone: Self.newYork)
        #expect(report.points.isEmpty)
        #expect(report.records.heaviest == nil)
        #expect(report.records.bestE1RM == nil)
        #expect(report.records.mostReps.isEmpty)
    }
}

@Suite("Training rules: entitlements")
struct TrainingRulesEntitlementsTests {
    @Test("the free tier sees progress for the big three only; the refusal names Pro, or Coach Pro for a coach")
    func freeTier() throws {
        #expect(throws: Never.self) { try Entitlements.checkProgress(for: squat, tier: .free, kind: .lifter) }
        #expect(
            throws: SpotterError.tierRequired(
                "progress for Cable Fly needs the Pro tier; your tier covers Barbell Back Squat, Barbell Bench Press and Barbell Deadlift",
                tier: .pro)
        ) { try Entitlements.checkProgress(for: fly, tier: .free, kind: .lifter) }
        // A coach cannot hold Pro: the refusal names the coach's tier that opens it.
        for tier in [Tier.free, .coach] {
            #expect(
                throws: SpotterError.tierRequired(
                    "progress for Cable Fly needs the Coach Pro tier; your tier covers Barbell Back Squat, Barbell Bench Press and Barbell Deadlift",
                    tier: .coachPro)
            ) { try Entitlements.checkProgress(for: fly, tier: tier, kind: .coach) }
        }
        #expect(
            throws: SpotterError.tierRequired(
                "body weight and measurement tracking needs the Coach Pro tier", tier: .coachPro)
        ) { try Entitlements.checkBodyTracking(tier: .coach, kind: .coach) }
    }

    @Test("the pro tier sees progress for every exercise")
    func proTier() {
        #expect(throws: Never.self) { try Entitlements.checkProgress(for: squat, tier: .pro, kind: .lifter) }
        #expect(throws: Never.self) { try Entitlements.checkProgress(for: fly, tier: .pro, kind: .lifter) }
        #expect(throws: Never.self) { try Entitlements.checkProgress(for: fly, tier: .coachPro, kind: .coach) }
    }

    @Test("the advanced statistics (per muscle group and category) are Pro's, Coach Pro's for a coach's own")
    func breakdowns() {
        #expect(Entitlements.breakdownsLocked(tier: .free, kind: .lifter) == .pro)
        #expect(Entitlements.breakdownsLocked(tier: .pro, kind: .lifter) == nil)
        #expect(Entitlements.breakdownsLocked(tier: .free, kind: .coach) == .coachPro)
        #expect(Entitlements.breakdownsLocked(tier: .coach, kind: .coach) == .coachPro)
        #expect(Entitlements.breakdownsLocked(tier: .coachPro, kind: .coach) == nil)
    }
}
