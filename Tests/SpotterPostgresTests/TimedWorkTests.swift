import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

@Suite("Timed sets, sections and circuits on PostgreSQL")
struct TimedWorkTests {
    /// 2026-09-21 12:00 UTC.
    private let now = Date(timeIntervalSince1970: 1_790_000_000)
    private static let plank = ExerciseID("c0000000-0000-4000-8000-000000000077")!
    private static let carry = ExerciseID("c0000000-0000-4000-8000-000000000043")!

    /// A circuit template: a warm-up, a 3-round circuit of planks (45 s) and carries (40 m), squats after.
    private static let circuitTemplate = TemplateDraft(
        name: "Core circuit",
        items: [
            TemplateItemDraft(
                exerciseID: Catalog.squat.description, targetSets: 1, repsMin: 10, section: .warmUp),
            TemplateItemDraft(
                exerciseID: plank.description, targetSets: 1, repsMin: 0, restSeconds: 15,
                targetDurationSeconds: 45, circuit: 1),
            TemplateItemDraft(
                exerciseID: carry.description, targetSets: 1, repsMin: 0, targetDistanceMeters: 40, circuit: 1),
            TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 3, repsMin: 5),
        ],
        circuits: [TemplateCircuit(rounds: 3, restSeconds: 60)]
    )

    @Test("a template's sections, circuits and time or distance targets are stored and log as planned")
    func circuitTemplateLogsAsPlanned() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await database.lifter("ada")
            let template = try await training.templates.create(ada, id: "", Self.circuitTemplate)
            let stored = try await training.templates.get(ada, id: template.id.description)
            #expect(stored.content == template.content)
            #expect(stored.content.circuits == [TemplateCircuit(rounds: 3, restSeconds: 60)])
            #expect(stored.content.items.map(\.section) == [.warmUp, .main, .main, .main])
            #expect(stored.content.items.map(\.circuit) == [0, 1, 1, 0])
            #expect(stored.content.items[1].targetDurationSeconds == 45)
            #expect(stored.content.items[2].targetDistanceMeters == 40 && stored.content.items[2].repsMin == 0)

            // Logging from it: a circuit item once per round, with its time or distance.
            let prefilled = try await training.workouts.prefill(
                ada, templateID: template.id.description, startedAt: now)
            #expect(prefilled.exercises.map(\.sets.count) == [1, 3, 3, 3])
            #expect(prefilled.exercises[1].sets.allSatisfy { $0.durationSeconds == 45 && $0.reps == 0 })
            #expect(prefilled.exercises[2].sets.allSatisfy { $0.distanceMeters == 40 })
            #expect(prefilled.exercises.map(\.circuit) == [0, 1, 1, 0])
            #expect(prefilled.exercises.first?.section == .warmUp)

            // An edit that breaks the circuit is refused naming it, and the stored template stays.
            var broken = Self.circuitTemplate
            broken.items.swapAt(2, 3)
            broken.circuits.append(TemplateCircuit(rounds: 0, restSeconds: 4000))
            let refusal = await #expect(throws: SpotterError.self) {
                try await training.templates.update(ada, id: template.id.description, broken, expectedVersion: nil)
            }
            guard case .invalidArgument(let violations) = refusal else {
                Issue.record("expected a refusal, got \(String(describing: refusal))")
                return
            }
            let reasons = Dictionary(violations.map { ($0.field, $0.reason) }, uniquingKeysWith: { $0 + "; " + $1 })
            #expect(reasons["template.circuits[0]"]?.contains("consecutive") == true)
            #expect(reasons["template.circuits[1].rounds"] == "must be between 1 and 20")
            #expect(reasons["template.circuits[1].rest_seconds"] == "must be between 0 and 3600")
            #expect(reasons["template.circuits[1]"]?.contains("has no items") == true)
            #expect(try await training.templates.get(ada, id: template.id.description).content == template.content)
        }
    }

    @Test("timed and distance sets are logged, read back, pass through history and export, and set records")
    func timedSetsRoundTrip() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let training = database.trainingServices(clock: clock)
            let ada = try await database.lifter("ada")
            func log(_ day: Int, plank: [Int], carries: [(Int, Int, Double)]) async throws -> Workout {
                try await training.workouts.log(
                    ada, id: "",
                    WorkoutDraft(
                        name: "Conditioning", startedAt: now.addingTimeInterval(Double(day - 10) * 86_400),
                        durationSeconds: 1800,
                        exercises: [
                            WorkoutExerciseDraft(
                                exerciseID: Self.plank.description,
                                sets: plank.map { SetDraft(reps: nil, durationSeconds: $0) }, circuit: 1),
                            WorkoutExerciseDraft(
                                exerciseID: Self.carry.description,
                                sets: carries.map {
                                    SetDraft(
                                        reps: nil, weight: WeightDraft(value: $0.2, unit: .kg), durationSeconds: $0.1,
                                        distanceMeters: $0.0)
                                }, section: .coolDown, circuit: 1),
                        ]))
            }
            let first = try await log(1, plank: [45, 60], carries: [(40, 30, 32), (100, 70, 24)])
            let read = try await training.workouts.get(ada, id: first.id.description)
            #expect(read.content == first.content)
            #expect(read.content.exercises[0].sets.map(\.durationSeconds) == [45, 60])
            #expect(read.content.exercises[0].sets.map(\.reps) == [0, 0])
            #expect(read.content.exercises[1].sets.map(\.distanceMeters) == [40, 100])
            #expect(read.content.exercises[1].section == .coolDown && read.content.exercises[1].circuit == 1)
            _ = try await log(2, plank: [75, 30], carries: [(40, 27, 32)])
            _ = try await log(3, plank: [50], carries: [(100, 80, 24)])

            // A retried log of the same content is recognised (the fingerprint covers time and distance),
            // a different time under the same id is refused.
            let retry = try await training.workouts.log(
                ada, id: first.id.description,
                WorkoutDraft(
                    name: first.content.name, startedAt: first.content.startedAt, durationSeconds: 1800,
                    exercises: first.content.exercises.map { exercise in
                        WorkoutExerciseDraft(
                            exerciseID: exercise.exerciseID.description,
                            sets: exercise.sets.map {
                                SetDraft(
                                    reps: nil,
                                    weight: $0.weight.map { WeightDraft(value: $0.kilograms.doubleValue, unit: .kg) },
                                    durationSeconds: $0.durationSeconds, distanceMeters: $0.distanceMeters)
                            }, section: exercise.section, circuit: exercise.circuit)
                    }))
            #expect(retry.id == first.id && retry.version == first.version)

            // Records: the longest hold, the farthest set, the fastest time at each distance (progress
            // beyond the big three is the Pro tier's).
            try await database.asOwner {
                try await $0.query("UPDATE tenants SET tier = 'pro' WHERE tenant_id = $1", [ada.tenantID.rawValue])
            }
            let plank = try await training.progress.progress(
                ada, exerciseID: Self.plank.description, from: nil, to: nil, formula: .epley)
            #expect(plank.records.longestSet?.set.durationSeconds == 75)
            #expect(plank.points.map { $0.longestSet?.set.durationSeconds } == [60, 75, 50])
            let carry = try await training.progress.progress(
                ada, exerciseID: Self.carry.description, from: nil, to: nil, formula: .epley)
            #expect(carry.records.farthestSet?.set.distanceMeters == 100)
            #expect(carry.records.bestTimes.map(\.set.distanceMeters) == [100, 40])
            #expect(carry.records.bestTimes.map(\.set.durationSeconds) == [70, 27])
            #expect(carry.points.map(\.distanceMeters) == [140, 40, 100])

            // The JSON export carries them, and importing it into another account brings them back.
            var exported = Data()
            try await training.transfer.export(ada, format: .json) { exported.append($0) }
            let text = String(decoding: exported, as: UTF8.self)
            #expect(text.contains(#""duration_seconds":75"#))
            var csv = Data()
            try await training.transfer.export(ada, format: .csv) { csv.append($0) }
            let csvText = String(decoding: csv, as: UTF8.self)
            #expect(csvText.contains("set_duration_seconds,set_distance_m,section,circuit"))
            // A timed set without reps has none in the CSV, not 0.
            let timedRows = csvText.split(separator: "\r\n").filter { $0.contains(",75,") }
            #expect(!timedRows.isEmpty && timedRows.allSatisfy { $0.contains(",working,,") }, "\(timedRows)")
            #expect(csvText.contains(",,100,cool_down,1\r\n") || csvText.contains(",70,100,cool_down,1\r\n"))
            let bea = try await database.lifter("bea")
            _ = try await training.transfer.importWorkouts(bea, format: .spotterJSON, unit: nil, data: exported)
            let imported = try await training.workouts.history(
                bea, from: nil, to: nil, text: "", pageSize: 10, pageToken: "")
            #expect(imported.items.count == 3)
            let copy = try await training.workouts.get(bea, id: try #require(imported.items.last).id.description)
            #expect(copy.content.exercises == read.content.exercises)
        }
    }

    @Test("a timed circuit workout pushed by one device reaches another with its times, distances and sections")
    func syncCarriesTimedWork() async throws {
        try await TestDatabase.with { database in
            let sync = database.syncService(clock: TestClock(now))
            let ada = try await database.lifter("ada")
            var phone = try await SimulatedDevice.register(sync, ada, label: "phone")
            var watch = try await SimulatedDevice.register(sync, ada, label: "watch")
            let id = UUID()
            let draft = WorkoutDraft(
                name: "Finisher", startedAt: now.addingTimeInterval(-3600), durationSeconds: 900,
                exercises: [
                    WorkoutExerciseDraft(
                        exerciseID: Self.plank.description, sets: [SetDraft(reps: nil, durationSeconds: 90)],
                        section: .coolDown, circuit: 2),
                    WorkoutExerciseDraft(
                        exerciseID: Self.carry.description,
                        sets: [SetDraft(reps: nil, durationSeconds: 41, distanceMeters: 60)]),
                ])
            let results = try await phone.push(sync, [phone.put(.workout(draft), id, base: 0)])
            #expect(results.map(\.status) == [.applied], "\(results)")
            let changes = try await watch.pullAll(sync)
            let pulled = try #require(
                changes.compactMap { change -> Workout? in
                    guard case .workout(let workout) = change.object else { return nil }
                    return workout
                }.first)
            #expect(pulled.content.exercises.map(\.section) == [.coolDown, .main])
            #expect(pulled.content.exercises.map(\.circuit) == [2, 0])
            #expect(pulled.content.exercises[0].sets[0].durationSeconds == 90)
            #expect(pulled.content.exercises[1].sets[0].distanceMeters == 60)
            // A bad time in a push is refused naming it, like LogWorkout.
            var bad = draft
            bad.exercises[0].sets[0].durationSeconds = 0
            let refused = try await phone.push(sync, [phone.put(.workout(bad), UUID(), base: 0)])
            #expect(
                refused.first?.violations.map(\.field).contains { $0.hasSuffix("sets[0].duration_seconds") } == true)
        }
    }
}
