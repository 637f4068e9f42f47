import Foundation
import SpotterCore
import Testing

// Helpers and fixed exercises shared by the training rule tests.

/// The violations `body` throws as `invalidArgument`; records an issue for any other outcome.
func violations<T>(
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

func expectEstimate(
    _ estimate: E1RMEstimate,
    _ kilograms: Double,
    _ formula: E1RMFormula,
    repsInReserve: Double? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard case .estimate(let actual, let used, let reserve) = estimate else {
        Issue.record("expected an estimate, got \(estimate)", sourceLocation: sourceLocation)
        return
    }
    #expect(abs(actual - kilograms) < 1e-9, "\(actual) ≠ \(kilograms)", sourceLocation: sourceLocation)
    #expect(used == formula, sourceLocation: sourceLocation)
    #expect(reserve == repsInReserve, sourceLocation: sourceLocation)
}

func noEstimateReason(_ estimate: E1RMEstimate) -> String? {
    if case .none(let reason) = estimate { return reason }
    return nil
}

func kg(_ value: Decimal) -> Mass { Mass(kilograms: value) }

func decimal(_ text: String) -> Decimal { Decimal(string: text)! }

func date(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso)! }

let squatID = ExerciseID("6f2b1d0e-3c4a-4b5e-9f60-718293a4b5c6")!
let flyID = ExerciseID("0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9")!

let squat = Exercise(
    id: squatID, name: "Barbell Back Squat", category: .squat, muscleGroup: .quadriceps, equipment: .barbell,
    instructions: "", bigThree: .squat)
let fly = Exercise(
    id: flyID, name: "Cable Fly", category: .isolation, muscleGroup: .chest, equipment: .cable, instructions: "")
