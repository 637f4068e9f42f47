import Foundation
import SpotterCore
import SpotterTestSupport
import Testing

/// The clusters Spotter creates fold every alphabet's letters (`lower()` and `ILIKE` under the
/// `C.UTF-8` character type), not only A–Z: a walk-through found "Épaules", "Жим" and "Überkopf"
/// unfindable by any spelling, and "жим лёжа" accepted beside a custom "Жим лёжа".
@Suite("Letters beyond A–Z: search and unique names ignore their case")
struct UnicodeCaseTests {
    private let start = Date(timeIntervalSince1970: 1_790_000_000)

    @Test(
        "a workout and a custom exercise are found by a word with a capital accented or Cyrillic letter, in either case"
    )
    func searchAndNames() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let press = try await training.exercises.create(
                ada, id: "",
                ExerciseDraft(
                    name: "Жим лёжа узким", category: .push, muscleGroup: .chest, equipment: .barbell,
                    instructions: ""))
            _ = try await training.exercises.create(
                ada, id: "",
                ExerciseDraft(
                    name: "Élévations latérales", category: .isolation, muscleGroup: .shoulders,
                    equipment: .dumbbell, instructions: ""))
            func exercises(_ query: String) async throws -> [String] {
                try await training.exercises.list(ada, ExerciseFilter(query: query), pageSize: 100, pageToken: "")
                    .items.map(\.name)
            }
            for query in ["Жим", "жим", "ЖИМ ЛЁЖА"] {
                #expect(try await exercises(query) == ["Жим лёжа узким"], "\(query)")
            }
            for query in ["Élévations", "élévations", "ÉLÉVATIONS LATÉRALES"] {
                #expect(try await exercises(query) == ["Élévations latérales"], "\(query)")
            }
            // The same name in other letters' case is taken, as "DIPS" is beside "Dips".
            for name in ["жим лёжа узким", "ЖИМ ЛЁЖА УЗКИМ"] {
                await #expect(throws: SpotterError.alreadyExists(field: "exercise.name", reason: "is already taken")) {
                    try await training.exercises.create(
                        ada, id: "",
                        ExerciseDraft(
                            name: name, category: .push, muscleGroup: .chest, equipment: .barbell, instructions: ""))
                }
            }

            _ = try await training.workouts.log(
                ada, id: "",
                WorkoutDraft(
                    name: "Épaules et Ölympia", startedAt: start, durationSeconds: 600,
                    exercises: [
                        WorkoutExerciseDraft(
                            exerciseID: press.id.description,
                            sets: [SetDraft(reps: 5, weight: WeightDraft(value: 60, unit: .kg))])
                    ]))
            for text in ["Épaules", "épaules", "ÖLYMPIA", "ölympia", "жим"] {
                let found = try await training.workouts.history(
                    ada, from: nil, to: nil, text: text, pageSize: 10, pageToken: "")
                #expect(found.items.map(\.name) == ["Épaules et Ölympia"], "\(text)")
            }
        }
    }
}
