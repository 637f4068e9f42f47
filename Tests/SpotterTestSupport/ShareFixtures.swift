import Foundation
import SpotterCore

/// A workout and a progress report to draw share images from, with user-written text that must
/// be escaped.
public enum ShareFixtures {
    public static let bench = ExerciseID("c0000000-0000-4000-8000-000000000002")!
    public static let row = ExerciseID("c0000000-0000-4000-8000-000000000007")!
    public static let pullUp = ExerciseID("c0000000-0000-4000-8000-000000000073")!
    public static let started = Date(timeIntervalSince1970: 1_709_658_300)  // 2024-03-05 17:05 UTC

    public static func workout(name: String = "Push <day> & \"PR\" attempt", exercises count: Int = 3) -> Workout {
        let ids = [bench, row, pullUp] + (0..<max(0, count - 3)).map { _ in ExerciseID.random() }
        var names: [ExerciseID: String] = [bench: "Barbell Bench Press", row: "Barbell Row", pullUp: "Pull-Up"]
        for (index, id) in ids.enumerated() where names[id] == nil { names[id] = "Accessory \(index)" }
        let content = WorkoutContent(
            name: name, startedAt: started, durationSeconds: 3900,
            exercises: ids.prefix(count).enumerated().map { index, id in
                WorkoutExercise(
                    exerciseID: id,
                    sets: [
                        WorkoutSet(reps: 10, weight: Mass(40, .kg), type: .warmUp),
                        WorkoutSet(reps: 5, weight: id == pullUp ? nil : Mass(Decimal(100 + index * 5) + 2.5, .kg)),
                        WorkoutSet(reps: 5, weight: id == pullUp ? nil : Mass(Decimal(100 + index * 5), .kg)),
                        WorkoutSet(reps: 6, weight: id == pullUp ? nil : Mass(Decimal(100 + index * 5), .kg)),
                    ])
            })
        return Workout(
            id: WorkoutID.random(), content: content, templateVersion: nil, exerciseNames: names,
            summary: content.summary, version: 1, createdAt: started, updatedAt: started)
    }

    /// Twelve weeks of bench press, the estimate climbing with a dip.
    public static func progress(days: Int = 24) -> ProgressReport {
        let exercise = Exercise(
            id: bench, name: "Barbell Bench Press", category: .push, muscleGroup: .chest, equipment: .barbell,
            instructions: "")
        let sets = (0..<days).map { day in
            let kilograms = Decimal(90 + day * 2 - (day % 5 == 4 ? 6 : 0)) + Decimal(day % 2) * 2.5
            return ExerciseSetRecord(
                workoutID: WorkoutID.random(), workoutName: nil,
                startedAt: started.addingTimeInterval(Double(day) * 3.5 * 86_400), exerciseIndex: 0, setIndex: 0,
                set: WorkoutSet(reps: 5, weight: Mass(kilograms, .kg)))
        }
        return ProgressCalculator.report(exercise: exercise, sets: sets, formula: .epley, timeZone: .gmt)
    }
}

/// A renderer for tests that only ask for SVG: any PNG request fails the way a server without
/// rsvg-convert answers.
public struct SVGOnlyRenderer: ImageRenderer {
    public init() {}

    public func png(svg: String, width: Int, height: Int) async throws -> Data {
        throw SpotterError.unavailable("this test renders SVG only")
    }
}

/// A renderer that answers a PNG signature followed by the SVG, so a test sees which picture was
/// asked for without running rsvg-convert.
public struct FakePNGRenderer: ImageRenderer {
    public static let signature = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])

    public init() {}

    public func png(svg: String, width: Int, height: Int) async throws -> Data {
        Self.signature + Data(svg.utf8)
    }
}

/// The Strong and Hevy export samples written for the import tests
/// (`Tests/SpotterPostgresTests/Imports/`).
public enum ImportSamples {
    public static func data(_ name: String) throws -> Data {
        try Data(
            contentsOf: TestDatabase.repositoryRoot.appendingPathComponent("Tests/SpotterPostgresTests/Imports/\(name)")
        )
    }
}
