import Foundation
import ValueText

/// How a set's one-rep max is estimated. A set logged with an RPE counts its reps in reserve too
/// (`reps + (10 − RPE)`), in the same formula.
public enum E1RMFormula: String, Sendable, Codable, CaseIterable {
    /// weight × (1 + reps / 30); a single is its own weight.
    case epley
    /// weight × 36 / (37 − reps).
    case brzycki
}

extension E1RMFormula {
    /// The formula's name as pages and images show it.
    public var name: String {
        switch self {
        case .epley: "Epley"
        case .brzycki: "Brzycki"
        }
    }

    /// What estimated a series of points, as "estimated by …" ends: "Epley", or "Epley with reps in
    /// reserve" when a point's set was logged with an RPE.
    public func describing(countingReserve: Bool) -> String {
        countingReserve ? "\(name) with reps in reserve" : name
    }

    /// The estimate from `reps` (the set's, plus any in reserve) at `kilograms`.
    func kilograms(_ kilograms: Double, reps: Double) -> Double {
        switch self {
        // × (30 + reps) / 30 rather than × (1 + reps / 30): equal estimates of different sets come
        // out equal (90 kg × 10 and 100 kg × 6 are both 120 kg), so neither is a record over the other.
        case .epley: reps == 1 ? kilograms : kilograms * (30 + reps) / 30
        case .brzycki: kilograms * 36 / (37 - reps)
        }
    }
}

/// An estimated one-rep max, or why there is none.
public enum E1RMEstimate: Sendable, Equatable {
    /// `repsInReserve` is `10 − RPE` for a set logged with one, counted with its reps.
    case estimate(kilograms: Double, formula: E1RMFormula, repsInReserve: Double?)
    case none(reason: String)

    public var kilograms: Double? {
        if case .estimate(let kilograms, _, _) = self { return kilograms }
        return nil
    }
}

/// Estimated one-rep maxes. Estimates are only given where the formulas are known to hold: 1–12
/// reps counted, a set's reps and its reps in reserve together, and for a set with an RPE, RPE
/// 6–10 (a lower RPE is too rough a guess to build a maximum on). Outside that the answer says why
/// instead of inventing a number: Brzycki at 16 reps would put a light set at RPE 6 above a heavy
/// single.
public enum OneRepMax {
    public static let maxReps = 12

    /// Reps in reserve as words say them: "2", "1.5".
    public static func repsText(_ reps: Double) -> String {
        reps == reps.rounded() ? String(Int(reps)) : String(reps)
    }
    public static let minimumRPE = 6

    /// The estimate for one set by `formula`. A set with a logged RPE counts its reps in reserve,
    /// `reps + (10 − RPE)`: 100 kg × 5 at RPE 8 is estimated as 7 reps.
    public static func estimate(weight: Mass?, reps: Int, rpe: Decimal?, formula: E1RMFormula) -> E1RMEstimate {
        guard let weight, weight > .zero else { return .none(reason: "the set has no weight") }
        guard reps >= 1 else { return .none(reason: "the set has no completed reps") }
        guard reps <= maxReps else {
            return .none(reason: "\(reps) reps is outside the 1–\(maxReps) rep range of the formulas")
        }
        let kilograms = weight.approximateKilograms
        guard let rpe else {
            return .estimate(
                kilograms: formula.kilograms(kilograms, reps: Double(reps)), formula: formula, repsInReserve: nil)
        }
        let value = rpe.doubleValue
        guard value >= Double(minimumRPE) else {
            return .none(reason: "RPE \(rpe) is below \(minimumRPE), too far from a maximum to estimate one")
        }
        guard value <= 10 else { return .none(reason: "RPE \(rpe) is above 10") }
        let reserve = 10 - value
        guard Double(reps) + reserve <= Double(maxReps) else {
            return .none(
                reason:
                    "\(reps) reps with \(repsText(reserve)) in reserve (RPE \(rpe)) count as more than the \(maxReps) reps the formulas hold for"
            )
        }
        return .estimate(
            kilograms: formula.kilograms(kilograms, reps: Double(reps) + reserve), formula: formula,
            repsInReserve: reserve)
    }
}
