import Foundation
import SpotterCore
import SpotterTestSupport
import Testing

@Suite("Exercises and templates on PostgreSQL")
struct ExerciseAndTemplateStoreTests {
    private let start = Date(timeIntervalSince1970: 1_790_000_000)

    private func zercher(_ name: String = "Zercher Squat") -> ExerciseDraft {
        ExerciseDraft(name: name, category: .squat, muscleGroup: .quadriceps, equipment: .barbell, instructions: "")
    }

    @Test("the built-in catalog holds at least 80 exercises every tenant can filter, search and page through")
    func catalog() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices()
            let ada = try await database.lifter("ada")
            var names: [String] = []
            var token = ""
            repeat {
                let page = try await training.exercises.list(ada, ExerciseFilter(), pageSize: 25, pageToken: token)
                names += page.items.map(\.name)
                token = page.nextToken
            } while !token.isEmpty
            #expect(names.count >= 80)
            #expect(names == names.sorted { $0.lowercased() < $1.lowercased() })
            let dumbbellChest = try await training.exercises.list(
                ada, ExerciseFilter(muscleGroup: .chest, equipment: .dumbbell), pageSize: 100, pageToken: "")
            #expect(!dumbbellChest.items.isEmpty)
            #expect(dumbbellChest.items.allSatisfy { $0.muscleGroup == .chest && $0.equipment == .dumbbell })
            let search = try await training.exercises.list(
                ada, ExerciseFilter(query: "  DEADLIFT "), pageSize: 100, pageToken: "")
            #expect(search.items.contains { $0.id == Catalog.deadlift })
            #expect(search.items.allSatisfy { $0.name.lowercased().contains("deadlift") })
            // Spaces and punctuation do not matter, words may come in any order, and gym shorthand
            // is spelled out; the literal words still match too.
            func found(_ query: String) async throws -> [String] {
                try await training.exercises.list(ada, ExerciseFilter(query: query), pageSize: 100, pageToken: "")
                    .items.map(\.name)
            }
            for query in ["pull up", "pullup", "PULL-UP", "pull_up"] {
                #expect(try await found(query).contains("Pull-Up"), "\(query)")
            }
            #expect(try await found("tbar").contains("T-Bar Row"))
            #expect(try await found("squat back").contains("Barbell Back Squat"))
            #expect(try await found("rdl").contains("Romanian Deadlift"))
            #expect(try await found("db rdl").contains("Dumbbell Romanian Deadlift"))
            #expect(try await found("ohp").contains("Overhead Press"))
            #expect(try await found("squat zzz").isEmpty, "every word must be in the name")
            // Short words and shorthand begin a word of the name: "bb" is barbell, not in
            // "Dumbbell"; "db" is not in "Dead Bug", nor "kb" in "Kickback".
            let barbell = try await found("bb bench")
            #expect(barbell.contains("Barbell Bench Press") && !barbell.contains("Dumbbell Bench Press"), "\(barbell)")
            #expect(!(try await found("db")).contains("Dead Bug"))
            #expect(!(try await found("kb")).contains { $0.contains("Kickback") })
            #expect(!(try await found("bb")).contains { $0.contains("Dumbbell") })
            #expect(try await found("farmer’s").contains("Farmer's Carry"), "a typographic apostrophe")
            // Plurals find the singular; "t bar" is T-Bar Row, not Barbell Hip Thrust.
            for (query, name) in [
                ("pull ups", "Pull-Up"), ("pullups", "Pull-Up"), ("squats", "Barbell Back Squat"),
                ("rows", "Barbell Row"), ("deadlifts", "Barbell Deadlift"), ("chin ups", "Chin-Up"),
            ] {
                #expect(try await found(query).contains(name), "\(query)")
            }
            let tBar = try await found("t bar")
            #expect(tBar.contains("T-Bar Row") && !tBar.contains("Barbell Hip Thrust"), "\(tBar)")
            #expect(try await found("press").contains("Overhead Press"), "a word ending in ss stays")
            #expect(try await found("presses").contains("Overhead Press"), "-sses loses its es")
            // A custom name in the plural is found by its own words, singular or plural.
            _ = try await training.exercises.create(
                ada, id: "",
                ExerciseDraft(
                    name: "Sit Ups", category: .core, muscleGroup: .abs, equipment: .bodyweight, instructions: ""))
            for query in ["sit ups", "sit up", "situps"] {
                #expect(try await found(query).contains("Sit Ups"), "\(query)")
            }
            #expect(try await found("-").count == min(names.count, 100), "a query of punctuation alone is no filter")
            let squat = try await training.exercises.get(ada, Catalog.squat.description)
            #expect(squat.bigThree == .squat && !squat.isCustom && !squat.instructions.isEmpty)
        }
    }

    @Test("custom exercises: a retried create returns the same one, names are unique, edits bump the version")
    func customExercises() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let id = ExerciseID.random().description
            let created = try await training.exercises.create(ada, id: id, zercher())
            #expect(created.custom?.version == 1)
            #expect(try await training.exercises.create(ada, id: id, zercher()) == created)
            await #expect(
                throws: SpotterError.alreadyExists(field: "exercise_id", reason: "is already used by another exercise")
            ) {
                try await training.exercises.create(ada, id: id, zercher("Other"))
            }
            await #expect(throws: SpotterError.alreadyExists(field: "exercise.name", reason: "is already taken")) {
                try await training.exercises.create(ada, id: "", zercher("zercher squat"))
            }
            await #expect(throws: SpotterError.self) {
                try await training.exercises.create(ada, id: Catalog.squat.description, zercher("Mine"))
            }
            let renamed = try await training.exercises.update(
                ada, id: id, zercher("Zercher Box Squat"), expectedVersion: 1)
            #expect(renamed.name == "Zercher Box Squat" && renamed.custom?.version == 2)
            await #expect(throws: SpotterError.self) {
                try await training.exercises.update(ada, id: id, zercher("Late"), expectedVersion: 1)
            }
            await #expect(
                throws: SpotterError.failedPrecondition("built-in exercises cannot be changed; create a custom one")
            ) {
                try await training.exercises.update(ada, id: Catalog.squat.description, zercher(), expectedVersion: nil)
            }
            let invalid = await #expect(throws: SpotterError.self) {
                try await training.exercises.create(
                    ada, id: "",
                    ExerciseDraft(name: "", category: nil, muscleGroup: nil, equipment: .band, instructions: ""))
            }
            #expect(
                invalid
                    == .invalidArgument([
                        FieldViolation(field: "exercise.name", reason: "is required"),
                        FieldViolation(field: "exercise.category", reason: "is required"),
                        FieldViolation(field: "exercise.muscle_group", reason: "is required"),
                    ]))
        }
    }

    @Test("an archived custom exercise leaves the list but stays in old workouts and can be restored")
    func archiving() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let custom = try await training.exercises.create(ada, id: "", zercher())
            let workout = try await training.workouts.log(ada, id: "", workoutDraft(at: start, exercises: [custom.id]))
            let archived = try await training.exercises.archive(ada, id: custom.id.description, archived: true)
            #expect(archived.isArchived)
            let listed = try await training.exercises.list(
                ada, ExerciseFilter(customOnly: true), pageSize: 0, pageToken: "")
            #expect(listed.items.isEmpty)
            let all = try await training.exercises.list(
                ada, ExerciseFilter(customOnly: true, includeArchived: true), pageSize: 0, pageToken: "")
            #expect(all.items.map(\.id) == [custom.id])
            let stored = try await training.workouts.get(ada, id: workout.id.description)
            #expect(stored.exerciseNames[custom.id] == "Zercher Squat")
            let restored = try await training.exercises.archive(ada, id: custom.id.description, archived: false)
            #expect(!restored.isArchived && restored.custom?.version == 3)
        }
    }

    @Test(
        "a workout prefilled from a template takes the weights of the last time each exercise was done, set by set, warm-ups left out"
    )
    func prefillWithLastWeights() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let template = try await training.templates.create(
                ada, id: "",
                TemplateDraft(
                    name: "Bench day",
                    items: [
                        TemplateItemDraft(exerciseID: Catalog.benchPress.description, targetSets: 4, repsMin: 5),
                        TemplateItemDraft(exerciseID: Catalog.overheadPress.description, targetSets: 2, repsMin: 8),
                    ]))
            func bench(_ kilograms: [(Double, SetType)], daysAgo: Double) -> WorkoutDraft {
                var draft = workoutDraft("Bench", at: start.addingTimeInterval(-daysAgo * 86_400))
                draft.exercises[0].sets = kilograms.map {
                    SetDraft(reps: 5, weight: WeightDraft(value: $0.0, unit: .kg), type: $0.1)
                }
                return draft
            }
            _ = try await training.workouts.log(ada, id: "", bench([(90, .working), (92.5, .working)], daysAgo: 7))
            _ = try await training.workouts.log(
                ada, id: "", bench([(60, .warmUp), (100, .working), (102.5, .working)], daysAgo: 3))
            let deleted = try await training.workouts.log(ada, id: "", bench([(140, .working)], daysAgo: 1))
            _ = try await training.workouts.delete(ada, id: deleted.id.description)
            // After today's start: not "last time".
            _ = try await training.workouts.log(ada, id: "", bench([(200, .working)], daysAgo: -1))

            let prefilled = try await training.workouts.prefill(
                ada, templateID: template.id.description, startedAt: start)
            #expect(prefilled.exercises[0].sets.map { $0.weight?.kilograms } == [100, 102.5, 102.5, 102.5])
            #expect(prefilled.exercises[0].sets.allSatisfy { $0.reps == 5 }, "the template's reps, not last time's")
            #expect(prefilled.exercises[1].sets.map(\.weight) == [nil, nil], "never done: no weight")
            // A week earlier, the workout before that one.
            let earlier = try await training.workouts.prefill(
                ada, templateID: template.id.description, startedAt: start.addingTimeInterval(-5 * 86_400))
            #expect(earlier.exercises[0].sets.map { $0.weight?.kilograms } == [90, 92.5, 92.5, 92.5])
        }
    }

    @Test(
        "a template's loads are stored exactly; prefill and a guided session load a weight as it is and a percentage of the lifter's recent max"
    )
    func prescribedLoads() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let training = database.trainingServices(clock: clock)
            let ada = try await database.lifter("ada")
            let draft = TemplateDraft(
                name: "Heavy day",
                items: [
                    TemplateItemDraft(
                        exerciseID: Catalog.squat.description, targetSets: 2, repsMin: 5, targetPercentOfMax: 80),
                    TemplateItemDraft(
                        exerciseID: Catalog.benchPress.description, targetSets: 1, repsMin: 5,
                        targetWeight: WeightDraft(value: 225, unit: .lb)),
                    TemplateItemDraft(
                        exerciseID: Catalog.deadlift.description, targetSets: 1, repsMin: 3, targetPercentOfMax: 85),
                    TemplateItemDraft(exerciseID: Catalog.overheadPress.description, targetSets: 1, repsMin: 8),
                ])
            let template = try await training.templates.create(ada, id: "", draft)
            let stored = try await training.templates.get(ada, id: template.id.description)
            #expect(
                stored.content.items.map(\.targetLoad) == [
                    .percentOfMax(80), .weight(Mass(225, .lb)), .percentOfMax(85), nil,
                ])

            // Squat: 140 kg × 5 at RPE 8 (Epley of 7 reps: 172.67 kg) 30 days ago beats 150 × 1 (150);
            // 200 kg × 1 250 days ago is outside the 180 days. Deadlift: only long ago.
            func squat(_ kilograms: Double, reps: Int, rpe: Double?, daysAgo: Double, _ exercise: ExerciseID)
                -> WorkoutDraft
            {
                var draft = workoutDraft(
                    "Heavy", at: start.addingTimeInterval(-daysAgo * 86_400), exercises: [exercise])
                draft.exercises[0].sets = [
                    SetDraft(reps: reps, weight: WeightDraft(value: kilograms, unit: .kg), rpe: rpe, type: .working)
                ]
                return draft
            }
            _ = try await training.workouts.log(ada, id: "", squat(140, reps: 5, rpe: 8, daysAgo: 30, Catalog.squat))
            _ = try await training.workouts.log(ada, id: "", squat(150, reps: 1, rpe: nil, daysAgo: 20, Catalog.squat))
            _ = try await training.workouts.log(ada, id: "", squat(200, reps: 1, rpe: nil, daysAgo: 250, Catalog.squat))
            _ = try await training.workouts.log(
                ada, id: "", squat(180, reps: 3, rpe: nil, daysAgo: 250, Catalog.deadlift))

            let prefilled = try await training.workouts.prefill(
                ada, templateID: template.id.description, startedAt: start)
            // 80 % of 172.67 kg is 138.13 kg: 137.5 kg.
            #expect(prefilled.exercises[0].sets.map(\.weight) == [Mass(137.5, .kg), Mass(137.5, .kg)])
            // 225 lb for a lifter in kilograms: the nearest plates, 102.5 kg.
            #expect(prefilled.exercises[1].sets.map(\.weight) == [Mass(102.5, .kg)])
            // No deadlift in the last 180 days: no weight (last time's 180 kg could be any share of a
            // max long gone); an item without a load would take it.
            #expect(prefilled.exercises[2].sets.map(\.weight) == [nil])
            #expect(prefilled.exercises[3].sets.map(\.weight) == [nil])

            // In pounds, the percentage is loaded in 5-lb steps: 138.13 kg is 304.5 lb, 305 lb.
            let owner = try await database.ownerConnection()
            try await owner.query("UPDATE tenants SET unit = 'lb' WHERE tenant_id = $1", [ada.tenantID.rawValue])
            await owner.close()
            let inPounds = try await training.workouts.prefill(
                ada, templateID: template.id.description, startedAt: start)
            #expect(inPounds.exercises[0].sets.first?.weight == Mass(305, .lb))
            #expect(inPounds.exercises[1].sets.first?.weight == Mass(225, .lb), "shown exactly: as it is")
            // The same with no percentage in the template: the unit is the lifter's all the same.
            let fixed = try await training.templates.create(
                ada, id: "",
                TemplateDraft(
                    name: "Bench only",
                    items: [
                        TemplateItemDraft(
                            exerciseID: Catalog.benchPress.description, targetSets: 1, repsMin: 5,
                            targetWeight: WeightDraft(value: 225, unit: .lb))
                    ]))
            let benchOnly = try await training.workouts.prefill(ada, templateID: fixed.id.description, startedAt: start)
            #expect(benchOnly.exercises[0].sets.first?.weight == Mass(225, .lb))

            // A guided session from the template plans the same weights.
            let session = try await database.guidedSessionService(clock: clock).start(
                ada, id: "", .template(template.id.description))
            #expect(
                session.exercises.map { $0.sets.first?.planned.weight }
                    == inPounds.exercises.map { $0.sets.first?.weight })

            // Saved again as read in kilograms (225 lb shown as 102.06 kg), the weight stays 225 lb.
            var again = draft
            again.items[1].targetWeight = WeightDraft(value: 102.06, unit: .kg)
            let saved = try await training.templates.update(
                ada, id: template.id.description, again, expectedVersion: stored.version)
            #expect(saved.content.items[1].targetLoad == .weight(Mass(225, .lb)))
            // That is the stored content again: no new version (a device saving what it read).
            #expect(saved.version == stored.version)
            again.items[0].targetPercentOfMax = 82.5
            let changed = try await training.templates.update(
                ada, id: template.id.description, again, expectedVersion: stored.version)
            #expect(changed.version == stored.version + 1)
            await #expect(throws: SpotterError.self) {
                // The same content at a version that is not the template's is still a conflict.
                try await training.templates.update(
                    ada, id: template.id.description, again, expectedVersion: stored.version)
            }
        }
    }

    @Test("a deleted custom exercise is gone for new use but stays in old workouts; built-in ones cannot be deleted")
    func deleting() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let bob = try await database.lifter("bob")
            let custom = try await training.exercises.create(ada, id: "", zercher())
            let workout = try await training.workouts.log(ada, id: "", workoutDraft(at: start, exercises: [custom.id]))
            let other = try await training.workouts.log(ada, id: "", workoutDraft(at: start))
            let template = try await training.templates.create(
                ada, id: "",
                TemplateDraft(
                    name: "Zercher day",
                    items: [TemplateItemDraft(exerciseID: custom.id.description, targetSets: 3, repsMin: 5)]))
            let id = custom.id.description

            await #expect(throws: SpotterError.notFound("exercise not found")) {
                try await training.exercises.delete(bob, id: id)
            }
            let catalogID = "c0000000-0000-4000-8000-000000000001"  // Barbell Back Squat
            await #expect(throws: SpotterError.failedPrecondition("built-in exercises cannot be deleted")) {
                try await training.exercises.delete(ada, id: catalogID)
            }
            await #expect(throws: SpotterError.invalid("exercise_id", "must be a UUID")) {
                try await training.exercises.delete(ada, id: "squat")
            }

            try await training.exercises.delete(ada, id: id)
            await #expect(throws: SpotterError.notFound("exercise not found")) {
                try await training.exercises.delete(ada, id: id)
            }
            await #expect(throws: SpotterError.notFound("exercise not found")) {
                try await training.exercises.get(ada, id)
            }
            let listed = try await training.exercises.list(
                ada, ExerciseFilter(customOnly: true, includeArchived: true), pageSize: 0, pageToken: "")
            #expect(listed.items.isEmpty)
            let stored = try await training.workouts.get(ada, id: workout.id.description)
            #expect(stored.exerciseNames[custom.id] == "Zercher Squat")
            let deletedOne = "is an exercise you deleted: what used it keeps it, nothing new can (choose another)"
            await #expect(throws: SpotterError.invalid("workout.exercises[0].exercise_id", deletedOne)) {
                try await training.workouts.log(ada, id: "", workoutDraft(at: start, exercises: [custom.id]))
            }
            // Logged from the template that holds it, it comes with the template.
            let fromTemplate = try await training.workouts.prefill(
                ada, templateID: template.id.description, startedAt: start)
            #expect(fromTemplate.exercises.map(\.exerciseID) == [custom.id])
            var draft = workoutDraft("Zercher day", at: start, exercises: [custom.id])
            draft.templateID = template.id.description
            let logged = try await training.workouts.log(ada, id: "", draft)
            #expect(logged.exerciseNames[custom.id] == "Zercher Squat")
            // The workout and the template that used it keep it when edited, and only they.
            var edited = workoutDraft("Zercher day", at: start, exercises: [custom.id], reps: 6)
            edited.notes = "felt strong"
            let replaced = try await training.workouts.replace(
                ada, id: workout.id.description, edited, expectedVersion: stored.version)
            #expect(replaced.exerciseNames[custom.id] == "Zercher Squat" && replaced.version == stored.version + 1)
            await #expect(throws: SpotterError.invalid("workout.exercises[0].exercise_id", deletedOne)) {
                try await training.workouts.replace(
                    ada, id: other.id.description, workoutDraft(at: start, exercises: [custom.id]),
                    expectedVersion: nil)
            }
            await #expect(throws: SpotterError.invalid("workout.exercises[0].exercise_id", "no such exercise")) {
                try await training.workouts.log(ada, id: "", workoutDraft(at: start, exercises: [ExerciseID.random()]))
            }
            let keptTemplate = try await training.templates.update(
                ada, id: template.id.description,
                TemplateDraft(
                    name: "Zercher day, heavier",
                    items: [TemplateItemDraft(exerciseID: custom.id.description, targetSets: 5, repsMin: 3)]),
                expectedVersion: nil)
            #expect(keptTemplate.exerciseNames[custom.id] == "Zercher Squat")
            // Its progress stays: the sets logged before, by id.
            let report = try await training.progress.report(
                ada, exerciseID: id, from: nil, to: nil, formula: .epley, timeZone: "UTC"
            ) { _ in }
            #expect(report.exercise.name == "Zercher Squat" && report.points.count == 1)
            let results = try await training.progress.results(ada, exerciseID: id, pageSize: 0, pageToken: "")
            #expect(results.items.count == 6, "the three sets logged before, and the three logged from the template")
            await #expect(throws: SpotterError.notFound("exercise not found")) {
                try await training.progress.results(bob, exerciseID: id, pageSize: 0, pageToken: "")
            }
            // The id stays a tombstone, and says so; the name is free again.
            await #expect(
                throws: SpotterError.alreadyExists(
                    field: "exercise_id",
                    reason: "belongs to a deleted exercise; ids are not reused, create it with a new one")
            ) { try await training.exercises.create(ada, id: id, zercher("Zercher Box Squat")) }
            let again = try await training.exercises.create(ada, id: "", zercher())
            #expect(again.id != custom.id)

            // A built-in exercise's name (ignoring case, spaces and punctuation) is not taken by a
            // custom one, nor renamed to; the refusal names the built-in exercise.
            let builtIn = SpotterError.alreadyExists(
                field: "exercise.name",
                reason: "is the name of the built-in exercise “Barbell Back Squat”; use it, or choose another name")
            for name in ["barbell back SQUAT", "Barbell  Back-Squat", " barbell_back squat. "] {
                await #expect(throws: builtIn, "\(name)") {
                    try await training.exercises.create(ada, id: "", zercher(name))
                }
            }
            await #expect(
                throws: SpotterError.alreadyExists(
                    field: "exercise.name",
                    reason: "is the name of the built-in exercise “Pull-Up”; use it, or choose another name")
            ) { try await training.exercises.create(ada, id: "", zercher("Pull Up")) }
            // Runs of spaces inside a name count as one, so the name taken is seen as taken.
            let spaced = try await training.exercises.create(ada, id: "", zercher("  Zercher   Good   Morning "))
            #expect(spaced.name == "Zercher Good Morning")
            await #expect(throws: builtIn) {
                try await training.exercises.update(
                    ada, id: again.id.description, zercher("Barbell Back Squat"), expectedVersion: nil)
            }
            #expect(try await training.exercises.create(ada, id: "", zercher("Barbell Back Squat (paused)")).isCustom)
        }
    }

    @Test(
        "identical creates racing many times all answer the one stored exercise; a racing different id is told the name is taken"
    )
    func racingCreates() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            for round in 0..<25 {
                let id = ExerciseID.random().description
                let draft = zercher("Zercher Squat \(round)")
                let answers = try await withThrowingTaskGroup(of: String.self) { group in
                    for requested in Array(repeating: id, count: 6) + [""] {
                        group.addTask {
                            do {
                                return (try await training.exercises.create(ada, id: requested, draft)).id.description
                            } catch let error as SpotterError {
                                return "\(error)"
                            }
                        }
                    }
                    return try await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
                }
                // Whichever insert wins, the other id is refused for the name and the same-id
                // creates all answer the one row (or, if the other id won, are refused the same way).
                let nameTaken = "\(SpotterError.alreadyExists(field: "exercise.name", reason: "is already taken"))"
                #expect(answers.values.reduce(0, +) == 7)
                #expect(answers == [id: 6, nameTaken: 1] || answers[nameTaken] == 6, "round \(round): \(answers)")
            }
            #expect(try await database.count("SELECT count(*)::int FROM exercises") == 25)
        }
    }

    @Test("templates: update bumps the version, copy and archive work, and logging from one records its version")
    func templates() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let draft = TemplateDraft(
                name: "Upper A",
                items: [
                    TemplateItemDraft(
                        exerciseID: Catalog.benchPress.description, targetSets: 3, repsMin: 5, targetRPE: 8),
                    TemplateItemDraft(
                        exerciseID: Catalog.overheadPress.description, targetSets: 2, repsMin: 8, repsMax: 12,
                        restSeconds: 90),
                ])
            let id = TemplateID.random().description
            let template = try await training.templates.create(ada, id: id, draft)
            #expect(try await training.templates.create(ada, id: id, draft) == template)
            #expect(template.exerciseNames[Catalog.benchPress] == "Barbell Bench Press")

            let prefilled = try await training.workouts.prefill(ada, templateID: id, startedAt: start)
            #expect(prefilled.exercises.map(\.sets.count) == [3, 2])
            #expect(prefilled.exercises[1].sets[0].reps == 12)
            var today = workoutDraft(
                "Upper A", at: start, exercises: [Catalog.benchPress, Catalog.overheadPress, Catalog.squat])
            today.templateID = id
            let logged = try await training.workouts.log(ada, id: "", today)
            #expect(logged.templateVersion == 1)

            var edited = draft
            edited.items.removeLast()
            let updated = try await training.templates.update(ada, id: id, edited, expectedVersion: 1)
            #expect(updated.version == 2 && updated.content.items.count == 1)
            #expect(try await training.workouts.get(ada, id: logged.id.description).templateVersion == 1)
            // Editing the workout never changes the template.
            _ = try await training.workouts.replace(
                ada, id: logged.id.description, today, expectedVersion: nil)
            #expect(try await training.templates.get(ada, id: id).content == updated.content)
            #expect(try await training.workouts.get(ada, id: logged.id.description).templateVersion == 1)

            let copy = try await training.templates.copy(ada, id: id, newID: "", name: "")
            #expect(copy.content.name == "Upper A (copy)" && copy.version == 1)
            _ = try await training.templates.archive(ada, id: id, archived: true)
            let listed = try await training.templates.list(ada, includeArchived: false, pageSize: 0, pageToken: "")
            #expect(listed.items.map(\.id) == [copy.id])
            let all = try await training.templates.list(ada, includeArchived: true, pageSize: 1, pageToken: "")
            #expect(all.items.count == 1 && !all.nextToken.isEmpty)
            try await training.templates.delete(ada, id: copy.id.description)
            let afterDelete = try await training.templates.list(ada, includeArchived: true, pageSize: 0, pageToken: "")
            #expect(afterDelete.items.map(\.id) == [template.id])

            func unknownExercise(named name: String) -> TemplateDraft {
                TemplateDraft(
                    name: name,
                    items: [TemplateItemDraft(exerciseID: ExerciseID.random().description, targetSets: 3, repsMin: 5)])
            }
            let invalid = await #expect(throws: SpotterError.self) {
                try await training.templates.create(ada, id: "", unknownExercise(named: "Bad"))
            }
            #expect(invalid == .invalid("template.items[0].exercise_id", "no such exercise"))
            // With the name missing too, one refusal names both.
            let both = await #expect(throws: SpotterError.self) {
                try await training.templates.create(ada, id: "", unknownExercise(named: ""))
            }
            guard case .invalidArgument(let violations)? = both else { return }
            #expect(violations.map(\.field) == ["template.name", "template.items[0].exercise_id"], "\(violations)")
        }
    }
}
