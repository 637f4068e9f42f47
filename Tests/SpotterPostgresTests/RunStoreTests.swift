import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

@Suite("Runs on PostgreSQL")
struct RunStoreTests {
    /// 2026-09-21 12:00 UTC, a Monday.
    private let now = Date(timeIntervalSince1970: 1_790_000_000)

    /// A straight run north at 3 m/s and 170 steps a minute for `minutes`, with a `pause` (seconds
    /// without footsteps) after the first minute when given.
    static func samples(minutes: Double, pause: Double = 0) -> [FootstepSample] {
        let step = 60.0 / 170
        var samples: [FootstepSample] = []
        var t = 0.0
        var north = 0.0
        while t <= minutes * 60 {
            samples.append(
                FootstepSample(
                    offsetMilliseconds: Int64((t * 1000).rounded()), latitude: 51.5 + north / 111_195,
                    longitude: -0.12, headingDegrees: 0))
            t += step
            north += 3 * step
            if pause > 0, samples.count == 170 { t += pause }
        }
        return samples
    }

    @Test(
        "a run's footsteps, positions and analysis are in the account's export; importing it brings the workout and says what stayed out"
    )
    func runsExported() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let training = database.trainingServices(clock: clock)
            let runs = database.runService(clock: clock)
            let ada = try await database.lifter("ada")
            var samples = Self.samples(minutes: 2)
            samples[3] = FootstepSample(offsetMilliseconds: samples[3].offsetMilliseconds)  // no fix for one step
            let run = try await runs.log(
                ada, id: "", RunDraft(startedAt: now.addingTimeInterval(-3600), samples: samples))
            _ = try await training.workouts.log(ada, id: "", workoutDraft(at: now.addingTimeInterval(-7200)))
            var data = Data()
            try await training.transfer.export(ada, format: .json) { data.append($0) }
            let document = try TenantExport.decoder().decode(TenantExport.self, from: data)
            #expect(document.workouts.count == 2)
            let exported = try #require(document.workouts.first { $0.id == run.workout.id }?.run)
            #expect(exported.samples == samples && exported.analysis == run.analysis)
            #expect(document.workouts.filter { $0.run == nil }.count == 1)
            // An operator's export (spotterctl export) writes the same.
            let admin = AdminService(
                store: PostgresAdminStore(pool: database.adminPool), hasher: PasswordHasher(cost: .testing),
                policy: AuthPolicy())
            let byOperator = try await admin.export(
                "ada", actor: AdminActor(operatorName: "ops", osUser: "root"), reason: "subject access request")
            #expect(byOperator.workouts.first { $0.id == run.workout.id }?.run == exported)

            let bob = try await database.lifter("bob")
            let report = try await training.transfer.importWorkouts(bob, format: .spotterJSON, unit: .kg, data: data)
            #expect(report.workoutsAdded == 2)
            #expect(
                report.notes == [
                    "1 run comes in as a workout: footsteps, positions and the run analysis are not imported"
                ])
        }
    }

    @Test("runs that share a start are paged by start and id: none is lost between pages")
    func pagingTies() async throws {
        try await TestDatabase.with { database in
            let runs = database.runService(clock: TestClock(now))
            let ada = try await database.lifter("ada")
            let start = now.addingTimeInterval(-3600)
            var logged: [WorkoutID] = []
            for _ in 0..<5 {
                logged.append(
                    try await runs.log(ada, id: "", RunDraft(startedAt: start, samples: Self.samples(minutes: 1)))
                        .workout.id)
            }
            var seen: [WorkoutID] = []
            var page = try await runs.list(ada, before: nil, limit: 2)
            while !page.isEmpty {
                seen += page.map(\.workout.id)
                let last = page[page.count - 1].workout
                page = try await runs.list(
                    ada, before: last.content.startedAt, beforeRunID: last.id.description, limit: 2)
            }
            #expect(seen.count == 5 && Set(seen) == Set(logged))
            await #expect(throws: SpotterError.invalid("before_run_id", "goes with before, the run's start")) {
                try await runs.list(ada, before: nil, beforeRunID: logged[0].description, limit: 2)
            }
        }
    }

    @Test("a run is analysed and logged as a workout of Run: in history, statistics and achievements as minutes")
    func runIsAWorkout() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let training = database.trainingServices(clock: clock)
            let runs = database.runService(clock: clock)
            let ada = try await database.lifter("ada")
            let samples = Self.samples(minutes: 30, pause: 20)
            let run = try await runs.log(
                ada, id: "", RunDraft(startedAt: now.addingTimeInterval(-3600), notes: "River loop", samples: samples))
            #expect(run.workout.content.name == "Run")
            #expect(run.analysis.pauses.count == 1 && run.analysis.pauses[0].seconds > 20)
            #expect(abs(run.analysis.cadence - 170) < 1)
            let set = try #require(run.workout.content.exercises.first?.sets.first)
            #expect(set.durationSeconds == Int(run.analysis.durationSeconds.rounded()))
            #expect(
                abs(Double(set.distanceMeters ?? 0) - 3 * run.analysis.movingSeconds) < 30,
                "3 m/s while moving: 5.34 km")
            #expect(try await runs.get(ada, id: run.workout.id.description) == run)
            let retried = try await runs.log(
                ada, id: run.workout.id.description,
                RunDraft(startedAt: now.addingTimeInterval(-3600), notes: "River loop", samples: samples))
            #expect(retried == run, "a retried log answers the stored run")
            // The same id with other footsteps is another run: refused under the request's field.
            var turned = samples
            turned[10].headingDegrees = 90
            await #expect(
                throws: SpotterError.alreadyExists(field: "run_id", reason: "is already used by a different run")
            ) {
                try await runs.log(
                    ada, id: run.workout.id.description,
                    RunDraft(startedAt: now.addingTimeInterval(-3600), notes: "River loop", samples: turned))
            }
            await #expect(
                throws: SpotterError.alreadyExists(field: "run_id", reason: "is already used by a different workout")
            ) {
                try await runs.log(
                    ada, id: run.workout.id.description,
                    RunDraft(
                        startedAt: now.addingTimeInterval(-3600), notes: "River loop",
                        samples: Array(samples.dropLast(200))))
            }

            // In history, statistics (cardio, active minutes) and achievements.
            let history = try await training.workouts.history(
                ada, from: nil, to: nil, text: "", pageSize: 10, pageToken: "")
            #expect(history.items.map(\.id) == [run.workout.id])
            let summary = try await training.activity.summary(ada, from: nil, to: nil)
            #expect(summary.totals.workouts == 1)
            #expect(summary.totals.activeMinutes == (set.durationSeconds! + 30) / 60, "to the nearest minute")
            // The category is Pro's advanced statistics.
            #expect(summary.totals.categories.isEmpty && summary.breakdownsLocked == .pro)
            try await database.setTier(ada, .pro)
            let pro = try await training.activity.summary(ada, from: nil, to: nil)
            #expect(pro.totals.categories.map(\.category) == [.cardio])
            let achievements = try await training.activity.achievements(ada)
            #expect(achievements.first { $0.key == "milestone:1" }?.earned?.workoutID == run.workout.id)
            #expect(try await runs.list(ada, before: nil, limit: 0).map(\.workout.id) == [run.workout.id])

            // Deleting the workout deletes the run.
            try await training.workouts.delete(ada, id: run.workout.id.description)
            await #expect(throws: SpotterError.notFound("run not found")) {
                try await runs.get(ada, id: run.workout.id.description)
            }
            #expect(try await runs.list(ada, before: nil, limit: 0).isEmpty)
        }
    }

    @Test(
        "a run's name, notes, start and its set's note and RPE can be edited; its exercise, time, distance and duration come from its footsteps and cannot; deleted, its footsteps go"
    )
    func editingARun() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let training = database.trainingServices(clock: clock)
            let runs = database.runService(clock: clock)
            let ada = try await database.lifter("ada")
            let run = try await runs.log(
                ada, id: "", RunDraft(startedAt: now.addingTimeInterval(-3600), samples: Self.samples(minutes: 5)))
            let id = run.workout.id.description
            // Renamed, with notes, by a whole replacement and by a patch: still the run.
            let draft = WorkoutDraft(
                name: "Park loop", startedAt: run.workout.content.startedAt,
                durationSeconds: run.workout.content.durationSeconds, notes: "windy",
                exercises: run.workout.content.exercises.map { exercise in
                    WorkoutExerciseDraft(
                        exerciseID: exercise.exerciseID.description,
                        sets: exercise.sets.map {
                            SetDraft(
                                reps: $0.reps, durationSeconds: $0.durationSeconds, distanceMeters: $0.distanceMeters)
                        })
                })
            _ = try await training.workouts.replace(ada, id: id, draft, expectedVersion: nil)
            _ = try await training.workouts.update(
                ada, id: id, WorkoutPatch(name: "Park loop (edited)"), expectedVersion: nil)
            let renamed = try await runs.get(ada, id: id)
            #expect(renamed.workout.content.name == "Park loop (edited)" && renamed.analysis == run.analysis)

            // Moved to another start, with a note and an RPE on its set, its duration patched to the
            // same: still the run.
            var restarted = draft
            restarted.startedAt = now.addingTimeInterval(-7200)
            restarted.exercises[0].sets[0].note = "hilly"
            restarted.exercises[0].sets[0].rpe = 7
            _ = try await training.workouts.replace(ada, id: id, restarted, expectedVersion: nil)
            _ = try await training.workouts.update(
                ada, id: id, WorkoutPatch(durationSeconds: run.workout.content.durationSeconds), expectedVersion: nil)
            let edited = try await runs.get(ada, id: id)
            #expect(edited.workout.content.startedAt == restarted.startedAt && edited.analysis == run.analysis)
            #expect(edited.workout.content.exercises[0].sets[0].note == "hilly")

            // Squats in its place, another distance, or another duration: refused naming the field,
            // nothing changed.
            var squats = restarted
            squats.exercises = [
                WorkoutExerciseDraft(
                    exerciseID: Catalog.squat.description,
                    sets: [SetDraft(reps: 5, weight: WeightDraft(value: 100, unit: .kg))])
            ]
            var farther = restarted
            farther.exercises[0].sets[0].distanceMeters = 10_000
            var longer = restarted
            longer.durationSeconds = 9999
            let reason =
                "a run's exercise, time, distance and duration come from its footsteps: change its name, notes or start, or delete the run and log it again"
            for (changed, field) in [
                (squats, "workout.exercises"), (farther, "workout.exercises"), (longer, "workout.duration_seconds"),
            ] {
                await #expect(throws: SpotterError.invalid(field, reason)) {
                    try await training.workouts.replace(ada, id: id, changed, expectedVersion: nil)
                }
            }
            await #expect(throws: SpotterError.invalid("duration_seconds", reason)) {
                try await training.workouts.update(
                    ada, id: id, WorkoutPatch(durationSeconds: 9999), expectedVersion: nil)
            }
            // From a device: the push answers the mutation rejected, naming the field.
            let sync = database.syncService(clock: clock)
            var device = try await SimulatedDevice.register(sync, ada, label: "phone")
            let pushed = try await device.push(
                sync, [device.put(.workout(squats), run.workout.id.rawValue, base: edited.workout.version)])
            #expect(pushed.map(\.status) == [.rejected])
            #expect(
                pushed.first?.violations == [FieldViolation(field: "mutations[0].workout.exercises", reason: reason)])
            #expect(try await runs.get(ada, id: id) == edited)

            // Deleted, its footsteps and positions go at once.
            try await training.workouts.delete(ada, id: id)
            #expect(try await database.count("SELECT count(*)::int FROM runs") == 0)
        }
    }

    @Test("bad samples and fields are refused together, each named, and nothing is stored")
    func refusals() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let runs = database.runService(clock: clock)
            let ada = try await database.lifter("ada")
            var samples = Self.samples(minutes: 2)
            samples[17].offsetMilliseconds = samples[16].offsetMilliseconds
            samples[40].latitude = nil
            let refusal = await #expect(throws: SpotterError.self) {
                try await runs.log(
                    ada, id: "", RunDraft(name: String(repeating: "x", count: 101), startedAt: nil, samples: samples))
            }
            guard case .invalidArgument(let violations) = refusal else {
                Issue.record("expected a refusal, got \(String(describing: refusal))")
                return
            }
            let fields = Set(violations.map(\.field))
            #expect(fields.contains("samples[17].offset_ms"), "\(violations)")
            #expect(fields.contains { $0.hasPrefix("samples[40]") }, "\(violations)")
            #expect(fields.contains("name") && fields.contains("started_at"))
            #expect(try await runs.list(ada, before: nil, limit: 0).isEmpty)
        }
    }

    @Test("a coach reads a client's run with the details scope only")
    func coachScope() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let coaching = database.coachingService(clock: clock)
            let runs = database.runService(clock: clock)
            let ada = try await database.lifter("ada")
            let cora = try await database.lifter("cora", kind: .coach)
            _ = try await coaching.link(cora, ada, scopes: ["history"])
            let run = try await runs.log(
                ada, id: "", RunDraft(startedAt: now.addingTimeInterval(-600), samples: Self.samples(minutes: 3)))
            await #expect(
                throws: SpotterError.scopeNotGranted("ada has not granted you the details scope", scope: .details)
            ) {
                try await runs.clientRun(cora, client: ada.tenantID.description, id: run.workout.id.description)
            }
            _ = try await coaching.setScopes(ada, coach: cora.tenantID.description, scopes: ["history", "details"])
            let seen = try await runs.clientRun(cora, client: ada.tenantID.description, id: run.workout.id.description)
            #expect(seen.analysis == run.analysis)
            // Ada's access log names the run that was read.
            let entry = try #require(
                try await coaching.accessLog(ada, coach: "", pageSize: 1, pageToken: "").items.first)
            #expect(entry.method == "GetClientRun" && entry.workout?.id == run.workout.id)
            #expect(entry.workout?.name == "Run")
        }
    }
}
