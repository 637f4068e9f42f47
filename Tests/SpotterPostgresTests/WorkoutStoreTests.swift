import Foundation
import Postgres
import SpotterCore
import SpotterTestSupport
import Testing

@Suite("Workouts on PostgreSQL")
struct WorkoutStoreTests {
    private let start = Date(timeIntervalSince1970: 1_790_000_000)

    @Test("a logged workout is stored whole; a retry with the same id and content returns it, other content is refused")
    func logIsIdempotent() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let id = WorkoutID.random().description
            let draft = workoutDraft(at: start, exercises: [Catalog.squat, Catalog.benchPress], sets: 5)
            let logged = try await training.workouts.log(ada, id: id, draft)
            #expect(logged.version == 1)
            #expect(logged.summary.setCount == 10)
            #expect(logged.exerciseNames[Catalog.squat] == "Barbell Back Squat")

            let retried = try await training.workouts.log(ada, id: id, draft)
            #expect(retried.id == logged.id)
            #expect(retried.content == logged.content)
            #expect(try await database.count("SELECT count(*)::int FROM workouts") == 1)
            #expect(try await database.count("SELECT count(*)::int FROM workout_sets") == 10)

            var changed = draft
            changed.exercises[0].sets[0].reps = 6
            await #expect(
                throws: SpotterError.alreadyExists(
                    field: "workout_id", reason: "is already used by a different workout")
            ) { try await training.workouts.log(ada, id: id, changed) }
            #expect(try await database.count("SELECT count(*)::int FROM workout_sets WHERE reps = 6") == 0)
        }
    }

    @Test("eight identical creates sent at once (a client retrying in parallel) all answer the stored object")
    func concurrentRetries() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let workoutID = WorkoutID.random().description
            let draft = workoutDraft(at: start, exercises: [Catalog.squat, Catalog.benchPress], sets: 5)
            let templateID = UUID().uuidString.lowercased()
            let template = TemplateDraft(
                name: "Day A",
                items: [TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 3, repsMin: 5)])
            let exerciseID = UUID().uuidString.lowercased()
            let exercise = ExerciseDraft(
                name: "Zercher Squat", category: .squat, muscleGroup: .quadriceps, equipment: .barbell, instructions: ""
            )
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask { "workout \(try await training.workouts.log(ada, id: workoutID, draft).version)" }
                    group.addTask {
                        "template \(try await training.templates.create(ada, id: templateID, template).version)"
                    }
                    group.addTask {
                        "exercise \(try await training.exercises.create(ada, id: exerciseID, exercise).custom?.version ?? 0)"
                    }
                }
                return try await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
            }
            #expect(answers == ["workout 1": 8, "template 1": 8, "exercise 1": 8])
            #expect(try await database.count("SELECT count(*)::int FROM workouts") == 1)
            #expect(try await database.count("SELECT count(*)::int FROM workout_sets") == 10)
            #expect(try await database.count("SELECT count(*)::int FROM templates") == 1)
        }
    }

    @Test("unknown exercises and templates are refused naming their paths, and nothing is written")
    func unknownReferences() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            var draft = workoutDraft(at: start, exercises: [Catalog.squat, .random(), Catalog.deadlift, .random()])
            let error = await #expect(throws: SpotterError.self) { try await training.workouts.log(ada, id: "", draft) }
            #expect(
                error
                    == .invalidArgument([
                        FieldViolation(field: "workout.exercises[1].exercise_id", reason: "no such exercise"),
                        FieldViolation(field: "workout.exercises[3].exercise_id", reason: "no such exercise"),
                    ]))
            // With another field wrong too, one refusal names them all: the exercises are not left
            // for a second round.
            draft.exercises[0].sets[0].rpe = 11
            let both = await #expect(throws: SpotterError.self) { try await training.workouts.log(ada, id: "", draft) }
            guard case .invalidArgument(let violations)? = both else { return }
            #expect(
                violations.map(\.field) == [
                    "workout.exercises[0].sets[0].rpe", "workout.exercises[1].exercise_id",
                    "workout.exercises[3].exercise_id",
                ], "\(violations)")
            draft = workoutDraft(at: start)
            draft.templateID = TemplateID.random().description
            await #expect(throws: SpotterError.invalid("workout.template_id", "no such template")) {
                try await training.workouts.log(ada, id: "", draft)
            }
            #expect(try await database.count("SELECT count(*)::int FROM workouts") == 0)
            #expect(try await database.count("SELECT count(*)::int FROM workout_sets") == 0)
            #expect(try await database.count("SELECT count(*)::int FROM sync_changes WHERE kind = 'workout'") == 0)

            // So does a replacement.
            let bob = try await database.lifter("bob")
            let logged = try await training.workouts.log(bob, id: "", workoutDraft(at: start))
            var wrong = workoutDraft(at: start, exercises: [Catalog.squat, .random()])
            wrong.exercises[0].sets[0].rpe = 11
            let replaced = await #expect(throws: SpotterError.self) {
                try await training.workouts.replace(bob, id: logged.id.description, wrong, expectedVersion: nil)
            }
            guard case .invalidArgument(let again)? = replaced else { return }
            #expect(
                again.map(\.field) == ["workout.exercises[0].sets[0].rpe", "workout.exercises[1].exercise_id"],
                "\(again)")
        }
    }

    @Test("pounds are stored as exact kilograms, and warm-up sets are kept but not counted")
    func unitsAndWarmUps() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let draft = WorkoutDraft(
                name: "Legs",
                startedAt: start,
                durationSeconds: 3000,
                exercises: [
                    WorkoutExerciseDraft(
                        exerciseID: Catalog.squat.description,
                        sets: [
                            SetDraft(reps: 5, weight: WeightDraft(value: 135, unit: .lb), type: .warmUp),
                            SetDraft(reps: 5, weight: WeightDraft(value: 225, unit: .lb), rpe: 8),
                            SetDraft(reps: 3, weight: WeightDraft(value: 232.5, unit: .lb), rpe: 9.5, restSeconds: 180),
                        ])
                ])
            let logged = try await training.workouts.log(ada, id: "", draft)
            let stored = try await training.workouts.get(ada, id: logged.id.description)
            #expect(stored.content == logged.content)
            #expect(stored.content.exercises[0].sets[1].weight?.value(in: .lb) == 225)
            #expect(stored.content.exercises[0].sets[2].weight?.value(in: .lb) == Decimal(string: "232.5"))
            #expect(stored.content.exercises[0].sets[0].type == .warmUp)
            #expect(stored.summary.setCount == 2)
            #expect(stored.summary.repCount == 8)
            #expect(stored.summary.volume.value(in: .lb) == Decimal(225 * 5) + Decimal(string: "697.5")!)
            let kilograms = try await database.ownerConnection().query(
                "SELECT weight_kg::text FROM workout_sets ORDER BY position"
            ).map { try $0.decode(0) as String }
            #expect(kilograms == ["61.234970", "102.058283", "105.460226"])
        }
    }

    @Test("replace and patch bump the version; a stale expected version changes nothing")
    func editing() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let logged = try await training.workouts.log(ada, id: "", workoutDraft(at: start))
            let id = logged.id.description

            let replaced = try await training.workouts.replace(
                ada, id: id, workoutDraft("Bench only", at: start, sets: 1, reps: 3, kilograms: 110),
                expectedVersion: 1)
            #expect(replaced.version == 2)
            #expect(replaced.content.exercises[0].sets.count == 1)
            #expect(try await database.count("SELECT count(*)::int FROM workout_sets") == 1)

            let later = start.addingTimeInterval(-86_400)
            let patched = try await training.workouts.update(
                ada, id: id, WorkoutPatch(name: "  Heavy bench ", startedAt: later), expectedVersion: nil)
            #expect(patched.version == 3)
            #expect(patched.content.name == "Heavy bench")
            #expect(patched.content.startedAt == later)
            #expect(
                try await database.count("SELECT count(*)::int FROM workout_sets WHERE started_at = $1", [later]) == 1)

            await #expect(throws: SpotterError.self) {
                try await training.workouts.update(ada, id: id, WorkoutPatch(name: "Lost"), expectedVersion: 2)
            }
            await #expect(throws: SpotterError.invalid("name", "is required")) {
                try await training.workouts.update(ada, id: id, WorkoutPatch(name: " "), expectedVersion: nil)
            }
            #expect(try await training.workouts.get(ada, id: id).content.name == "Heavy bench")

            // A patch that changes nothing (empty, or the values it has) makes no version and no
            // change in the sync feed; a stale expected version is still refused.
            let feed = "SELECT count(*)::int FROM sync_changes"
            let changes = try await database.count(feed)
            for patch in [WorkoutPatch(), WorkoutPatch(name: "Heavy bench", startedAt: later)] {
                #expect(try await training.workouts.update(ada, id: id, patch, expectedVersion: nil).version == 3)
                #expect(try await training.workouts.update(ada, id: id, patch, expectedVersion: 3).version == 3)
                await #expect(throws: SpotterError.self) {
                    try await training.workouts.update(ada, id: id, patch, expectedVersion: 2)
                }
            }
            #expect(try await database.count(feed) == changes)
            // A bad id and bad content are refused together, every field named.
            var bad = workoutDraft(at: start)
            bad.durationSeconds = -1
            await #expect(
                throws: SpotterError.invalidArgument([
                    FieldViolation(field: "workout_id", reason: "must be a UUID"),
                    FieldViolation(field: "workout.duration_seconds", reason: "must be between 0 and 86400 seconds"),
                ])
            ) { try await training.workouts.log(ada, id: "not-a-uuid", bad) }
            await #expect(
                throws: SpotterError.invalidArgument([
                    FieldViolation(field: "workout_id", reason: "must be a UUID"),
                    FieldViolation(field: "duration_seconds", reason: "must be between 0 and 86400 seconds"),
                ])
            ) {
                try await training.workouts.update(
                    ada, id: "not-a-uuid", WorkoutPatch(durationSeconds: -1), expectedVersion: nil)
            }
            // A Timestamp left at its default (unix_micros 0) is no start, not 1970.
            let epoch = Date(timeIntervalSince1970: 0)
            await #expect(
                throws: SpotterError.invalid("started_at", "must be set: unix_micros 0 is an unset timestamp")
            ) {
                try await training.workouts.update(ada, id: id, WorkoutPatch(startedAt: epoch), expectedVersion: nil)
            }
            await #expect(
                throws: SpotterError.invalid("workout.started_at", "must be set: unix_micros 0 is an unset timestamp")
            ) {
                try await training.workouts.log(ada, id: "", workoutDraft(at: epoch))
            }
        }
    }

    @Test("a deleted workout leaves a tombstone and disappears from history and progress at once")
    func deletion() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let logged = try await training.workouts.log(ada, id: "", workoutDraft(at: start))
            try await training.workouts.delete(ada, id: logged.id.description)
            // Its id stays a tombstone, and a log with it says so, even with the same content.
            await #expect(
                throws: SpotterError.alreadyExists(
                    field: "workout_id",
                    reason: "belongs to a deleted workout; ids are not reused, log it with a new one")
            ) { try await training.workouts.log(ada, id: logged.id.description, workoutDraft(at: start)) }
            await #expect(throws: SpotterError.notFound("workout not found")) {
                try await training.workouts.get(ada, id: logged.id.description)
            }
            await #expect(throws: SpotterError.notFound("workout not found")) {
                try await training.workouts.delete(ada, id: logged.id.description)
            }
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM workouts WHERE deleted_at IS NOT NULL AND version = 2") == 1)
            #expect(try await database.count("SELECT count(*)::int FROM workout_sets") == 0)
            let history = try await training.workouts.history(
                ada, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            #expect(history.items.isEmpty)
            let progress = try await training.progress.progress(
                ada, exerciseID: Catalog.benchPress.description, from: nil, to: nil, formula: .epley)
            #expect(progress.points.isEmpty)
        }
    }

    @Test("history is newest first in pages, filters by date and searches workout and exercise names")
    func history() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let empty = try await training.workouts.history(
                ada, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            #expect(empty.items.isEmpty && empty.nextToken.isEmpty)
            for day in 0..<25 {
                let exercises = day % 5 == 0 ? [Catalog.overheadPress] : [Catalog.squat]
                _ = try await training.workouts.log(
                    ada, id: "",
                    workoutDraft(
                        day % 2 == 0 ? "Even day" : "Odd day", at: start.addingTimeInterval(Double(-day) * 86_400),
                        exercises: exercises))
            }
            var seen: [Date] = []
            var token = ""
            repeat {
                let page = try await training.workouts.history(
                    ada, from: nil, to: nil, text: "", pageSize: 10, pageToken: token)
                seen += page.items.map(\.startedAt)
                token = page.nextToken
            } while !token.isEmpty
            #expect(seen.count == 25)
            #expect(seen == seen.sorted(by: >))

            let ranged = try await training.workouts.history(
                ada, from: start.addingTimeInterval(-4.5 * 86_400), to: start, text: "", pageSize: 100, pageToken: "")
            #expect(ranged.items.count == 4)
            let byName = try await training.workouts.history(
                ada, from: nil, to: nil, text: "ODD", pageSize: 100, pageToken: "")
            #expect(byName.items.count == 12)
            let byExercise = try await training.workouts.history(
                ada, from: nil, to: nil, text: "overhead", pageSize: 100, pageToken: "")
            #expect(byExercise.items.count == 5)
            #expect(byExercise.items[0].summary?.setCount == 3)
            // Every filter at once, paged: each combination is a statement of its own.
            var odd: [Date] = []
            token = ""
            repeat {
                let page = try await training.workouts.history(
                    ada, from: start.addingTimeInterval(-20.5 * 86_400), to: start, text: "odd", pageSize: 3,
                    pageToken: token)
                odd += page.items.map(\.startedAt)
                token = page.nextToken
            } while !token.isEmpty
            #expect(odd == (0..<10).map { start.addingTimeInterval(Double(-1 - 2 * $0) * 86_400) })
            let until = try await training.workouts.history(
                ada, from: nil, to: start.addingTimeInterval(-9.5 * 86_400), text: "", pageSize: 100, pageToken: "")
            #expect(until.items.count == 15)

            await #expect(throws: SpotterError.invalid("page.page_token", "is not a token this call returned")) {
                try await training.workouts.history(ada, from: nil, to: nil, text: "", pageSize: 0, pageToken: "nope!")
            }
            // A token is for the query that returned it: with other filters, or as another lifter,
            // it is refused instead of answering the rest of a list nobody asked for.
            let first = try await training.workouts.history(
                ada, from: nil, to: nil, text: "odd", pageSize: 2, pageToken: "")
            let otherQuery = SpotterError.invalid(
                "page.page_token",
                "was returned for another list, other filters or another account; ask for the first page (no page_token)"
            )
            await #expect(throws: otherQuery) {
                try await training.workouts.history(
                    ada, from: nil, to: nil, text: "even", pageSize: 2, pageToken: first.nextToken)
            }
            await #expect(throws: otherQuery) {
                try await training.workouts.history(
                    ada, from: start.addingTimeInterval(-86_400), to: nil, text: "odd", pageSize: 2,
                    pageToken: first.nextToken)
            }
            let bob = try await database.lifter("bob")
            await #expect(throws: otherQuery) {
                try await training.workouts.history(
                    bob, from: nil, to: nil, text: "odd", pageSize: 2, pageToken: first.nextToken)
            }
            // The same query with another page size goes on where the token left off.
            let next = try await training.workouts.history(
                ada, from: nil, to: nil, text: "odd", pageSize: 5, pageToken: first.nextToken)
            #expect(next.items.count == 5 && next.items.first?.startedAt ?? .distantFuture < first.items[1].startedAt)
        }
    }

    @Test("another tenant cannot read, change or reference a lifter's workouts, templates or custom exercises")
    func tenantIsolation() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let bob = try await database.lifter("bob")
            let custom = try await training.exercises.create(
                ada, id: "",
                ExerciseDraft(
                    name: "Zercher Squat", category: .squat, muscleGroup: .quadriceps, equipment: .barbell,
                    instructions: ""))
            let template = try await training.templates.create(
                ada, id: "",
                TemplateDraft(
                    name: "A", items: [TemplateItemDraft(exerciseID: custom.id.description, targetSets: 3, repsMin: 5)])
            )
            let workout = try await training.workouts.log(
                ada, id: "", workoutDraft(at: start, exercises: [custom.id, Catalog.squat]))
            let id = workout.id.description

            await #expect(throws: SpotterError.notFound("workout not found")) {
                try await training.workouts.get(bob, id: id)
            }
            await #expect(throws: SpotterError.self) {
                try await training.workouts.replace(bob, id: id, workoutDraft(at: start), expectedVersion: nil)
            }
            await #expect(throws: SpotterError.notFound("workout not found")) {
                try await training.workouts.delete(bob, id: id)
            }
            await #expect(throws: SpotterError.notFound("template not found")) {
                try await training.templates.get(bob, id: template.id.description)
            }
            await #expect(throws: SpotterError.notFound("exercise not found")) {
                try await training.exercises.get(bob, custom.id.description)
            }
            await #expect(
                throws: SpotterError.invalid("workout.exercises[0].exercise_id", "no such exercise")
            ) { try await training.workouts.log(bob, id: "", workoutDraft(at: start, exercises: [custom.id])) }
            // Reusing another tenant's workout id creates Bob's own workout; Ada's is untouched.
            _ = try await training.workouts.log(bob, id: id, workoutDraft("Bob's", at: start))
            #expect(try await training.workouts.get(ada, id: id).content.name == "Push day")

            let bobsCustom = try await training.exercises.list(
                bob, ExerciseFilter(customOnly: true), pageSize: 0, pageToken: "")
            #expect(bobsCustom.items.isEmpty)
            let bobsHistory = try await training.workouts.history(
                bob, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            #expect(bobsHistory.items.map(\.name) == ["Bob's"])
            let bobsSquat = try await training.progress.progress(
                bob, exerciseID: Catalog.squat.description, from: nil, to: nil, formula: .epley)
            #expect(bobsSquat.points.isEmpty)
            await #expect(throws: SpotterError.notFound("exercise not found")) {
                try await training.progress.progress(
                    bob, exerciseID: custom.id.description, from: nil, to: nil, formula: .epley)
            }
            let bobsStatistics = try await training.progress.statistics(
                bob, period: .day, from: start.addingTimeInterval(-86_400), to: start.addingTimeInterval(86_400))
            #expect(bobsStatistics.buckets.map(\.setCount) == [3])
            let adasStatistics = try await training.progress.statistics(
                ada, period: .day, from: start.addingTimeInterval(-86_400), to: start.addingTimeInterval(86_400))
            #expect(adasStatistics.buckets.map(\.setCount) == [6])
        }
    }
}
