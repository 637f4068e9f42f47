import Foundation
import SpotterCore
import SpotterTestSupport
import Testing

@Suite("Training rules: workout drafts")
struct TrainingRulesWorkoutDraftTests {
    static let now = date("2024-03-01T12:00:00Z")
    static let exerciseID = "6f2b1d0e-3c4a-4b5e-9f60-718293a4b5c6"

    @Test(
        "a workout whose sets each are within bounds but whose volume passes 99,999,999 kg is refused naming its exercises"
    )
    func volumeBound() throws {
        func draft(sets: Int) -> WorkoutDraft {
            WorkoutDraft(
                name: "Typo", startedAt: Self.now, durationSeconds: 60,
                exercises: [
                    WorkoutExerciseDraft(
                        exerciseID: Self.exerciseID,
                        sets: Array(
                            repeating: SetDraft(reps: 1000, weight: WeightDraft(value: 2000, unit: .kg)), count: sets))
                ])
        }
        // 49 sets of 1,000 × 2,000 kg: 98,000,000 kg, kept.
        #expect(try draft(sets: 49).validated(now: Self.now).summary.volume.value(in: .kg) == 98_000_000)
        // 50: 100,000,000 kg, which the history's total has no room for (it was an internal error).
        #expect(
            throws: SpotterError.invalid(
                "workout.exercises",
                "come to a volume of 100,000,000 kg, more than a workout can hold (99,999,999 kg): check the reps and weights"
            )
        ) { try draft(sets: 50).validated(now: Self.now) }
    }

    @Test("a draft with many problems is refused once, naming every bad field by its path")
    func manyProblems() throws {
        let draft = WorkoutDraft(
            name: "   ",
            startedAt: Self.now.addingTimeInterval(24 * 3600 + 1),
            durationSeconds: -1,
            templateID: "not-a-template",
            exercises: [
                WorkoutExerciseDraft(
                    exerciseID: "",
                    sets: [
                        SetDraft(reps: 5, weight: WeightDraft(value: 100, unit: .kg)),
                        SetDraft(reps: 5, weight: WeightDraft(value: 100, unit: .kg), rpe: 10.5),
                        SetDraft(reps: nil, weight: WeightDraft(value: 100, unit: .kg)),
                    ]),
                WorkoutExerciseDraft(
                    exerciseID: "not-a-uuid",
                    sets: [
                        SetDraft(reps: 5, rpe: 7.3),
                        SetDraft(reps: 5, weight: WeightDraft(value: -5, unit: .kg)),
                        SetDraft(reps: 5, weight: WeightDraft(value: 100, unit: nil)),
                        SetDraft(reps: 5, weight: WeightDraft(value: 100.125, unit: .lb)),
                        SetDraft(reps: 5, restSeconds: 4000),
                    ]),
                WorkoutExerciseDraft(exerciseID: Self.exerciseID, sets: []),
            ])

        let found = violations { () throws(SpotterError) in try draft.validated(now: Self.now) }
        let expected: Set<String> = [
            "workout.name",
            "workout.started_at",
            "workout.duration_seconds",
            "workout.template_id",
            "workout.exercises[0].exercise_id",
            "workout.exercises[0].sets[1].rpe",
            "workout.exercises[0].sets[2].reps",
            "workout.exercises[1].exercise_id",
            "workout.exercises[1].sets[0].rpe",
            "workout.exercises[1].sets[1].weight.value",
            "workout.exercises[1].sets[2].weight.unit",
            "workout.exercises[1].sets[3].weight.value",
            "workout.exercises[1].sets[4].rest_seconds",
            "workout.exercises[2].sets",
        ]
        #expect(Set(found.map(\.field)) == expected)
        #expect(found.count == expected.count, "\(found)")

        let reasons = Dictionary(found.map { ($0.field, $0.reason) }, uniquingKeysWith: { first, _ in first })
        #expect(reasons["workout.exercises[0].sets[1].rpe"] == "must be between 1 and 10 in steps of 0.5")
        #expect(reasons["workout.exercises[1].sets[0].rpe"] == "must be between 1 and 10 in steps of 0.5")
        #expect(reasons["workout.name"] == "is required")
        #expect(reasons["workout.started_at"] == "must not be more than a day in the future")
        #expect(reasons["workout.exercises[0].exercise_id"] == "is required")
        #expect(reasons["workout.exercises[1].exercise_id"] == "must be a UUID")
        #expect(
            reasons["workout.exercises[0].sets[2].reps"] == "is required unless the set has a duration or a distance")
        #expect(reasons["workout.exercises[1].sets[1].weight.value"] == "must be a finite number of at least 0")
        #expect(reasons["workout.exercises[1].sets[2].weight.unit"] == "must be set to KG or LB")
        #expect(reasons["workout.exercises[1].sets[3].weight.value"] == "must have at most 2 decimal places")
        #expect(reasons["workout.exercises[1].sets[4].rest_seconds"] == "must be between 0 and 3600")
    }

    @Test("a weight without a unit has its value judged too, so both fields are named at once")
    func weightWithoutUnit() {
        func refusal(_ value: Double) -> [String] {
            let draft = WorkoutDraft(
                name: "Legs", startedAt: Self.now, durationSeconds: 0,
                exercises: [
                    WorkoutExerciseDraft(
                        exerciseID: Self.exerciseID,
                        sets: [SetDraft(reps: 5, weight: WeightDraft(value: value, unit: nil))])
                ])
            do {
                _ = try draft.validated(now: Self.now)
                return []
            } catch {
                guard case .invalidArgument(let violations) = error else { return ["\(error)"] }
                return violations.map { "\($0.field): \($0.reason)" }
            }
        }
        #expect(
            refusal(-5) == [
                "workout.exercises[0].sets[0].weight.unit: must be set to KG or LB",
                "workout.exercises[0].sets[0].weight.value: must be a finite number of at least 0",
            ])
        #expect(
            refusal(5000) == [
                "workout.exercises[0].sets[0].weight.unit: must be set to KG or LB",
                "workout.exercises[0].sets[0].weight.value: must be at most 2000 kg (4409.24 lb)",
            ])
        #expect(refusal(100) == ["workout.exercises[0].sets[0].weight.unit: must be set to KG or LB"])
    }

    @Test("a missing start is named, and a start up to a day in the future is accepted")
    func startedAt() throws {
        let sets = [WorkoutExerciseDraft(exerciseID: Self.exerciseID, sets: [SetDraft(reps: 5)])]
        let missing = WorkoutDraft(name: "Legs", startedAt: nil, durationSeconds: 0, exercises: sets)
        #expect(
            throws: SpotterError.invalid("workout.started_at", "is required")
        ) { try missing.validated(now: Self.now) }

        let tomorrow = WorkoutDraft(
            name: "Legs", startedAt: Self.now.addingTimeInterval(24 * 3600), durationSeconds: 0, exercises: sets)
        #expect(try tomorrow.validated(now: Self.now).startedAt == Self.now.addingTimeInterval(24 * 3600))
    }

    @Test("a valid draft converts pounds to kilograms and defaults the set type to working")
    func validDraft() throws {
        let draft = WorkoutDraft(
            name: "  Heavy day ",
            startedAt: Self.now,
            durationSeconds: 3600,
            notes: " felt good ",
            exercises: [
                WorkoutExerciseDraft(
                    exerciseID: Self.exerciseID,
                    notes: " belt ",
                    sets: [
                        SetDraft(reps: 10, weight: WeightDraft(value: 45, unit: .lb), type: .warmUp),
                        SetDraft(reps: 5, weight: WeightDraft(value: 225, unit: .lb), rpe: 8.5, restSeconds: 180),
                        SetDraft(reps: 12, note: " bodyweight "),
                        SetDraft(reps: 3, weight: WeightDraft(value: 102.5, unit: .kg), type: .failure),
                    ])
            ])
        let content = try draft.validated(now: Self.now)
        #expect(content.name == "Heavy day")
        #expect(content.notes == "felt good")
        #expect(content.startedAt == Self.now)
        #expect(content.durationSeconds == 3600)
        #expect(content.templateID == nil)
        let exercise = try #require(content.exercises.first)
        #expect(exercise.exerciseID == ExerciseID(Self.exerciseID))
        #expect(exercise.notes == "belt")
        #expect(
            exercise.sets == [
                WorkoutSet(reps: 10, weight: kg(decimal("20.411657")), type: .warmUp),
                WorkoutSet(
                    reps: 5, weight: kg(decimal("102.058283")), rpe: decimal("8.5"), restSeconds: 180,
                    type: .working),
                WorkoutSet(reps: 12, weight: nil, note: "bodyweight", type: .working),
                WorkoutSet(reps: 3, weight: kg(decimal("102.5")), type: .failure),
            ])
    }

    @Test("an empty exercise list is named workout.exercises")
    func emptyExercises() {
        let draft = WorkoutDraft(name: "Legs", startedAt: Self.now, durationSeconds: 0, exercises: [])
        #expect(
            throws: SpotterError.invalid("workout.exercises", "must contain at least one exercise")
        ) { try draft.validated(now: Self.now) }
    }

    @Test("weights above 2000 kg and non-finite weights are refused")
    func weightLimits() throws {
        func draft(_ weight: WeightDraft) -> WorkoutDraft {
            WorkoutDraft(
                name: "Legs", startedAt: Self.now, durationSeconds: 0,
                exercises: [
                    WorkoutExerciseDraft(exerciseID: Self.exerciseID, sets: [SetDraft(reps: 1, weight: weight)])
                ])
        }
        let field = "workout.exercises[0].sets[0].weight.value"
        #expect(try draft(WeightDraft(value: 2000, unit: .kg)).validated(now: Self.now).exercises.count == 1)
        #expect(try draft(WeightDraft(value: 4409.24, unit: .lb)).validated(now: Self.now).exercises.count == 1)
        #expect(
            violations { () throws(SpotterError) in
                try draft(WeightDraft(value: 2000.01, unit: .kg)).validated(now: Self.now)
            }.map(\.field) == [field])
        #expect(
            violations { () throws(SpotterError) in
                try draft(WeightDraft(value: 4409.25, unit: .lb)).validated(now: Self.now)
            }.map(\.field) == [field])
        #expect(
            violations { () throws(SpotterError) in
                try draft(WeightDraft(value: .nan, unit: .kg)).validated(now: Self.now)
            }.map(\.field) == [field])
        #expect(
            violations { () throws(SpotterError) in
                try draft(WeightDraft(value: .infinity, unit: .lb)).validated(now: Self.now)
            }.map(\.field) == [field])
        // Finite but past what a Decimal holds: too heavy, not "not a finite number".
        #expect(
            violations { () throws(SpotterError) in
                try draft(WeightDraft(value: 1e300, unit: .kg)).validated(now: Self.now)
            }.map(\.reason) == ["must be at most 2000 kg (4409.24 lb)"])
    }
}

@Suite("Training rules: workout summary and fingerprint")
struct TrainingRulesWorkoutContentTests {
    static func content(benchReps: Int = 5) -> WorkoutContent {
        WorkoutContent(
            name: "Push",
            startedAt: date("2024-03-01T12:00:00Z"),
            durationSeconds: 3600,
            exercises: [
                WorkoutExercise(
                    exerciseID: squatID,
                    sets: [
                        WorkoutSet(reps: 10, weight: kg(60), type: .warmUp),
                        WorkoutSet(reps: benchReps, weight: kg(100)),
                        WorkoutSet(reps: 8, weight: kg(80), type: .drop),
                        WorkoutSet(reps: 6, weight: kg(90), type: .failure),
                    ]),
                WorkoutExercise(
                    exerciseID: flyID,
                    sets: [
                        WorkoutSet(reps: 10, weight: kg(20), type: .warmUp),
                        WorkoutSet(reps: 12, weight: nil),
                    ]),
            ])
    }

    @Test("the summary counts sets, reps and volume without warm-up sets")
    func summaryExcludesWarmUps() {
        #expect(
            Self.content().summary
                == WorkoutSummary(exerciseCount: 2, setCount: 4, repCount: 31, volume: kg(500 + 640 + 540)))
    }

    @Test("equal content has an equal fingerprint, and one changed rep changes it")
    func fingerprint() throws {
        #expect(Self.content().fingerprint == Self.content().fingerprint)
        #expect(Self.content().fingerprint.count == 32)
        #expect(Self.content(benchReps: 6).fingerprint != Self.content().fingerprint)

        // The same content reached through validation (100 kg rounded to the stored scale).
        let draft = WorkoutDraft(
            name: "Push",
            startedAt: date("2024-03-01T12:00:00Z"),
            durationSeconds: 3600,
            exercises: [
                WorkoutExerciseDraft(
                    exerciseID: squatID.description,
                    sets: [
                        SetDraft(reps: 10, weight: WeightDraft(value: 60, unit: .kg), type: .warmUp),
                        SetDraft(reps: 5, weight: WeightDraft(value: 100, unit: .kg)),
                        SetDraft(reps: 8, weight: WeightDraft(value: 80, unit: .kg), type: .drop),
                        SetDraft(reps: 6, weight: WeightDraft(value: 90, unit: .kg), type: .failure),
                    ]),
                WorkoutExerciseDraft(
                    exerciseID: flyID.description,
                    sets: [
                        SetDraft(reps: 10, weight: WeightDraft(value: 20, unit: .kg), type: .warmUp),
                        SetDraft(reps: 12),
                    ]),
            ])
        let validated = try draft.validated(now: date("2024-03-01T12:00:00Z"))
        #expect(validated == Self.content())
        #expect(validated.fingerprint == Self.content().fingerprint)
    }

    /// Stored fingerprints decide whether a retried call is the same workout, so the bytes hashed
    /// must not change between versions: this pins one for content using every field.
    @Test("a fingerprint stays what earlier versions stored, for content using every field")
    func fingerprintIsStable() {
        let content = WorkoutContent(
            name: "Lower – Übung 🏋️",
            startedAt: Date(timeIntervalSince1970: 1_795_482_123.720368),
            durationSeconds: 4500,
            notes: "felt \"strong\"\nline two",
            templateID: TemplateID("1c2d3e4f-5061-4728-9a3b-4c5d6e7f8091")!,
            exercises: [
                WorkoutExercise(
                    exerciseID: squatID, notes: "belt",
                    sets: [
                        WorkoutSet(reps: 5, weight: kg(decimal("102.058283")), rpe: decimal("8.5"), restSeconds: 180),
                        WorkoutSet(reps: 3, weight: kg(decimal("-1.5")), rpe: 7, note: "pause", type: .failure),
                        WorkoutSet(reps: 12, weight: nil, type: .warmUp),
                    ], section: .warmUp, circuit: 2),
                WorkoutExercise(
                    exerciseID: flyID,
                    sets: [WorkoutSet(reps: 0, weight: nil, durationSeconds: 60, distanceMeters: 400)]),
            ])
        let hex = content.fingerprint.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        #expect(hex == "8118393c0c643dc1826693ab9d6bbdc19b3dc316849d55c3c06f80e8d4dac185")
    }
}

@Suite("Training rules: weights sent back as shown")
struct KeepingWeightsTests {
    private func content(_ weights: [Mass?], exercise: ExerciseID = Catalog.squat) -> WorkoutContent {
        WorkoutContent(
            name: "Squat", startedAt: Date(timeIntervalSince1970: 1_790_000_000), durationSeconds: 0,
            exercises: [
                WorkoutExercise(exerciseID: exercise, sets: weights.map { WorkoutSet(reps: 5, weight: $0) })
            ])
    }

    @Test("a weight sent back as shown, in either unit, keeps the stored one; a changed one does not")
    func keeping() {
        let pounds = Mass(Decimal(135), .lb)  // 61.234970 kg
        let stored = content([pounds, Mass(Decimal(100), .kg), nil])
        let shownInKilograms = content([Mass(Decimal(string: "61.23")!, .kg), Mass(Decimal(100), .kg), nil])
        #expect(shownInKilograms.keepingWeights(of: stored) == stored)
        let shownInPounds = content([Mass(Decimal(135), .lb), Mass(Decimal(string: "220.46")!, .lb), nil])
        #expect(shownInPounds.keepingWeights(of: stored) == stored)
        let changed = content([Mass(Decimal(string: "61.24")!, .kg), Mass(Decimal(string: "102.5")!, .kg), nil])
        #expect(changed.keepingWeights(of: stored) == changed)
        // Another exercise at that place is another set: nothing is kept.
        let other = content([Mass(Decimal(string: "61.23")!, .kg)], exercise: Catalog.benchPress)
        #expect(other.keepingWeights(of: stored) == other)
    }
}
