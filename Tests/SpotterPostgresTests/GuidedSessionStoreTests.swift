import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Synchronization
import Testing

@Suite("Guided sessions on PostgreSQL")
struct GuidedSessionStoreTests {
    /// 2026-09-21 12:00 UTC, a Monday.
    private let now = Date(timeIntervalSince1970: 1_790_000_000)

    private func services(_ database: TestDatabase, _ clock: TestClock)
        -> (TrainingServices, CoachingService, GuidedSessionService)
    {
        let training = database.trainingServices(clock: clock)
        let coaching = database.coachingService(clock: clock)
        let sessions = database.guidedSessionService(clock: clock)
        return (training, coaching, sessions)
    }

    private static let legs = TemplateDraft(
        name: "Legs",
        items: [
            TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 3, repsMin: 5, restSeconds: 120),
            TemplateItemDraft(exerciseID: Catalog.deadlift.description, targetSets: 1, repsMin: 5),
        ])

    private static func set(_ kilograms: Double, reps: Int = 5) -> SetDraft {
        SetDraft(reps: reps, weight: WeightDraft(value: kilograms, unit: .kg))
    }

    /// Ada, who squatted 100 kg × 5 a week ago, and her `legs` template.
    private func lifterWithSquatHistory(_ database: TestDatabase, _ training: TrainingServices) async throws
        -> (Principal, Template)
    {
        let ada = try await database.lifter("ada")
        _ = try await training.workouts.log(
            ada, id: "",
            workoutDraft("Old", at: now.addingTimeInterval(-7 * 86_400), exercises: [Catalog.squat], kilograms: 100))
        return (ada, try await training.templates.create(ada, id: "", Self.legs))
    }

    @Test(
        "a template item's rep range stays with its planned sets: the bottom beside the top; a single number has none")
    func plannedRepRange() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let (training, _, sessions) = services(database, clock)
            let ada = try await database.lifter("ada")
            let template = try await training.templates.create(
                ada, id: "",
                TemplateDraft(
                    name: "Arms",
                    items: [
                        TemplateItemDraft(
                            exerciseID: Catalog.squat.description, targetSets: 2, repsMin: 8, repsMax: 12),
                        TemplateItemDraft(exerciseID: Catalog.deadlift.description, targetSets: 1, repsMin: 5),
                    ]))
            let started = try await sessions.start(ada, id: "", .template(template.id.description))
            let read = try await sessions.get(ada, id: started.id.description)
            #expect(read.exercises[0].sets.map(\.plannedRepsMin) == [8, 8])
            #expect(read.exercises[0].sets.map(\.planned.reps) == [12, 12])
            #expect(read.exercises[1].sets.map(\.plannedRepsMin) == [nil])
        }
    }

    @Test("a corrected set is judged again, and so is every set after it, in the session's order")
    func correctedRecords() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let (training, _, sessions) = services(database, clock)
            let (ada, template) = try await lifterWithSquatHistory(database, training)
            let id = try await sessions.start(ada, id: "", .template(template.id.description)).id.description
            func flags() async throws -> [Bool] {
                try await sessions.get(ada, id: id).exercises[0].sets.map(\.isRecord)
            }
            for (set, kilograms) in [(0, 100.0), (1, 110), (2, 105)] {
                _ = try await sessions.recordSet(ada, id: id, exercise: 0, set: set, Self.set(kilograms))
            }
            #expect(try await flags() == [false, true, false])
            // 110 corrected to 102: still above the history's 100, and now 105 beats it too.
            _ = try await sessions.recordSet(ada, id: id, exercise: 0, set: 1, Self.set(102))
            #expect(try await flags() == [false, true, true])
            #expect(try await sessions.get(ada, id: id).records == 2)
            // The first set corrected to 120: it is the record, and nothing after it beats it.
            _ = try await sessions.recordSet(ada, id: id, exercise: 0, set: 0, Self.set(120))
            #expect(try await flags() == [true, false, false])
        }
    }

    @Test("a record's estimated max counts reps in reserve, in history and in the session, as progress does")
    func recordsCountRepsInReserve() async throws {
        try await TestDatabase.with { database in
            let (training, _, sessions) = services(database, TestClock(now))
            let ada = try await database.lifter("ada")
            // 100 kg × 5 at RPE 6 is 9 reps: 130 kg.
            _ = try await training.workouts.log(
                ada, id: "",
                WorkoutDraft(
                    name: "Old", startedAt: now.addingTimeInterval(-7 * 86_400), durationSeconds: 3600,
                    exercises: [
                        WorkoutExerciseDraft(
                            exerciseID: Catalog.squat.description,
                            sets: [SetDraft(reps: 5, weight: WeightDraft(value: 100, unit: .kg), rpe: 6)])
                    ]))
            let template = try await training.templates.create(ada, id: "", Self.legs)
            let id = try await sessions.start(ada, id: "", .template(template.id.description)).id.description
            _ = try await sessions.recordSet(ada, id: id, exercise: 0, set: 0, Self.set(100, reps: 8))
            _ = try await sessions.recordSet(
                ada, id: id, exercise: 0, set: 1, SetDraft(reps: 6, weight: WeightDraft(value: 100, unit: .kg), rpe: 6))
            #expect(
                try await sessions.get(ada, id: id).exercises[0].sets.map(\.isRecord) == [false, true, false],
                "100 × 8 is 126.7 kg, under 130; 100 × 6 at RPE 6 is 10 reps, 133.3 kg")
        }
    }

    @Test("from a template: sets done with records against history, paused, completed into one workout")
    func templateSessionToWorkout() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let (training, _, sessions) = services(database, clock)
            let (ada, template) = try await lifterWithSquatHistory(database, training)
            let started = try await sessions.start(ada, id: "", .template(template.id.description))
            #expect(started.exercises.map(\.name) == ["Barbell Back Squat", "Barbell Deadlift"])
            #expect(started.plannedSets == 4 && started.source == .template && started.templateID == template.id)
            let retried = try await sessions.start(ada, id: started.id.description, .template(template.id.description))
            #expect(retried.id == started.id && retried.version == started.version, "a retried start")
            await #expect(throws: SpotterError.self) {
                try await sessions.start(ada, id: "", .empty(name: "Another"))
            }

            clock.advance(by: 60)
            var session = try await sessions.recordSet(
                ada, id: started.id.description, exercise: 0, set: 0, Self.set(100))
            #expect(session.exercises[0].sets[0].isRecord == false, "100 kg × 5 was done before")
            #expect(session.timer?.kind == .rest && session.timer?.endsAt == clock.now.addingTimeInterval(120))
            clock.advance(by: 150)
            session = try await sessions.recordSet(ada, id: started.id.description, exercise: 0, set: 1, Self.set(105))
            #expect(session.exercises[0].sets[1].isRecord, "heavier than history")
            clock.advance(by: 150)
            session = try await sessions.recordSet(ada, id: started.id.description, exercise: 0, set: 2, Self.set(105))
            #expect(!session.exercises[0].sets[2].isRecord, "equal to this session's own earlier set")
            session = try await sessions.pause(ada, id: started.id.description)
            clock.advance(by: 600)
            session = try await sessions.resume(ada, id: started.id.description)
            clock.advance(by: 40)
            session = try await sessions.skipSet(ada, id: started.id.description, exercise: 1, set: 0)
            #expect(session.progress == 0.75 && session.records == 1 && session.score == 60 + 10)

            // Bad input names the field and changes nothing.
            await #expect(throws: SpotterError.invalid("actual.reps", "must be between 0 and 1000")) {
                try await sessions.recordSet(
                    ada, id: started.id.description, exercise: 1, set: 0, Self.set(100, reps: -1))
            }
            #expect(try await sessions.get(ada, id: started.id.description) == session)

            let (completed, workout) = try await sessions.complete(ada, id: started.id.description)
            // Its id starts nothing new once it is closed, and says so.
            await #expect(
                throws: SpotterError.alreadyExists(
                    field: "session_id",
                    reason: "is the id of a session already completed; send a new id (or none) to start another")
            ) { try await sessions.start(ada, id: started.id.description, .empty(name: "Again")) }
            #expect(completed.status == .completed && workout.id.rawValue == started.id.rawValue)
            #expect(workout.content.durationSeconds == 400, "60 + 150 + 150 + 40 s, the 600 s pause left out")
            #expect(workout.content.templateID == template.id)
            #expect(workout.content.exercises.map(\.sets.count) == [3], "the skipped deadlift is not in the workout")
            let history = try await training.workouts.history(
                ada, from: nil, to: nil, text: "", pageSize: 10, pageToken: "")
            #expect(history.items.count == 2)
            // Completing again answers the same; anything else is refused.
            let (again, same) = try await sessions.complete(ada, id: started.id.description)
            #expect(again == completed && same.id == workout.id && same.version == workout.version)
            await #expect(throws: SpotterError.failedPrecondition("the session is completed; start a new one")) {
                try await sessions.pause(ada, id: started.id.description)
            }
            // A new session may start now.
            #expect(try await sessions.start(ada, id: "", .empty(name: "")).name == "Workout")
        }
    }

    @Test("ten concurrent completes from two devices write the workout once and all answer it")
    func completeExactlyOnce() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let (training, _, sessions) = services(database, clock)
            let ada = try await database.lifter("ada")
            let template = try await training.templates.create(ada, id: "", Self.legs)
            let session = try await sessions.start(ada, id: "", .template(template.id.description))
            _ = try await sessions.recordSet(ada, id: session.id.description, exercise: 0, set: 0, Self.set(100))
            clock.advance(by: 300)
            let workouts = try await withThrowingTaskGroup(of: WorkoutID.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await sessions.complete(ada, id: session.id.description).1.id }
                }
                return try await group.reduce(into: [WorkoutID]()) { $0.append($1) }
            }
            #expect(Set(workouts) == [WorkoutID(rawValue: session.id.rawValue)] && workouts.count == 10)
            let stored = try await database.asOwner { connection in
                try await connection.query(
                    "SELECT count(*)::int AS n FROM workouts WHERE tenant_id = $1", [ada.tenantID.rawValue]
                ).single?.decode("n", as: Int.self)
            }
            #expect(stored == 1)
            // The workout is a workout like any other: in the feed, deletable.
            try await training.workouts.delete(ada, id: session.id.description)
            let (completed, _) = try await (sessions.get(ada, id: session.id.description), ())
            #expect(completed.status == .completed)
        }
    }

    @Test("today's program day, an empty session built as it goes, and a rest day refused")
    func programDayAndEmpty() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let (training, coaching, sessions) = services(database, clock)
            let ada = try await database.lifter("ada")
            await #expect(
                throws: SpotterError.failedPrecondition(
                    "you follow no program; start from a template or an empty session")
            ) {
                try await sessions.start(ada, id: "", .programDay)
            }
            let template = try await training.templates.create(ada, id: "", Self.legs)
            let program = try await coaching.createProgram(
                ada, id: "",
                ProgramDraft(
                    name: "Monday legs", weeks: 1,
                    days: [.init(week: 1, weekday: 1, templateID: template.id.description)]))
            _ = try await coaching.follow(ada, programID: program.id.description, startOn: "")
            let today = try await sessions.start(ada, id: "", .programDay)
            #expect(today.source == .programDay && today.templateID == template.id && today.plannedSets == 4)
            _ = try await sessions.abandon(ada, id: today.id.description)
            clock.advance(by: 86_400)  // Tuesday: rest.
            await #expect(throws: SpotterError.failedPrecondition("today (2026-09-22) is a rest day in Monday legs")) {
                try await sessions.start(ada, id: "", .programDay)
            }
            // A program of one week started a week ago has ended; one starting next week has not begun.
            clock.advance(by: 6 * 86_400)  // the next Monday
            await #expect(
                throws: SpotterError.failedPrecondition(
                    "Monday legs ended on 2026-09-27; follow it again or another program to train from one")
            ) { try await sessions.start(ada, id: "", .programDay) }
            _ = try await coaching.follow(ada, programID: program.id.description, startOn: "2026-10-05")
            await #expect(
                throws: SpotterError.failedPrecondition(
                    "Monday legs starts on 2026-10-05; today (2026-09-28) is before it")
            ) { try await sessions.start(ada, id: "", .programDay) }

            let empty = try await sessions.start(ada, id: "", .empty(name: "Garage"))
            await #expect(
                throws: SpotterError.failedPrecondition("no set is done yet: record a set, or abandon the session")
            ) {
                try await sessions.complete(ada, id: empty.id.description)
            }
            var session = try await sessions.addExercise(
                ada, id: empty.id.description, exerciseID: Catalog.benchPress.description,
                sets: [Self.set(80), Self.set(80)])
            #expect(session.exercises.map(\.name) == ["Barbell Bench Press"] && session.plannedSets == 2)
            session = try await sessions.addSet(ada, id: empty.id.description, exercise: 0, nil)
            #expect(session.plannedSets == 3)
            // With the version the app saw, a retry after a lost answer adds nothing a second time.
            let seen = session.version
            session = try await sessions.addSet(ada, id: empty.id.description, exercise: 0, nil, expectedVersion: seen)
            #expect(session.plannedSets == 4)
            let moved = SpotterError.failedPrecondition(
                "expected_version: the session is at version \(seen + 1), not \(seen); read it again (a call you retried may have been applied)"
            )
            await #expect(throws: moved) {
                try await sessions.addSet(ada, id: empty.id.description, exercise: 0, nil, expectedVersion: seen)
            }
            await #expect(throws: moved) {
                try await sessions.addExercise(
                    ada, id: empty.id.description, exerciseID: Catalog.squat.description, sets: [Self.set(100)],
                    expectedVersion: seen)
            }
            #expect(try await sessions.get(ada, id: empty.id.description).plannedSets == 4)
            // A plank (a timed set) recorded with nothing: it takes the time its work timer ran, no reps.
            session = try await sessions.addExercise(
                ada, id: empty.id.description, exerciseID: "c0000000-0000-4000-8000-000000000077",
                sets: [SetDraft(reps: nil, durationSeconds: 60), SetDraft(reps: nil, durationSeconds: 60)])
            _ = try await sessions.startSet(ada, id: empty.id.description, exercise: 1, set: 0)
            clock.advance(by: 45)
            session = try await sessions.recordSet(
                ada, id: empty.id.description, exercise: 1, set: 0, SetDraft(reps: nil))
            let plank = try #require(session.exercises[1].sets[0].actual)
            #expect(plank.durationSeconds == 45 && plank.reps == 0)
            // Without a running timer there is no time to take: the set is refused, naming what it lacks.
            await #expect(
                throws: SpotterError.invalid("actual.reps", "is required unless the set has a duration or a distance")
            ) { try await sessions.recordSet(ada, id: empty.id.description, exercise: 1, set: 1, SetDraft(reps: nil)) }
            await #expect(throws: SpotterError.self) {
                try await sessions.addExercise(ada, id: empty.id.description, exerciseID: "not-a-uuid", sets: [])
            }
        }
    }

    @Test("an idle day abandons a session: on the next read, and by the sweep for sessions nobody reads")
    func idleSessionsAreAbandoned() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let (_, _, sessions) = services(database, clock)
            let ada = try await database.lifter("ada")
            let bea = try await database.lifter("bea")
            let first = try await sessions.start(ada, id: "", .empty(name: "A"))
            let second = try await sessions.start(bea, id: "", .empty(name: "B"))
            clock.advance(by: 86_400 + 1)
            let read = try await sessions.get(ada, id: first.id.description)
            #expect(read.status == .abandoned && read.endedAt == first.startedAt.addingTimeInterval(86_400))
            // Bea's is closed by the sweep (spotterd's SessionSweeper), without anyone reading it.
            let closed = try await SpotterDatabase(pool: database.appPool).abandonStaleSessions(now: clock.now)
            #expect(closed == 1)
            let status = try await database.asOwner { connection in
                try await connection.query(
                    "SELECT status FROM guided_sessions WHERE tenant_id = $1", [bea.tenantID.rawValue]
                ).single?.decode("status", as: String.self)
            }
            #expect(status == "abandoned")
            #expect(try await sessions.get(bea, id: second.id.description).status == .abandoned)
            // A new one may start.
            _ = try await sessions.start(ada, id: "", .empty(name: "Again"))
        }
    }

    @Test("a coach follows a client's session with the details scope only, and loses it with the scope")
    func coachFollowsWithDetails() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let (_, coaching, sessions) = services(database, clock)
            let ada = try await database.lifter("ada")
            let cora = try await database.lifter("cora", kind: .coach)
            _ = try await coaching.link(cora, ada, scopes: ["history"])
            let session = try await sessions.start(ada, id: "", .empty(name: "Push"))
            await #expect(
                throws: SpotterError.scopeNotGranted("ada has not granted you the details scope", scope: .details)
            ) {
                try await sessions.clientSession(cora, client: ada.tenantID.description, id: session.id.description)
            }
            _ = try await coaching.setScopes(ada, coach: cora.tenantID.description, scopes: ["history", "details"])
            let seen = try await sessions.clientSession(
                cora, client: ada.tenantID.description, id: session.id.description)
            #expect(seen.id == session.id)
            #expect(try await sessions.followClientSession(cora, client: ada.tenantID, id: session.id) != nil)
            // Another lifter's session id is simply not found, as a missing one.
            let bea = try await database.lifter("bea")
            let hers = try await sessions.start(bea, id: "", .empty(name: "Pull"))
            await #expect(throws: SpotterError.self) {
                try await sessions.clientSession(cora, client: ada.tenantID.description, id: hers.id.description)
            }
            #expect(try await sessions.followClientSession(cora, client: bea.tenantID, id: hers.id) == nil)
            // Scope taken back: the next read finds nothing.
            _ = try await coaching.setScopes(ada, coach: cora.tenantID.description, scopes: ["history"])
            #expect(try await sessions.followClientSession(cora, client: ada.tenantID, id: session.id) == nil)
            // The coach cannot change it, even while following.
            await #expect(throws: SpotterError.self) {
                try await sessions.pause(cora.clientView(of: ada.tenantID), id: session.id.description)
            }
            #expect(try await sessions.get(ada, id: session.id.description).status == .active)
        }
    }

    @Test("a circuit template's rounds come with the session and the last station starts the round's rest")
    func circuitSession() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let (training, _, sessions) = services(database, clock)
            let ada = try await database.lifter("ada")
            let template = try await training.templates.create(
                ada, id: "",
                TemplateDraft(
                    name: "Circuit",
                    items: [
                        TemplateItemDraft(
                            exerciseID: Catalog.squat.description, targetSets: 1, repsMin: 10, circuit: 1),
                        TemplateItemDraft(
                            exerciseID: Catalog.benchPress.description, targetSets: 1, repsMin: 10, circuit: 1),
                    ],
                    circuits: [TemplateCircuit(rounds: 3, restSeconds: 75)]))
            let started = try await sessions.start(ada, id: "", .template(template.id.description))
            #expect(started.plannedSets == 6 && started.circuits == [TemplateCircuit(rounds: 3, restSeconds: 75)])
            _ = try await sessions.recordSet(
                ada, id: started.id.description, exercise: 0, set: 0, Self.set(60, reps: 10))
            let afterRound = try await sessions.recordSet(
                ada, id: started.id.description, exercise: 1, set: 0, Self.set(40, reps: 10))
            #expect(afterRound.timer?.kind == .rest && afterRound.timer?.durationSeconds == 75)
            #expect(try await sessions.get(ada, id: started.id.description).circuits == started.circuits)
        }
    }
}
