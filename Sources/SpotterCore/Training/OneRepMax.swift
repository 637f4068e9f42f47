import Foundation
import ValueText

/// How a set's one-rep max is estimated.
public enum E1RMFormula: String, Sendable, Codable, CaseIterable {
    /// weight × (1 + reps / 30); a single is its own weight.
    case epley
    /// weight × 36 / (37 − reps).
    case brzycki
    /// weight ÷ the RTS percentage for (reps, RPE).
    case rpe
}

extension E1RMFormula {
    /// The formula's name as pages and images show it.
    public var name: String {
        switch self {
        case .epley: "Epley"
        case .brzycki: "Brzycki"
        case .rpe: "RPE table"
        }
    }

    /// What estimated a series of points, as "estimated by …" ends: "the RPE table", "Epley", or
    /// "the RPE table, else Epley" when both did (sets with an RPE use the table, the others `self`).
    public func describing(_ used: some Sequence<E1RMFormula>) -> String {
        let used = Set(used)
        if used == [.rpe] { return "the \(E1RMFormula.rpe.name)" }
        return used.contains(.rpe) ? "the \(E1RMFormula.rpe.name), else \(name)" : name
    }
}

/// An estimated one-rep max, or why there is none.
public enum E1RMEstimate: Sendable, Equatable {
    case estimate(kilograms: Double, formula: E1RMFormula)
    case none(reason: String)

    public var kilograms: Double? {
        if case .estimate(let kilograms, _) = self { return kilograms }
        return nil
    }
}

/// Estimated one-rep maxes. Estimates are only given where a formula is known to hold: 1–12 reps,
/// and RPE 6–10 for the RPE table. Outside that the answer says why instead of inventing a number.
public enum OneRepMax {
    public static let maxReps = 12

    /// The RTS (Reactive Training Systems) RPE chart: percent of one-rep max for reps 1–12 at RPE 10
    /// down to 6 in half steps. Each half point of RPE and each extra rep moves one step along the
    /// same sequence, so `percentages[2 × (reps − 1) + 2 × (10 − RPE)]`.
    static let rtsPercentages: [Double] = [
        100.0, 97.8, 95.5, 93.9, 92.2, 90.7, 89.2, 87.8, 86.3, 85.0, 83.7, 82.4, 81.1, 79.9, 78.6, 77.4,
        76.2, 75.1, 73.9, 72.3, 70.7, 69.4, 68.0, 66.7, 65.3, 64.0, 62.6, 61.3, 59.9, 58.6, 57.2,
    ]

    /// The RTS percentage of one-rep max for `reps` at `rpe`, or `nil` outside 1–12 reps, RPE 6–10.
    public static func rtsPercentage(reps: Int, rpe: Decimal) -> Double? {
        rtsPercentage(reps: reps, rpe: rpe.doubleValue)
    }

    /// The same for an RPE read as a `Double` (a `Decimal` comparison costs more than the rest of
    /// an estimate).
    private static func rtsPercentage(reps: Int, rpe: Double) -> Double? {
        guard (1...maxReps).contains(reps), rpe >= 6, rpe <= 10, (rpe * 2).rounded() == rpe * 2 else { return nil }
        return rtsPercentages[2 * (reps - 1) + Int((10 - rpe) * 2)]
    }

    /// The estimate for one set. A set with a logged RPE uses the RPE table; otherwise `formula`
    /// (Epley or Brzycki).
    public static func estimate(weight: Mass?, reps: Int, rpe: Decimal?, formula: E1RMFormula) -> E1RMEstimate {
        guard let weight, weight > .zero else { return .none(reason: "the set has no weight") }
        guard reps >= 1 else { return .none(reason: "the set has no completed reps") }
        guard reps <= maxReps else {
            return .none(reason: "\(reps) reps is outside the 1–\(maxReps) rep range of the formulas")
        }
        let kilograms = weight.approximateKilograms
        if let rpe {
            let value = rpe.doubleValue
            guard value >= 6 else {
                return .none(reason: "RPE \(rpe) is below 6, outside the RPE table")
            }
            guard let percentage = rtsPercentage(reps: reps, rpe: value) else {
                return .none(reason: "RPE \(rpe) is outside the RPE table")
            }
            return .estimate(kilograms: kilograms * 100 / percentage, formula: .rpe)
        }
        switch formula {
        case .brzycki:
            return .estimate(kilograms: kilograms * 36 / Double(37 - reps), formula: .brzycki)
        case .epley, .rpe:
            let estimate = reps == 1 ? kilograms : kilograms * (1 + Double(reps) / 30)
            return .estimate(kilograms: estimate, formula: .epley)
        }
    }
}
