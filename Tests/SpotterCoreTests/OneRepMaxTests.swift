import Foundation
import SpotterCore
import Testing

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

@Suite("Training rules: RPE counted as reps in reserve")
struct TrainingRulesRepsInReserveTests {
    @Test("a set with an RPE counts reps + (10 − RPE) in the chosen formula")
    func repsInReserve() {
        // 100 kg × 5 at RPE 8: 7 reps by Epley, 100 × (1 + 7/30); by Brzycki 100 × 36 / 30.
        expectEstimate(
            OneRepMax.estimate(weight: kg(100), reps: 5, rpe: 8, formula: .epley), 100 * (1 + 7.0 / 30), .epley,
            repsInReserve: 2)
        expectEstimate(
            OneRepMax.estimate(weight: kg(100), reps: 5, rpe: 8, formula: .brzycki), 120, .brzycki, repsInReserve: 2)
        // Half steps count half a rep.
        expectEstimate(
            OneRepMax.estimate(weight: kg(100), reps: 3, rpe: decimal("8.5"), formula: .epley), 100 * (1 + 4.5 / 30),
            .epley, repsInReserve: 1.5)
        // 8 reps at RPE 6 is 12 counted, the farthest the formulas go.
        expectEstimate(
            OneRepMax.estimate(weight: kg(60), reps: 8, rpe: 6, formula: .brzycki), 60 * 36 / 25.0, .brzycki,
            repsInReserve: 4)
    }

    @Test("a single at RPE 10 is its own weight; at RPE 9 it counts as two reps")
    func singles() {
        expectEstimate(
            OneRepMax.estimate(weight: kg(180), reps: 1, rpe: 10, formula: .epley), 180, .epley, repsInReserve: 0)
        expectEstimate(
            OneRepMax.estimate(weight: kg(180), reps: 1, rpe: 10, formula: .brzycki), 180, .brzycki, repsInReserve: 0)
        expectEstimate(
            OneRepMax.estimate(weight: kg(180), reps: 1, rpe: 9, formula: .epley), 180 * (1 + 2.0 / 30), .epley,
            repsInReserve: 1)
    }

    @Test("an RPE below 6 gives no estimate, saying it is below 6")
    func rpeBelowSix() throws {
        let estimate = OneRepMax.estimate(weight: kg(100), reps: 3, rpe: decimal("5.5"), formula: .epley)
        #expect(estimate.kilograms == nil)
        let reason = try #require(noEstimateReason(estimate))
        #expect(reason == "RPE 5.5 is below 6, too far from a maximum to estimate one")
    }

    @Test("more than 12 reps counted, with those in reserve, gives no estimate, saying so")
    func tooManyReps() {
        #expect(OneRepMax.estimate(weight: kg(40), reps: 13, rpe: 9, formula: .epley).kilograms == nil)
        #expect(OneRepMax.estimate(weight: kg(40), reps: 11, rpe: 9, formula: .epley).kilograms != nil)
        // 12 reps at RPE 6 would be 16 counted: Brzycki would make 60 kg a 103 kg max.
        #expect(
            OneRepMax.estimate(weight: kg(60), reps: 12, rpe: 6, formula: .brzycki)
                == .none(
                    reason: "12 reps with 4 in reserve (RPE 6) count as more than the 12 reps the formulas hold for"))
        #expect(
            OneRepMax.estimate(weight: kg(60), reps: 10, rpe: decimal("7.5"), formula: .epley)
                == .none(
                    reason: "10 reps with 2.5 in reserve (RPE 7.5) count as more than the 12 reps the formulas hold for"
                ))
    }
}
