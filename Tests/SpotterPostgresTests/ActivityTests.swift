import Foundation
import Postgres
import SpotterCore
import SpotterTestSupport
import Synchronization
import Testing

@testable import SpotterPostgres

@Suite("Activity and achievements on PostgreSQL")
struct ActivityTests {
    /// Monday 2026-09-07 12:00 UTC.
    private let monday = Date(timeIntervalSince1970: 1_788_782_400)

    /// One workout as the test itself keeps it: what a recomputation from scratch starts from.
    struct Kept {
        var id: WorkoutID
        var startedAt: Date
        var durationSeconds: Int
        /// (exercise, reps, kilograms, RPE) of each working set.
        var sets: [(ExerciseID, Int, Decimal, Decimal?)]
    }

    /// The awards a recomputation from scratch gives for `kept`: local days and times by
    /// Foundation's calendar, the first record by a running best per exercise, then the rules.
    static func expectedAwards(_ kept: [Kept], timeZone: String, birthday: String?, now: Date) -> [String: WorkoutID] {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: timeZone)!
        func local(_ date: Date) -> (day: Int, minute: Int) {
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
            let day = CivilDate(year: parts.year!, month: parts.month!, day: parts.day!).dayNumber
            return (day, parts.hour! * 60 + parts.minute!)
        }
        let ordered = kept.sorted { ($0.startedAt, $0.id.description) < ($1.startedAt, $1.id.description) }
        var heaviest: [ExerciseID: Decimal] = [:]
        var bestE1RM: [ExerciseID: Double] = [:]
        var firstRecord: ActivityWorkout?
        var workouts: [ActivityWorkout] = []
        for workout in ordered {
            let (day, minute) = local(workout.startedAt)
            let entry = ActivityWorkout(
                id: workout.id, startedAt: workout.startedAt, durationSeconds: workout.durationSeconds, localDay: day,
                localMinute: minute)
            workouts.append(entry)
            var isRecord = false
            func e1rm(_ reps: Int, _ kilograms: Decimal, _ rpe: Decimal?) -> Double? {
                OneRepMax.estimate(weight: Mass(kilograms, .kg), reps: reps, rpe: rpe, formula: .epley).kilograms
            }
            for (exercise, reps, kilograms, rpe) in workout.sets where reps >= 1 && kilograms > 0 {
                if let best = heaviest[exercise], kilograms > best { isRecord = true }
                if let estimate = e1rm(reps, kilograms, rpe), let best = bestE1RM[exercise], estimate > best {
                    isRecord = true
                }
            }
            if isRecord && firstRecord == nil { firstRecord = entry }
            for (exercise, reps, kilograms, rpe) in workout.sets where reps >= 1 && kilograms > 0 {
                heaviest[exercise] = max(heaviest[exercise] ?? 0, kilograms)
                if let estimate = e1rm(reps, kilograms, rpe) {
                    bestE1RM[exercise] = max(bestE1RM[exercise] ?? 0, estimate)
                }
            }
        }
        let facts = ActivityFacts(
            workouts: workouts, firstRecord: firstRecord, birthday: birthday, challenges: [], today: local(now).day)
        return Dictionary(uniqueKeysWithValues: AchievementRules.awards(facts).map { ($0.key, $0.workoutID) })
    }

    /// Logs a workout of one set of `exercise`, `days` after `monday`.
    private func logSet(
        _ training: TrainingServices, _ lifter: Principal, _ exercise: ExerciseID, _ reps: Int, _ kilograms: Double,
        rpe: Double?, days: Double
    ) async throws -> WorkoutID {
        try await training.workouts.log(
            lifter, id: "",
            WorkoutDraft(
                name: "Session", startedAt: monday.addingTimeInterval(days * 86_400), durationSeconds: 3600,
                exercises: [
                    WorkoutExerciseDraft(
                        exerciseID: exercise.description,
                        sets: [SetDraft(reps: reps, weight: WeightDraft(value: kilograms, unit: .kg), rpe: rpe)])
                ])
        ).id
    }

    /// The earned entries of a list: which workout earned each key.
    static func earnedBy(_ list: [Achievement]) -> [String: WorkoutID] {
        Dictionary(uniqueKeysWithValues: list.compactMap { entry in entry.earned.map { (entry.key, $0.workoutID) } })
    }

    /// A template: a change of the lifter's feed that no award depends on.
    static let pressTemplate = TemplateDraft(
        name: "Press",
        items: [TemplateItemDraft(exerciseID: Catalog.benchPress.description, targetSets: 3, repsMin: 5, repsMax: 5)])

    /// Awards as the table holds them.
    static func stored(_ database: TestDatabase, _ lifter: Principal) async throws -> [String: WorkoutID] {
        try await database.asOwner { connection in
            let rows = try await connection.query(
                "SELECT key, workout_id FROM achievements WHERE tenant_id = $1", [lifter.tenantID.rawValue])
            return Dictionary(
                uniqueKeysWithValues: try rows.map {
                    (try $0.decode("key") as String, WorkoutID(rawValue: try $0.decode("workout_id")))
                })
        }
    }

    @Test(
        "achievements stay exact under a random sequence of logs, back-dated logs, start-time edits, deletions, a push of old workouts and time-zone changes"
    )
    func randomSequenceMatchesRecomputation() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(monday.addingTimeInterval(3 * 365 * 86_400))
            let training = database.trainingServices(clock: clock)
            let accounts = database.accountService(clock: clock)
            let sync = database.syncService(clock: clock)
            let ada = try await database.lifter("ada")
            var random = SeededGenerator(seed: 17)
            var kept: [WorkoutID: Kept] = [:]
            var timeZone = "UTC"
            let zones = ["America/New_York", "Asia/Kolkata", "Pacific/Kiritimati", "Europe/Berlin", "UTC"]
            let lifts = [Catalog.squat, Catalog.benchPress, Catalog.deadlift]
            // Reps and RPEs with an estimate and without one (15 reps; 12 at RPE 8 count as 14; RPE 5).
            let repChoices = [1, 3, 6, 12, 15, 20]
            let rpeChoices: [Decimal?] = [nil, nil, 5, 6, 7.5, 8, 9.5, 10]

            func draft(after latest: Date? = nil) -> (WorkoutDraft, [(ExerciseID, Int, Decimal, Decimal?)]) {
                // Any second of about two years, so starts never tie; or a day or two after `latest`
                // (a workout logged today: the reconciliation's shortcut for new workouts).
                let start =
                    latest.map { $0.addingTimeInterval(Double(3600 + random.next(upTo: 2 * 86_400))) }
                    ?? monday.addingTimeInterval(Double(random.next(upTo: 2 * 365 * 86_400)))
                let exercises = (0..<(1 + random.next(upTo: 2))).map { _ in lifts[random.next(upTo: lifts.count)] }
                var sets: [(ExerciseID, Int, Decimal, Decimal?)] = []
                let drafts = exercises.map { exercise in
                    WorkoutExerciseDraft(
                        exerciseID: exercise.description,
                        sets: (0..<(1 + random.next(upTo: 3))).map { _ in
                            let reps = repChoices[random.next(upTo: repChoices.count)]
                            let kilograms = Decimal(40 + 5 * random.next(upTo: 30)) / 2 * 2
                            let rpe = rpeChoices[random.next(upTo: rpeChoices.count)]
                            sets.append((exercise, reps, kilograms, rpe))
                            return SetDraft(
                                reps: reps,
                                weight: WeightDraft(value: NSDecimalNumber(decimal: kilograms).doubleValue, unit: .kg),
                                rpe: rpe.map { NSDecimalNumber(decimal: $0).doubleValue })
                        })
                }
                let minutes = 10 + random.next(upTo: 80)
                return (
                    WorkoutDraft(name: "Session", startedAt: start, durationSeconds: minutes * 60, exercises: drafts),
                    sets
                )
            }

            var device = try await SimulatedDevice.register(sync, ada, label: "phone")
            for step in 0..<90 {
                let roll = random.next(upTo: 100)
                if roll < 45 || kept.isEmpty {
                    let latest = roll % 2 == 0 ? kept.values.map(\.startedAt).max() : nil
                    let (workoutDraft, sets) = draft(after: latest)
                    let workout = try await training.workouts.log(ada, id: "", workoutDraft)
                    kept[workout.id] = Kept(
                        id: workout.id, startedAt: workoutDraft.startedAt!,
                        durationSeconds: workoutDraft.durationSeconds,
                        sets: sets)
                } else if roll < 60 {
                    let id = kept.keys.sorted { $0.description < $1.description }[random.next(upTo: kept.count)]
                    let start = monday.addingTimeInterval(Double(random.next(upTo: 2 * 365 * 86_400)))
                    _ = try await training.workouts.update(
                        ada, id: id.description, WorkoutPatch(startedAt: start), expectedVersion: nil)
                    kept[id]?.startedAt = start
                } else if roll < 80 {
                    let id = kept.keys.sorted { $0.description < $1.description }[random.next(upTo: kept.count)]
                    try await training.workouts.delete(ada, id: id.description)
                    kept[id] = nil
                } else if roll < 90 {
                    var mutations: [Mutation] = []
                    for _ in 0..<(5 + random.next(upTo: 15)) {
                        let (workoutDraft, sets) = draft()
                        let id = WorkoutID(rawValue: UUID())
                        mutations.append(device.put(.workout(workoutDraft), id.rawValue, base: 0))
                        kept[id] = Kept(
                            id: id, startedAt: workoutDraft.startedAt!, durationSeconds: workoutDraft.durationSeconds,
                            sets: sets)
                    }
                    let results = try await device.push(sync, mutations)
                    #expect(results.allSatisfy { $0.status == .applied }, "step \(step): the push applies")
                } else {
                    timeZone = zones[random.next(upTo: zones.count)]
                    _ = try await accounts.updateProfile(ada, ProfileUpdate(timeZone: timeZone))
                }

                let listed = try await training.activity.achievements(ada)
                let expected = Self.expectedAwards(
                    Array(kept.values), timeZone: timeZone, birthday: nil, now: clock.now)
                let earned = Self.earnedBy(listed)
                #expect(earned == expected, "step \(step) (roll \(roll)): the list equals a recomputation")
                #expect(try await Self.stored(database, ada) == expected, "step \(step): the table equals it too")
            }
            #expect(kept.count > 60, "the sequence built a history worth checking")
        }
    }

    @Test(
        "new workouts are checked against the kept baselines: an exercise new to the lifter, and a set at an exercise's first start, read them again"
    )
    func recordAgainstKeptBaselines() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(monday.addingTimeInterval(30 * 86_400))
            let training = database.trainingServices(clock: clock)
            func log(_ lifter: Principal, _ exercise: ExerciseID, _ kilograms: Double, days: Double) async throws
                -> WorkoutID
            {
                try await logSet(training, lifter, exercise, 5, kilograms, rpe: nil, days: days)
            }
            // Each list reconciles, so each step is a round of its own, folding only the new workout.
            func firstRecord(_ lifter: Principal) async throws -> WorkoutID? {
                Self.earnedBy(try await training.activity.achievements(lifter))["trophy:new_pr"]
            }

            // A lifter's first round reads everything; the second, of one new workout, reads and keeps
            // the baselines; the rounds after it check new workouts against the kept ones.
            func start(_ lifter: Principal) async throws {
                _ = try await log(lifter, Catalog.squat, 100, days: 0)
                #expect(try await firstRecord(lifter) == nil)
                _ = try await log(lifter, Catalog.squat, 100, days: 1)
                #expect(try await firstRecord(lifter) == nil, "the same weight is no record")
            }

            // An exercise new to the lifter after the baselines were kept.
            let ada = try await database.lifter("ada")
            try await start(ada)
            _ = try await log(ada, Catalog.benchPress, 80, days: 2)
            #expect(try await firstRecord(ada) == nil, "a first bench press is no record")
            let heavierBench = try await log(ada, Catalog.benchPress, 85, days: 3)
            #expect(try await firstRecord(ada) == heavierBench)

            // A workout started with an exercise's first one raises the best at that start.
            let bob = try await database.lifter("bob")
            try await start(bob)
            _ = try await log(bob, Catalog.benchPress, 80, days: 2)
            #expect(try await firstRecord(bob) == nil)
            _ = try await log(bob, Catalog.benchPress, 90, days: 2)
            #expect(try await firstRecord(bob) == nil, "sets at the first start are never records")
            _ = try await log(bob, Catalog.benchPress, 85, days: 3)
            #expect(try await firstRecord(bob) == nil, "85 kg is under the 90 kg of the first start")
            let heavierSquat = try await log(bob, Catalog.squat, 102.5, days: 4)
            #expect(try await firstRecord(bob) == heavierSquat)
            #expect(try await Self.stored(database, bob)["trophy:new_pr"] == heavierSquat)
        }
    }

    @Test("the records' SQL estimate agrees with progress's for every reps from 0 to 14 and every RPE")
    func recordEstimateMatchesProgress() async throws {
        try await TestDatabase.with { database in
            let rows = try await database.asOwner { connection in
                try await connection.query(
                    """
                    SELECT s.reps, s.rpe::text AS rpe, (\(RecordSQL.e1rm("s")))::float8 AS e1rm
                    FROM generate_series(0, 14) AS r (reps)
                    CROSS JOIN (SELECT NULL::numeric UNION ALL SELECT generate_series(2, 20) / 2.0) AS p (rpe)
                    CROSS JOIN LATERAL (SELECT r.reps, p.rpe::numeric(3, 1) AS rpe, 102.5::numeric AS weight_kg) s
                    """
                ).map { row in
                    (try row.decode("reps") as Int, try row.decode("rpe") as String?, try row.decode("e1rm") as Double?)
                }
            }
            #expect(rows.count == 15 * 20)
            for (reps, rpe, sql) in rows {
                let swift = OneRepMax.estimate(
                    weight: Mass(Decimal(string: "102.5")!, .kg), reps: reps, rpe: rpe.flatMap { Decimal(string: $0) },
                    formula: .epley
                ).kilograms
                #expect((sql == nil) == (swift == nil), "\(reps) reps at RPE \(rpe ?? "none")")
                if let sql, let swift { #expect(abs(sql - swift) < 1e-9, "\(reps) reps at RPE \(rpe ?? "none")") }
            }
        }
    }

    @Test("the New PR trophy estimates a set's max as progress does, reps in reserve counted, in every kind of round")
    func recordCountsRepsInReserve() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(monday.addingTimeInterval(30 * 86_400))
            let training = database.trainingServices(clock: clock)
            func log(_ lifter: Principal, _ reps: Int, _ kilograms: Double, rpe: Double?, days: Double) async throws
                -> WorkoutID
            {
                try await logSet(training, lifter, Catalog.squat, reps, kilograms, rpe: rpe, days: days)
            }
            func firstRecord(_ lifter: Principal) async throws -> WorkoutID? {
                Self.earnedBy(try await training.activity.achievements(lifter))["trophy:new_pr"]
            }

            // 100 kg × 5 is 116.7 kg; at RPE 8 it is 7 reps, 123.3 kg: a record the reps alone miss.
            let ada = try await database.lifter("ada")
            _ = try await log(ada, 5, 100, rpe: nil, days: 0)
            #expect(try await firstRecord(ada) == nil)
            _ = try await log(ada, 5, 100, rpe: nil, days: 1)
            #expect(try await firstRecord(ada) == nil, "the baselines are kept from here")
            let harder = try await log(ada, 5, 100, rpe: 8, days: 2)
            #expect(try await firstRecord(ada) == harder, "checked against the kept baselines")

            // 100 kg × 5 at RPE 6 is 9 reps, 130 kg: 100 × 8 (126.7 kg) is no record, and 95 × 12
            // at RPE 8 (14 reps counted) has no estimate, though 12 reps alone would be 133 kg.
            let bob = try await database.lifter("bob")
            _ = try await log(bob, 5, 100, rpe: 6, days: 0)
            _ = try await log(bob, 8, 100, rpe: nil, days: 1)
            #expect(try await firstRecord(bob) == nil)
            _ = try await log(bob, 12, 95, rpe: 8, days: 2)
            #expect(try await firstRecord(bob) == nil)
            // Recomputed from every set, after a back-dated workout (its set the same as day 0's): the same.
            _ = try await log(bob, 5, 100, rpe: 6, days: -1)
            #expect(try await firstRecord(bob) == nil)
            #expect(try await Self.stored(database, bob)["trophy:new_pr"] == nil)
            let heavier = try await log(bob, 1, 131, rpe: nil, days: 3)
            #expect(try await firstRecord(bob) == heavier)
        }
    }

    @Test("reconciling while workouts are logged concurrently ends where a recomputation does")
    func reconcileDuringConcurrentLogs() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(monday.addingTimeInterval(400 * 86_400))
            let training = database.trainingServices(clock: clock)
            let ada = try await database.lifter("ada")
            let kept = Mutex<[Kept]>([])
            let monday = self.monday
            let log: @Sendable (Int, Double) async throws -> Void = { index, kilograms in
                let start = monday.addingTimeInterval(Double(index) * 86_400)
                let workout = try await training.workouts.log(
                    ada, id: "", workoutDraft(at: start, exercises: [Catalog.squat], sets: 1, kilograms: kilograms))
                kept.withLock {
                    $0.append(
                        Kept(
                            id: workout.id, startedAt: start, durationSeconds: 3600,
                            sets: [(Catalog.squat, 5, Decimal(kilograms), nil)]))
                }
            }
            // A flat start (no record), so the reconciliations look among new sets only.
            try await log(0, 100)
            try await training.activity.reconcile(ada.tenantID)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for step in 0..<10 {
                            let index = 1 + step * 4 + writer
                            try await log(index, index < 30 ? 100 : 100 + Double(index))
                        }
                    }
                }
                group.addTask {
                    for _ in 0..<20 { try await training.activity.reconcile(ada.tenantID) }
                }
                try await group.waitForAll()
            }
            let listed = try await training.activity.achievements(ada)
            let expected = Self.expectedAwards(kept.withLock { $0 }, timeZone: "UTC", birthday: nil, now: clock.now)
            let earned = Self.earnedBy(listed)
            #expect(earned == expected)
            #expect(expected["trophy:new_pr"] != nil, "a record was set, late")
        }
    }

    @Test("a round after a new workout sends its statements in six round trips")
    func roundTrips() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(monday.addingTimeInterval(7 * 86_400))
            let training = database.trainingServices(clock: clock)
            let ada = try await database.lifter("ada")
            // Rounds before: the first reads everything, the second finds the records' baselines.
            for day in 0..<2 {
                _ = try await training.workouts.log(
                    ada, id: "", workoutDraft(at: monday.addingTimeInterval(Double(day) * 86_400)))
                try await training.activity.reconcile(ada.tenantID)
            }
            _ = try await training.workouts.log(ada, id: "", workoutDraft(at: monday.addingTimeInterval(2 * 86_400)))
            let log = PostgresStatementLog()
            try await PostgresStatementLog.$current.withValue(log) {
                try await training.activity.reconcile(ada.tenantID)
            }
            func kind(_ sql: String) -> String {
                let words = sql.split(whereSeparator: \.isWhitespace)
                let text = words.prefix(words.first == "WITH" ? 2 : 3).joined(separator: " ")
                return text.hasPrefix("SELECT set_config") || text.hasPrefix("SELECT pg_advisory")
                    ? String(text.prefix { $0 != "(" }) : text
            }
            #expect(
                log.roundTrips.map { $0.map(kind) } == [
                    ["BEGIN ISOLATION LEVEL", "SELECT set_config", "SELECT pg_advisory_xact_lock"],
                    ["SELECT a.feed_seq, a.last_start,", "SELECT time_zone, birthday,", "SELECT key, earned_at,"],
                    ["SELECT w.workout_id, w.started_us,", "SELECT challenge_id, name,"],
                    ["SELECT set_config", "WITH b", "SELECT set_config"],
                    ["INSERT INTO achievements", "INSERT INTO activity_kept"],
                    ["SELECT coalesce(current_setting('spotter.changed_feeds', true),", "COMMIT"],
                ], "\(log.roundTrips)")
            let listed = try await training.activity.achievements(ada)
            #expect(Self.earnedBy(listed).keys.contains("frequency:3"), "the round's award was stored")
        }
    }

    @Test("a round after more new workouts than it reads one by one reads everything, and awards the same")
    func manyNewWorkouts() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(monday.addingTimeInterval(2_000 * 86_400))
            let training = database.trainingServices(clock: clock)
            let ada = try await database.lifter("ada")
            _ = try await training.workouts.log(ada, id: "", workoutDraft(at: monday))
            try await training.activity.reconcile(ada.tenantID)
            // More new workouts than a round reads one by one, each a day after the one before.
            let second = try await training.workouts.log(
                ada, id: "", workoutDraft(at: monday.addingTimeInterval(86_400)))
            try await database.copyWorkout(ada.tenantID, second.id, times: PostgresActivityStore.appendedLimit)
            let log = PostgresStatementLog()
            try await PostgresStatementLog.$current.withValue(log) {
                try await training.activity.reconcile(ada.tenantID)
            }
            #expect(
                log.statements.contains { $0.sql.hasPrefix("DECLARE spotter_activity_workouts") }, "read everything")
            let kept = try await Self.stored(database, ada)
            // A service with nothing cached reads everything too.
            let fresh = try await database.trainingServices(clock: clock).activity.achievements(ada)
            #expect(Self.earnedBy(fresh) == kept)
            #expect(kept["milestone:500"] != nil, "\(kept.keys.sorted())")
        }
    }

    @Test("awards and withdrawals reach devices through the change feed")
    func awardsReachTheFeed() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(monday.addingTimeInterval(86_400))
            let training = database.trainingServices(clock: clock)
            let sync = database.syncService(clock: clock)
            let ada = try await database.lifter("ada")
            var device = try await SimulatedDevice.register(sync, ada, label: "phone")
            try await device.pullAll(sync)

            // 22:30 UTC: a Night Owl too.
            let workout = try await training.workouts.log(
                ada, id: "", workoutDraft(at: monday.addingTimeInterval(10.5 * 3600)))
            try await training.activity.reconcile(ada.tenantID)
            let changes = try await device.pullAll(sync).filter { $0.kind == .achievement }
            let keys = Set(
                changes.compactMap { change -> String? in
                    guard case .achievement(let achievement) = change.object else { return nil }
                    #expect(achievement.earned?.workoutID == workout.id)
                    #expect(change.objectID == Award.id(ada.tenantID, key: achievement.key))
                    return achievement.key
                })
            #expect(keys == ["milestone:1", "trophy:night_owl"])
            let milestone = changes.first { $0.objectID == Award.id(ada.tenantID, key: "milestone:1") }
            if case .achievement(let achievement) = milestone?.object {
                #expect(achievement.title == "1 Workout")
                #expect(achievement.awardedAt == clock.now)
            } else {
                Issue.record("no milestone:1 in the feed")
            }

            // Reconciling again writes nothing; after a change no award depends on, it reads nothing.
            try await training.activity.reconcile(ada.tenantID)
            #expect(try await device.pullAll(sync).isEmpty)
            func keptSeq() async throws -> Int64 {
                try await database.asOwner { connection in
                    try await connection.query(
                        "SELECT feed_seq FROM activity_kept WHERE tenant_id = $1", [ada.tenantID.rawValue]
                    ).single!.decode("feed_seq")
                }
            }
            let before = try await keptSeq()
            _ = try await training.templates.create(ada, id: "", Self.pressTemplate)
            try await training.activity.reconcile(ada.tenantID)
            #expect(try await keptSeq() == before, "a template edit is not a reason to recompute")
            _ = try await training.activity.achievements(ada)
            #expect(try await keptSeq() > before, "the list always reconciles")

            try await training.workouts.delete(ada, id: workout.id.description)
            try await training.activity.reconcile(ada.tenantID)
            let withdrawn = try await device.pullAll(sync).filter { $0.kind == .achievement }
            #expect(withdrawn.count == 2 && withdrawn.allSatisfy { $0.object == nil }, "both are tombstones")
            #expect(try await Self.stored(database, ada).isEmpty)
        }
    }

    /// Tenants a mailbox handed over.
    final class Handed: Sendable {
        let tenants = Mutex<Set<String>>([])
    }

    @Test(
        "only a committed change of workouts or the profile hands the lifter to the reconciler: not a template, a measurement or the awards it wrote"
    )
    func reconcilerWakesForActivity() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(monday.addingTimeInterval(86_400))
            let spotter = SpotterDatabase(pool: database.appPool)
            let training = TrainingServices(database: spotter, now: { clock.now })
            let accounts = AccountService(store: PostgresProfileStore(database: spotter), now: { clock.now })
            let ada = try await database.proLifter("ada")
            let bea = try await database.lifter("bea")
            func id(_ lifter: Principal) -> String { lifter.tenantID.rawValue.uuidString.lowercased() }
            let handed = Handed()
            let consumer = Task {
                await spotter.activityChanges.deliver { tenants in
                    handed.tenants.withLock { $0.formUnion(tenants.map(String.init)) }
                }
            }
            defer { consumer.cancel() }
            /// Everything handed over until `lifter` was (it is posted when its commit returns, so
            /// whatever was posted before is handed over with it or earlier), then forgotten.
            func handedUntil(_ lifter: Principal) async throws -> Set<String> {
                let deadline = ContinuousClock.now + .seconds(10)
                while ContinuousClock.now < deadline {
                    let all = handed.tenants.withLock { handed in
                        defer { if handed.contains(id(lifter)) { handed = [] } }
                        return handed
                    }
                    if all.contains(id(lifter)) { return all }
                    try await Task.sleep(for: .milliseconds(10))
                }
                Issue.record("\(id(lifter)) was never handed over")
                return []
            }

            _ = try await training.workouts.log(ada, id: "", workoutDraft(at: monday))
            #expect(try await handedUntil(ada).contains(id(ada)))

            // Writes no award depends on, then a workout of another lifter to wait for.
            try await training.activity.reconcile(ada.tenantID)
            #expect(try await Self.stored(database, ada)["milestone:1"] != nil, "the round wrote an award")
            _ = try await training.templates.create(ada, id: "", Self.pressTemplate)
            _ = try await training.body.record(
                ada, id: "", MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-07", value: 80.4))
            _ = try await training.workouts.log(bea, id: "", workoutDraft(at: monday))
            #expect(try await handedUntil(bea) == [id(bea)])

            // The profile decides days and the birthday trophy.
            _ = try await accounts.updateProfile(ada, ProfileUpdate(timeZone: "Asia/Tokyo"))
            #expect(try await handedUntil(ada) == [id(ada)])
        }
    }

    @Test(
        "the list shows locked achievements with progress; a birthday earns its trophy; challenges count in the lifter's dates"
    )
    func lockedProgressBirthdayAndChallenges() async throws {
        try await TestDatabase.with { database in
            // Wednesday 2026-09-09 18:00 UTC.
            let clock = TestClock(monday.addingTimeInterval(2 * 86_400 + 6 * 3600))
            let training = database.trainingServices(clock: clock)
            let accounts = database.accountService(clock: clock)
            let ada = try await database.lifter("ada")
            // Monday 06:00 and Tuesday 06:00 in Berlin (04:00 UTC): two Early Birds' workouts.
            let berlin = try await accounts.updateProfile(ada, ProfileUpdate(timeZone: "Europe/Berlin"))
            // A lifter has no directory entry: a bio or specialities are refused, clearing them is not.
            await #expect(
                throws: SpotterError.invalidArgument([
                    FieldViolation(field: "bio", reason: "is for coaches, whom the coach directory lists"),
                    FieldViolation(field: "specialities", reason: "are for coaches, whom the coach directory lists"),
                ])
            ) { _ = try await accounts.updateProfile(ada, ProfileUpdate(bio: "I lift", specialities: ["squats"])) }
            _ = try await accounts.updateProfile(ada, ProfileUpdate(bio: "", specialities: []))
            // Saving the same again makes no new version, so no device pulls the profile for nothing.
            #expect(
                try await accounts.updateProfile(ada, ProfileUpdate(timeZone: "Europe/Berlin")).version
                    == berlin.version)
            for day in 0..<2 {
                _ = try await training.workouts.log(
                    ada, id: "", workoutDraft(at: monday.addingTimeInterval(Double(day) * 86_400 - 8 * 3600)))
            }
            var list = try await training.activity.achievements(ada)
            func entry(_ key: String) -> Achievement? { list.first { $0.key == key } }
            #expect(entry("milestone:5")?.progressText == "2 of 5 workouts")
            #expect(entry("milestone:5")?.earned == nil && entry("milestone:1")?.earned != nil)
            #expect(entry("frequency:3")?.progressText == "2 of 3 workouts this week")
            #expect(entry("streak:3")?.progressText == "1 week in a row now")
            #expect(entry("trophy:early_bird")?.earned != nil)
            #expect(entry("trophy:birthday")?.progressText == "Add your birthday to your profile")
            #expect(list.map(\.group).firstIndex(of: .trophy)! > list.map(\.group).firstIndex(of: .frequency)!)

            // A birthday: 2026-09-08 is the second workout's local date.
            await #expect(
                throws: SpotterError.invalid("birthday", "must be a day of the calendar; Feb 1990 has 28 days")
            ) {
                _ = try await accounts.updateProfile(ada, ProfileUpdate(birthday: "1990-02-30"))
            }
            // A unit the request could not name is refused together with the update's other problems.
            do {
                _ = try await accounts.updateProfile(
                    ada, ProfileUpdate(displayName: "", timeZone: "Mars/Base", birthday: "2030-01-01"), unreadUnit: true
                )
                Issue.record("a profile with four bad fields was taken")
            } catch SpotterError.invalidArgument(let violations) {
                #expect(violations.map(\.field) == ["unit", "display_name", "time_zone", "birthday"])
            }
            do {
                _ = try await accounts.updateProfile(ada, ProfileUpdate(birthday: "2030-01-01"))
                Issue.record("a birthday in the future was taken")
            } catch SpotterError.invalidArgument(let violations) {
                #expect(violations.map(\.field) == ["birthday"])
                #expect(violations.first?.reason.hasPrefix("must not be in the future (it is ") == true)
            }
            // Tomorrow where she is, though it is already that day in Kiribati.
            let tomorrow = CivilDate(day: Int((clock.now.timeIntervalSince1970 / 86_400).rounded(.down)) + 1).text
            await #expect(
                throws: SpotterError.invalid(
                    "birthday",
                    "must not be in the future (it is \(CivilDate(day: Int((clock.now.timeIntervalSince1970 / 86_400).rounded(.down))).text) in UTC, your time zone)"
                )
            ) {
                _ = try await accounts.updateProfile(ada, ProfileUpdate(timeZone: "UTC", birthday: tomorrow))
            }
            let profile = try await accounts.updateProfile(ada, ProfileUpdate(birthday: "1990-09-08"))
            #expect(profile.birthday == "1990-09-08")
            list = try await training.activity.achievements(ada)
            #expect(entry("trophy:birthday")?.earned != nil)
            _ = try await accounts.updateProfile(ada, ProfileUpdate(birthday: ""))
            #expect(try await accounts.profile(ada).birthday == nil)

            // A challenge of 90 minutes this week: 2 × 60 minutes reach it with the second workout.
            let admin = AdminService(
                store: PostgresAdminStore(pool: database.adminPool), hasher: PasswordHasher(cost: .testing),
                policy: AuthPolicy(), now: { clock.now })
            let operatorName = AdminActor(operatorName: "ops", osUser: "root")
            let challenge = try await admin.createChallenge(
                name: "Autumn Push", description: "Ninety minutes in a week.", startsOn: "2026-09-07",
                endsOn: "2026-09-13", rule: "active_minutes", target: 90, actor: operatorName, reason: "season opener")
            list = try await training.activity.achievements(ada)
            let earned = entry(challenge.key)
            #expect(earned?.earned != nil && earned?.title == "Autumn Push")
            #expect(earned?.criterion == "Train for 90 minutes between 2026-09-07 and 2026-09-13")
            #expect(try await admin.challenges(all: false, limit: 10).map(\.id) == [challenge.id])
            #expect(
                try await database.count(
                    "SELECT count(*) FROM audit_log WHERE action = 'challenge.create' AND target = $1",
                    [challenge.id.lowercasedString]) == 1)

            do {
                _ = try await admin.createChallenge(
                    name: "", description: "", startsOn: "2026-09-13", endsOn: "2026-09-07", rule: "laps", target: nil,
                    actor: operatorName, reason: "bad")
                Issue.record("a bad challenge was created")
            } catch SpotterError.invalidArgument(let violations) {
                #expect(violations.map(\.field) == ["name", "ends_on", "rule"])
            }
            // 366 days with both ends counted: 2028 (a leap year) whole, not one day more.
            for (endsOn, allowed) in [("2028-12-31", true), ("2029-01-01", false)] {
                do {
                    _ = try await admin.createChallenge(
                        name: "Year", description: "", startsOn: "2028-01-01", endsOn: endsOn, rule: "any_workout",
                        target: nil, actor: operatorName, reason: "x")
                    #expect(allowed, "\(endsOn)")
                } catch SpotterError.invalidArgument(let violations) {
                    #expect(!allowed, "\(endsOn)")
                    #expect(
                        violations.map(\.reason) == [
                            "must make a challenge of at most 366 days, starts_on and ends_on included (this is 367)"
                        ])
                }
            }
        }
    }

    @Test("the summary totals all of history or a range, per muscle group and per movement category")
    func summaryTotals() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(monday.addingTimeInterval(30 * 86_400))
            let training = database.trainingServices(clock: clock)
            let ada = try await database.lifter("ada")
            _ = try await training.workouts.log(
                ada, id: "", workoutDraft(at: monday, exercises: [Catalog.squat, Catalog.benchPress]))
            _ = try await training.workouts.log(
                ada, id: "", workoutDraft(at: monday.addingTimeInterval(8 * 86_400), exercises: [Catalog.deadlift]))
            // Free: the totals without the advanced statistics.
            let free = try await training.activity.summary(ada, from: nil, to: nil)
            #expect(free.totals.workouts == 2 && free.totals.setCount == 9 && free.breakdownsLocked == .pro)
            #expect(free.totals.categories.isEmpty && free.totals.muscleGroups.isEmpty)
            try await database.setTier(ada, .pro)
            let all = try await training.activity.summary(ada, from: nil, to: nil)
            #expect(all.breakdownsLocked == nil)
            #expect(all.totals.workouts == 2 && all.totals.activeMinutes == 120 && all.totals.setCount == 9)
            #expect(all.totals.volume == Mass(kilograms: 4500))
            #expect(Set(all.totals.categories.map(\.category)) == [.squat, .push, .hinge])
            #expect(Set(all.totals.muscleGroups.map(\.muscleGroup)).count == 3)
            #expect(all.streak.current == 0 && all.streak.longest == 2)
            let firstWeek = try await training.activity.summary(
                ada, from: monday.addingTimeInterval(-86_400), to: monday.addingTimeInterval(86_400))
            #expect(firstWeek.totals.workouts == 1 && firstWeek.totals.categories.count == 2)
            let none = try await training.activity.summary(ada, from: clock.now, to: nil)
            #expect(none.totals.workouts == 0)
            await #expect(throws: SpotterError.self) {
                _ = try await training.activity.summary(ada, from: clock.now, to: monday)
            }
        }
    }

    @Test("a coach reads a client's achievements with the progress scope only")
    func coachNeedsProgressScope() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(monday.addingTimeInterval(86_400))
            let training = database.trainingServices(clock: clock)
            let coaching = database.coachingService(clock: clock)
            let ada = try await database.lifter("ada")
            let bea = try await database.lifter("bea")
            let coach = try await database.lifter("cora", kind: .coach)
            try await database.asOwner { connection in
                try await connection.query(
                    "UPDATE tenants SET tier = 'coach' WHERE tenant_id = $1", [coach.tenantID.rawValue])
            }
            _ = try await training.workouts.log(ada, id: "", workoutDraft(at: monday))
            _ = try await training.workouts.log(bea, id: "", workoutDraft(at: monday))
            try await coaching.link(coach, ada, scopes: ["progress"])
            try await coaching.link(coach, bea, scopes: ["history"])
            let (client, list) = try await coaching.clientAchievements(coach, client: ada.tenantID.description)
            #expect(client == ada.tenantID)
            #expect(list.first { $0.key == "milestone:1" }?.earned != nil)
            #expect(list.allSatisfy { $0.awardedAt == nil })
            await #expect(throws: SpotterError.self) {
                _ = try await coaching.clientAchievements(coach, client: bea.tenantID.description)
            }
        }
    }
}
