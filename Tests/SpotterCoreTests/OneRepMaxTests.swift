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
