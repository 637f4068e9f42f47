import Foundation
import SpotterCore
import Testing

@Suite("Training rules: loads a template prescribes")
struct TrainingRulesTemplateLoadTests {
    static let exerciseID = "6f2b1d0e-3c4a-4b5e-9f60-718293a4b5c6"

    private func item(weight: WeightDraft? = nil, percent: Double? = nil) -> TemplateDraft {
        TemplateDraft(
            name: "Strength",
            items: [
                TemplateItemDraft(
                    exerciseID: Self.exerciseID, targetSets: 3, repsMin: 5, targetWeight: weight,
                    targetPercentOfMax: percent)
            ])
    }

    @Test("a weight in either unit is kept exactly, a percentage in half steps")
    func valid() throws {
        let pounds = try item(weight: WeightDraft(value: 225, unit: .lb)).validated()
        #expect(pounds.items[0].targetLoad == .weight(Mass(225, .lb)))
        let kilograms = try item(weight: WeightDraft(value: 102.5, unit: .kg)).validated()
        #expect(kilograms.items[0].targetLoad == .weight(Mass(kilograms: decimal("102.5"))))
        let percent = try item(percent: 72.5).validated()
        #expect(percent.items[0].targetLoad == .percentOfMax(decimal("72.5")))
        #expect(try item().validated().items[0].targetLoad == nil)
    }

    @Test("both at once, a weight of 0, a weight without a unit and a percentage out of range are named")
    func invalid() {
        #expect(
            throws: SpotterError.invalid(
                "template.items[0].target_percent_of_max",
                "must be unset when target_weight is set: prescribe a weight or a percentage of the max, not both")
        ) { try item(weight: WeightDraft(value: 100, unit: .kg), percent: 75).validated() }
        #expect(
            throws: SpotterError.invalid(
                "template.items[0].target_weight.value", "must be more than 0 (leave target_weight unset for none)")
        ) { try item(weight: WeightDraft(value: 0, unit: .kg)).validated() }
        #expect(throws: SpotterError.invalid("template.items[0].target_weight.unit", "must be set to KG or LB")) {
            try item(weight: WeightDraft(value: 100, unit: nil)).validated()
        }
        for percent in [0.5, 120.5, 72.3, .nan] {
            #expect(
                throws: SpotterError.invalid(
                    "template.items[0].target_percent_of_max", "must be a percentage from 1 to 120, in steps of 0.5"),
                "\(percent)"
            ) { try item(percent: percent).validated() }
        }
    }

    @Test("a percentage of a max is loaded to the nearest 2.5 kg or 5 lb; without a max there is no weight")
    func percentWeights() {
        let load = TemplateLoad.percentOfMax(75)
        // 75 % of 141 kg is 105.75 kg: 105 kg; of 141 kg in pounds (310.85 lb) 233.14 lb: 235 lb.
        #expect(load.resolvedWeight(maxKilograms: 141, unit: .kg) == Mass(105, .kg))
        #expect(load.resolvedWeight(maxKilograms: 141, unit: .lb) == Mass(235, .lb))
        #expect(load.resolvedWeight(maxKilograms: nil, unit: .kg) == nil)
        // Never below one step: 10 % of 20 kg is 2.5 kg, not 0.
        #expect(TemplateLoad.percentOfMax(10).resolvedWeight(maxKilograms: 20, unit: .kg) == Mass(2.5, .kg))
        // A weight shown exactly in the lifter's unit stays; in the other unit, the nearest plates.
        #expect(TemplateLoad.weight(Mass(225, .lb)).resolvedWeight(maxKilograms: 50, unit: .lb) == Mass(225, .lb))
        #expect(TemplateLoad.weight(Mass(100, .kg)).resolvedWeight(maxKilograms: nil, unit: .lb) == Mass(220, .lb))
        #expect(TemplateLoad.weight(Mass(225, .lb)).resolvedWeight(maxKilograms: nil, unit: .kg) == Mass(102.5, .kg))
        #expect(TemplateLoad.weight(Mass(20, .kg)).resolvedWeight(maxKilograms: nil, unit: .lb) == Mass(45, .lb))
    }

    @Test("prefill puts a prescribed weight and a percentage of the max into every planned set")
    func prefill() {
        let content = TemplateContent(
            name: "Heavy",
            items: [
                TemplateItem(exerciseID: squatID, targetSets: 2, repsMin: 5, repsMax: 5, targetLoad: .percentOfMax(80)),
                TemplateItem(
                    exerciseID: flyID, targetSets: 2, repsMin: 12, repsMax: 12, targetLoad: .weight(Mass(20, .kg))),
                TemplateItem(
                    exerciseID: ExerciseID("1a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9")!, targetSets: 1, repsMin: 5,
                    repsMax: 5, targetLoad: .percentOfMax(70)),
            ])
        let workout = content.prefill(
            templateID: TemplateID.random(), startedAt: date("2024-03-01T12:00:00Z"), maxes: [squatID: 200], unit: .kg)
        #expect(workout.exercises[0].sets.map(\.weight) == [Mass(160, .kg), Mass(160, .kg)])
        #expect(workout.exercises[1].sets.map(\.weight) == [Mass(20, .kg), Mass(20, .kg)])
        #expect(workout.exercises[2].sets.map(\.weight) == [nil], "no max known: left to the lifter")
    }

    @Test("a target weight sent back as the API showed it in the other unit keeps the stored weight")
    func keepingWeights() {
        let stored = TemplateContent(
            name: "Heavy",
            items: [
                TemplateItem(
                    exerciseID: squatID, targetSets: 3, repsMin: 5, repsMax: 5, targetLoad: .weight(Mass(45, .lb)))
            ])
        var sent = stored
        sent.items[0].targetLoad = .weight(Mass(decimal("20.41"), .kg))
        #expect(sent.keepingWeights(of: stored).items[0].targetLoad == .weight(Mass(45, .lb)))
        sent.items[0].targetLoad = .weight(Mass(decimal("20.5"), .kg))
        #expect(sent.keepingWeights(of: stored).items[0].targetLoad == .weight(Mass(decimal("20.5"), .kg)))
        // Moved below a new item, it is still known by its exercise.
        sent.items = [
            TemplateItem(exerciseID: flyID, targetSets: 1, repsMin: 5, repsMax: 5),
            TemplateItem(
                exerciseID: squatID, targetSets: 3, repsMin: 5, repsMax: 5,
                targetLoad: .weight(Mass(decimal("20.41"), .kg))),
        ]
        #expect(sent.keepingWeights(of: stored).items[1].targetLoad == .weight(Mass(45, .lb)))
    }

    @Test("loads survive the JSON of exports and publications; older JSON without them has none")
    func codable() throws {
        let item = TemplateItem(
            exerciseID: squatID, targetSets: 3, repsMin: 5, repsMax: 5, targetLoad: .weight(Mass(225, .lb)))
        let percent = TemplateItem(
            exerciseID: squatID, targetSets: 3, repsMin: 5, repsMax: 5, targetLoad: .percentOfMax(decimal("72.5")))
        for value in [item, percent] {
            let json = try JSONEncoder().encode(value)
            #expect(try JSONDecoder().decode(TemplateItem.self, from: json) == value)
        }
        // Weights as exact kilograms, as the export writes every weight.
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let text = String(decoding: try encoder.encode(item), as: UTF8.self)
        #expect(text.contains(#""target_weight_kg":102.058283"#), "\(text)")
        let old = #"{"exerciseID":"\#(squatID)","targetSets":3,"repsMin":5,"repsMax":5,"notes":""}"#
        #expect(try JSONDecoder().decode(TemplateItem.self, from: Data(old.utf8)).targetLoad == nil)
    }

    @Test("a weight is sent back in the unit that shows it exactly")
    func sendingWeights() {
        #expect(WeightDraft(sending: Mass(225, .lb)) == WeightDraft(value: 225, unit: .lb))
        #expect(WeightDraft(sending: Mass(decimal("102.5"), .kg)) == WeightDraft(value: 102.5, unit: .kg))
    }
}
