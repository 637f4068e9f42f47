import Foundation
import SpotterCore
import Testing

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
            throws: SpotterError.invalid(
                "template.items[0].reps_min",
                "must be between 1 and 100 (0 only with a target time or distance)")
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

    @Test("a circuit number the template does not define, or a circuit split across sections, is named")
    func circuitRules() {
        let id = Self.exerciseID
        let noCircuits = TemplateDraft(
            name: "Core",
            items: [TemplateItemDraft(exerciseID: id, targetSets: 1, repsMin: 0, targetDurationSeconds: 30, circuit: 1)]
        )
        #expect(
            throws: SpotterError.invalid("template.items[0].circuit", "must be 0: the template has no circuits")
        ) { try noCircuits.validated() }
        let split = TemplateDraft(
            name: "Core",
            items: [
                TemplateItemDraft(exerciseID: id, targetSets: 1, repsMin: 10, section: .warmUp, circuit: 1),
                TemplateItemDraft(exerciseID: id, targetSets: 1, repsMin: 10, circuit: 1),
            ],
            circuits: [TemplateCircuit(rounds: 2)])
        #expect(
            throws: SpotterError.invalid("template.circuits[0]", "must have all its items in one section")
        ) { try split.validated() }
        let noTarget = TemplateDraft(
            name: "Core", items: [TemplateItemDraft(exerciseID: id, targetSets: 1, repsMin: 0)])
        #expect(
            throws: SpotterError.invalid(
                "template.items[0].reps_min", "must be between 1 and 100 (0 only with a target time or distance)")
        ) { try noTarget.validated() }
        let badTime = TemplateDraft(
            name: "Core",
            items: [TemplateItemDraft(exerciseID: id, targetSets: 1, repsMin: 0, targetDurationSeconds: 0)])
        #expect(
            throws: SpotterError.invalid(
                "template.items[0].target_duration_seconds", "must be between 1 and 86400 seconds")
        ) { try badTime.validated() }
    }

    @Test("a circuit counts once per round in the estimate: 3 rounds of a 45 s plank and 10 reps, 60 s between rounds")
    func circuitEstimate() throws {
        let content = try TemplateDraft(
            name: "Core",
            items: [
                TemplateItemDraft(
                    exerciseID: Self.exerciseID, targetSets: 1, repsMin: 0, restSeconds: 0, targetDurationSeconds: 45,
                    circuit: 1),
                TemplateItemDraft(exerciseID: Self.exerciseID, targetSets: 1, repsMin: 10, restSeconds: 0, circuit: 1),
            ],
            circuits: [TemplateCircuit(rounds: 3, restSeconds: 60)]
        ).validated()
        #expect(content.items.map(content.plannedSets) == [3, 3])
        // Plank: 3 × (10 + 45) s; reps: 3 × (10 + 40) s; one changeover; two rests between rounds.
        #expect(SessionEstimate.seconds(content) == 3 * 55 + 3 * 50 + 60 + 2 * 60)
    }
}
