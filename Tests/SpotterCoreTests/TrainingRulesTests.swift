import Foundation
import SpotterCore
import Testing

// MARK: - Helpers

/// The violations `body` throws as `invalidArgument`; records an issue for any other outcome.
private func violations<T>(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws(SpotterError) -> T
) -> [FieldViolation] {
    do {
        let value = try body()
        Issue.record("expected invalidArgument, got \(value)", sourceLocation: sourceLocation)
    } catch {
        if case .invalidArgument(let violations) = error { return violations }
        Issue.record("expected invalidArgument, got \(error)", sourceLocation: sourceLocation)
    }
    return []
}

private func expectEstimate(
    _ estimate: E1RMEstimate,
    _ kilograms: Double,
    _ formula: E1RMFormula,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard case .estimate(let actual, let used) = estimate else {
        Issue.record("expected an estimate, got \(estimate)", sourceLocation: sourceLocation)
        return
    }
    #expect(abs(actual - kilograms) < 1e-9, "\(actual) ≠ \(kilograms)", sourceLocation: sourceLocation)
    #expect(used == formula, sourceLocation: sourceLocation)
}

private func noEstimateReason(_ estimate: E1RMEstimate) -> String? {
    if case .none(let reason) = estimate { return reason }
    return nil
}

private func kg(_ value: Decimal) -> Mass { Mass(kilograms: value) }

private func decimal(_ text: String) -> Decimal { Decimal(string: text)! }

private func date(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso)! }

private let squatID = ExerciseID("6f2b1d0e-3c4a-4b5e-9f60-718293a4b5c6")!
private let flyID = ExerciseID("0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9")!

private let squat = Exercise(
    id: squatID, name: "Barbell Back Squat", category: .squat, muscleGroup: .quadriceps, equipment: .barbell,
    instructions: "", bigThree: .squat)
private let fly = Exercise(
    id: flyID, name: "Cable Fly", category: .isolation, muscleGroup: .chest, equipment: .cable, instructions: "")

// MARK: - One-rep max

@Suite("Training rules: one-rep max formulas")
struct TrainingRulesOneRepMaxTests {
    @Test("Epley gives weight × (1 + reps / 30) and a single is its own weight")
    func epley() {
        let weight = kg(100)
        expectEstimate(OneRepMax.estimate(weight: weight, reps: 5, rpe: nil, formula: .epley), 700.0 / 6, .epley)
        expectEstimate(OneRepMax.estimate(weight: weight, reps: 1, rpe: nil, formula: .epley), 100, .epley)
        expectEstimate(OneRepMax.estimate(weight: weight, reps: 10, rpe: nil, formula: .epley), 400.0 / 3, .epley)
        expectEstimate(OneRepMax.estimate(weight: weight, reps: 12, rpe: nil, formula: .epley), 140, .epley)
    }

    @Test("Brzycki gives weight × 36 / (37 − reps)")
    func brzycki() {
        let weight = kg(100)
        expectEstimate(OneRepMax.estimate(weight: weight, reps: 5, rpe: nil, formula: .brzycki), 112.5, .brzycki)
        expectEstimate(OneRepMax.estimate(weight: weight, reps: 10, rpe: nil, formula: .brzycki), 400.0 / 3, .brzycki)
        expectEstimate(OneRepMax.estimate(weight: weight, reps: 1, rpe: nil, formula: .brzycki), 100, .brzycki)
    }

    @Test("more than 12 reps, no completed reps or no weight give no estimate, with the reason")
    func noEstimate() throws {
        let thirteen = OneRepMax.estimate(weight: kg(100), reps: 13, rpe: nil, formula: .epley)
        #expect(thirteen.kilograms == nil)
        let reason = try #require(noEstimateReason(thirteen))
        #expect(reason.contains("13 reps"))

        let noReps = OneRepMax.estimate(weight: kg(100), reps: 0, rpe: nil, formula: .epley)
        #expect(noReps == .none(reason: "the set has no completed reps"))

        #expect(OneRepMax.estimate(weight: nil, reps: 5, rpe: nil, formula: .epley).kilograms == nil)
        #expect(OneRepMax.estimate(weight: .zero, reps: 5, rpe: nil, formula: .brzycki).kilograms == nil)
        #expect(noEstimateReason(OneRepMax.estimate(weight: nil, reps: 5, rpe: 8, formula: .epley)) != nil)
    }
}

// MARK: - RTS RPE table

@Suite("Training rules: RTS RPE table")
struct TrainingRulesRPETableTests {
    /// The standard RTS chart, whole-RPE rows, reps 1–12.
    static let rows: [(rpe: Int, percentages: [Double])] = [
        (10, [100, 95.5, 92.2, 89.2, 86.3, 83.7, 81.1, 78.6, 76.2, 73.9, 70.7, 68.0]),
        (9, [95.5, 92.2, 89.2, 86.3, 83.7, 81.1, 78.6, 76.2, 73.9, 70.7, 68.0, 65.3]),
        (8, [92.2, 89.2, 86.3, 83.7, 81.1, 78.6, 76.2, 73.9, 70.7, 68.0, 65.3, 62.6]),
        (7, [89.2, 86.3, 83.7, 81.1, 78.6, 76.2, 73.9, 70.7, 68.0, 65.3, 62.6, 59.9]),
        (6, [86.3, 83.7, 81.1, 78.6, 76.2, 73.9, 70.7, 68.0, 65.3, 62.6, 59.9, 57.2]),
    ]

    /// Every cell of `rows` as (reps, RPE, percentage).
    static let cells: [(Int, Int, Double)] = rows.flatMap { row in
        row.percentages.enumerated().map { (index, percentage) in (index + 1, row.rpe, percentage) }
    }

    @Test("every cell of the whole-RPE rows matches the RTS chart", arguments: cells)
    func chartCell(reps: Int, rpe: Int, percentage: Double) {
        #expect(OneRepMax.rtsPercentage(reps: reps, rpe: Decimal(rpe)) == percentage)
    }

    @Test("half-step RPEs sit between the whole rows")
    func halfSteps() {
        #expect(OneRepMax.rtsPercentage(reps: 1, rpe: decimal("9.5")) == 97.8)
        #expect(OneRepMax.rtsPercentage(reps: 2, rpe: 10) == 95.5)
        #expect(OneRepMax.rtsPercentage(reps: 5, rpe: 8) == 81.1)
        #expect(OneRepMax.rtsPercentage(reps: 3, rpe: 9) == 89.2)
        #expect(OneRepMax.rtsPercentage(reps: 12, rpe: decimal("6.5")) == 58.6)
    }

    @Test("outside 1–12 reps or RPE 6–10 in half steps there is no percentage")
    func outsideTable() {
        #expect(OneRepMax.rtsPercentage(reps: 0, rpe: 8) == nil)
        #expect(OneRepMax.rtsPercentage(reps: 13, rpe: 8) == nil)
        #expect(OneRepMax.rtsPercentage(reps: 5, rpe: decimal("5.5")) == nil)
        #expect(OneRepMax.rtsPercentage(reps: 5, rpe: decimal("10.5")) == nil)
        #expect(OneRepMax.rtsPercentage(reps: 5, rpe: decimal("7.3")) == nil)
    }

    @Test("a set with an RPE is estimated as weight ÷ the table percentage")
    func rpeEstimate() {
        expectEstimate(OneRepMax.estimate(weight: kg(100), reps: 3, rpe: 8, formula: .epley), 100 / 0.863, .rpe)
    }

    @Test("an RPE below 6 gives no estimate, saying it is below 6")
    func rpeBelowSix() throws {
        let estimate = OneRepMax.estimate(weight: kg(100), reps: 3, rpe: decimal("5.5"), formula: .epley)
        #expect(estimate.kilograms == nil)
        let reason = try #require(noEstimateReason(estimate))
        #expect(reason.contains("below 6"))
        #expect(reason.contains("5.5"))
    }

    @Test("a logged RPE overrides the chosen formula", arguments: E1RMFormula.allCases)
    func rpeOverridesFormula(formula: E1RMFormula) {
        expectEstimate(OneRepMax.estimate(weight: kg(100), reps: 5, rpe: 8, formula: formula), 100 / 0.811, .rpe)
        expectEstimate(OneRepMax.estimate(weight: kg(100), reps: 1, rpe: 10, formula: formula), 100, .rpe)
    }
}

// MARK: - Mass

@Suite("Training rules: exact masses")
struct TrainingRulesMassTests {
    /// `cents` hundredths written as text with exactly 2 decimals ("1234.05").
    static func text(cents: Int) -> String {
        let fraction = cents % 100
        return "\(cents / 100)." + (fraction < 10 ? "0\(fraction)" : "\(fraction)")
    }

    @Test("every pound value with 2 decimals from 0 to 1000 survives the trip through kilograms exactly")
    func poundsRoundTripDense() {
        var failures: [String] = []
        for cents in 0...100_000 {
            let text = Self.text(cents: cents)
            let value = decimal(text)
            if Mass(value, .lb).value(in: .lb) != value { failures.append(text) }
            if Mass(value, .kg).value(in: .kg) != value { failures.append(text + " kg") }
        }
        #expect(failures.isEmpty, "\(failures.prefix(20))")
    }

    @Test("pseudo-random pound and kilogram values with 2 decimals up to 100000 survive the round trip exactly")
    func roundTripRandom() {
        // A fixed linear congruential sequence: the same values on every run.
        var state: UInt64 = 0x5EED_1234_ABCD_0001
        var failures: [String] = []
        for _ in 0..<5000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let cents = Int((state >> 33) % 10_000_000)
            let text = Self.text(cents: cents)
            let value = decimal(text)
            if Mass(value, .lb).value(in: .lb) != value { failures.append(text + " lb") }
            if Mass(value, .kg).value(in: .kg) != value { failures.append(text + " kg") }
            if Mass(value, .lb).kilograms.fractionDigits > 6 { failures.append(text + " lb scale") }
        }
        #expect(failures.isEmpty, "\(failures.prefix(20))")
    }

    @Test("225 lb is 102.058283 kg and 100 kg shows as 220.46 lb")
    func knownConversions() {
        #expect(Mass(225, .lb).kilograms == decimal("102.058283"))
        #expect(decimal("102.05828325").rounded(scale: 6) == decimal("102.058283"))
        #expect(Mass(225, .lb).value(in: .lb) == 225)
        #expect(Mass(225, .lb).value(in: .kg) == decimal("102.06"))
        #expect(Mass(100, .kg).value(in: .lb) == decimal("220.46"))
        #expect(Mass(100, .kg).kilograms == 100)
        #expect(Mass.kilogramsPerPound == decimal("0.45359237"))
    }

    @Test("rounding is half away from zero")
    func roundingHalfAwayFromZero() {
        #expect(decimal("2.345").rounded(scale: 2) == decimal("2.35"))
        #expect(decimal("-2.345").rounded(scale: 2) == decimal("-2.35"))
        #expect(decimal("2.344").rounded(scale: 2) == decimal("2.34"))
    }

    @Test("a Double becomes the decimal it was written as, and non-finite values have none")
    func decimalExactly() {
        #expect(Decimal(exactly: 102.3) == decimal("102.3"))
        #expect(Decimal(exactly: 0.1) == decimal("0.1"))
        #expect(Decimal(exactly: 225.0) == 225)
        #expect(Decimal(exactly: Double.nan) == nil)
        #expect(Decimal(exactly: Double.infinity) == nil)
        #expect(Decimal(exactly: -Double.infinity) == nil)
    }

    @Test("fractionDigits counts the decimals needed to write a value")
    func fractionDigits() {
        #expect(decimal("102.25").fractionDigits == 2)
        #expect(decimal("102.255").fractionDigits == 3)
        #expect(decimal("102").fractionDigits == 0)
        #expect(decimal("102.5").fractionDigits == 1)
        #expect(Decimal(exactly: 102.3)!.fractionDigits == 1)
    }

    @Test("masses add, multiply by reps and compare by kilograms")
    func arithmetic() {
        #expect(kg(100) + kg(decimal("2.5")) == kg(decimal("102.5")))
        #expect(kg(decimal("102.5")) * 5 == kg(decimal("512.5")))
        #expect(kg(100) < kg(decimal("100.000001")))
    }
}

// MARK: - Workout drafts

@Suite("Training rules: workout drafts")
struct TrainingRulesWorkoutDraftTests {
    static let now = date("2024-03-01T12:00:00Z")
    static let exerciseID = "6f2b1d0e-3c4a-4b5e-9f60-718293a4b5c6"

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
        #expect(reasons["workout.exercises[0].sets[2].reps"] == "is required")
        #expect(reasons["workout.exercises[1].sets[1].weight.value"] == "must be a finite number of at least 0")
        #expect(reasons["workout.exercises[1].sets[2].weight.unit"] == "is required (KG or LB)")
        #expect(reasons["workout.exercises[1].sets[3].weight.value"] == "must have at most 2 decimal places")
        #expect(reasons["workout.exercises[1].sets[4].rest_seconds"] == "must be between 0 and 3600")
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
    }
}

// MARK: - Workout content

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
}

// MARK: - Templates

@Suite("Training rules: templates")
struct TrainingRulesTemplateTests {
    static let exerciseID = "6f2b1d0e-3c4a-4b5e-9f60-718293a4b5c6"

    @Test("reps_max 0 means the same as reps_min")
    func repsMaxDefaults() throws {
        let content = try TemplateDraft(
            name: " Strength ",
            items: [TemplateItemDraft(exerciseID: Self.exerciseID, targetSets: 3, repsMin: 5, targetRPE: 8.5)]
        ).validated()
        #expect(content.name == "Strength")
        #expect(
            content.items == [
                TemplateItem(exerciseID: squatID, targetSets: 3, repsMin: 5, repsMax: 5, targetRPE: decimal("8.5"))
            ])
    }

    @Test("reps_max below reps_min is named template.items[0].reps_max")
    func repsMaxBelowMin() {
        let draft = TemplateDraft(
            name: "Strength",
            items: [TemplateItemDraft(exerciseID: Self.exerciseID, targetSets: 3, repsMin: 5, repsMax: 4)])
        #expect(
            throws: SpotterError.invalid("template.items[0].reps_max", "must be between reps_min and 100")
        ) { try draft.validated() }
    }

    @Test("target_sets 0 is named template.items[0].target_sets")
    func targetSetsZero() {
        let draft = TemplateDraft(
            name: "Strength", items: [TemplateItemDraft(exerciseID: Self.exerciseID, targetSets: 0, repsMin: 5)])
        #expect(
            throws: SpotterError.invalid("template.items[0].target_sets", "must be between 1 and 20")
        ) { try draft.validated() }
    }

    @Test("reps_min above 100 without reps_max is named template.items[0].reps_min")
    func repsMinTooHigh() {
        let draft = TemplateDraft(
            name: "Strength", items: [TemplateItemDraft(exerciseID: Self.exerciseID, targetSets: 3, repsMin: 101)])
        #expect(
            throws: SpotterError.invalid("template.items[0].reps_min", "must be between 1 and 100")
        ) { try draft.validated() }
    }

    @Test("reps_min above 100 with a reps_max is refused, not a crash")
    func repsMinTooHighWithRepsMax() {
        let draft = TemplateDraft(
            name: "Strength",
            items: [
                TemplateItemDraft(
                    exerciseID: "6f2b1d0e-3c4a-4b5e-9f60-718293a4b5c6", targetSets: 3, repsMin: 101, repsMax: 5)
            ])
        let error = #expect(throws: SpotterError.self) { try draft.validated() }
        guard case .invalidArgument(let violations) = error else { return }
        #expect(violations.map(\.field) == ["template.items[0].reps_min", "template.items[0].reps_max"])
    }

    @Test("prefill makes target_sets sets at the top of the rep range with the target RPE and no weight")
    func prefill() {
        let templateID = TemplateID("11111111-2222-4333-8444-555555555555")!
        let startedAt = date("2024-03-01T12:00:00Z")
        let content = TemplateContent(
            name: "Strength",
            items: [
                TemplateItem(
                    exerciseID: squatID, targetSets: 3, repsMin: 8, repsMax: 12, targetRPE: 8, restSeconds: 90,
                    notes: "slow down"),
                TemplateItem(exerciseID: flyID, targetSets: 2, repsMin: 15, repsMax: 15),
            ])
        let workout = content.prefill(templateID: templateID, startedAt: startedAt)
        #expect(workout.name == "Strength")
        #expect(workout.startedAt == startedAt)
        #expect(workout.durationSeconds == 0)
        #expect(workout.templateID == templateID)
        #expect(
            workout.exercises == [
                WorkoutExercise(
                    exerciseID: squatID,
                    notes: "slow down",
                    sets: Array(
                        repeating: WorkoutSet(reps: 12, weight: nil, rpe: 8, restSeconds: 90, type: .working),
                        count: 3)),
                WorkoutExercise(
                    exerciseID: flyID,
                    sets: Array(repeating: WorkoutSet(reps: 15, weight: nil, type: .working), count: 2)),
            ])
    }
}

// MARK: - Progress

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

    @Test("no sets give no points and no records")
    func empty() {
        let report = ProgressCalculator.report(exercise: squat, sets: [], formula: .brzycki, timeZone: Self.newYork)
        #expect(report.points.isEmpty)
        #expect(report.records.heaviest == nil)
        #expect(report.records.bestE1RM == nil)
        #expect(report.records.mostReps.isEmpty)
    }
}

// MARK: - Entitlements

@Suite("Training rules: entitlements")
struct TrainingRulesEntitlementsTests {
    @Test("the free tier sees progress for the big three only; the refusal names Pro")
    func freeTier() throws {
        #expect(throws: Never.self) { try Entitlements.checkProgress(for: squat, tier: .free) }
        do {
            try Entitlements.checkProgress(for: fly, tier: .free)
            Issue.record("the free tier saw progress for a non-big-three exercise")
        } catch {
            guard case .permissionDenied(let message) = error else {
                Issue.record("expected permissionDenied, got \(error)")
                return
            }
            #expect(message.contains("Pro"))
            #expect(message.contains("Cable Fly"))
        }
    }

    @Test("the pro tier sees progress for every exercise")
    func proTier() {
        #expect(throws: Never.self) { try Entitlements.checkProgress(for: squat, tier: .pro) }
        #expect(throws: Never.self) { try Entitlements.checkProgress(for: fly, tier: .pro) }
    }
}

// MARK: - Page tokens

@Suite("Training rules: page tokens")
struct TrainingRulesPageTokenTests {
    @Test(
        "a token decodes to the parts it was made from",
        arguments: [
            ["1700000000123456", "6f2b1d0e-3c4a-4b5e-9f60-718293a4b5c6"],
            ["???", "~~~", ""],
            ["Bankdrücken 🏋️"],
            ["a"],
        ])
    func roundTrip(parts: [String]) throws {
        let token = PageToken.encode(parts)
        #expect(!token.contains { "+/=".contains($0) })
        #expect(try PageToken.decode(token, parts: parts.count) == parts)
    }

    @Test("an empty token means the first page")
    func emptyToken() throws {
        #expect(try PageToken.decode("", parts: 2) == nil)
    }

    @Test("a garbage token is invalid on page.page_token", arguments: ["not a token!", "abcde", "__4", "%%%%"])
    func garbage(token: String) {
        #expect(
            throws: SpotterError.invalid("page.page_token", "is not a token this call returned")
        ) { try PageToken.decode(token, parts: 2) }
    }

    @Test("a token with the wrong number of parts is invalid")
    func wrongPartCount() {
        let token = PageToken.encode(["a", "b", "c"])
        #expect(
            throws: SpotterError.invalid("page.page_token", "is not a token this call returned")
        ) { try PageToken.decode(token, parts: 2) }
    }

    @Test("page size 0 means 20, 1–100 is kept, anything else is invalid on page.page_size")
    func pageSize() throws {
        #expect(try PageToken.size(0) == 20)
        #expect(try PageToken.size(1) == 1)
        #expect(try PageToken.size(100) == 100)
        #expect(throws: SpotterError.invalid("page.page_size", "must be between 1 and 100")) { try PageToken.size(101) }
        #expect(throws: SpotterError.invalid("page.page_size", "must be between 1 and 100")) { try PageToken.size(-1) }
    }

    @Test("timestamps survive the trip through microseconds")
    func micros() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        let text = PageToken.micros(date)
        #expect(text == "1700000000123456")
        #expect(abs(try PageToken.date(micros: text).timeIntervalSince(date)) < 1e-6)
        #expect(throws: SpotterError.invalid("page.page_token", "is not a token this call returned")) {
            try PageToken.date(micros: "soon")
        }
    }
}
