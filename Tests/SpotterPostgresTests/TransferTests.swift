import Foundation
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

@Suite("Export and import")
struct TransferTests {
    private let now = Date(timeIntervalSince1970: 1_790_000_000)

    /// A lifter in `timeZone`, with a principal that reads the setting afresh.
    private func lifter(
        _ database: TestDatabase, _ name: String, timeZone: String = "Europe/Berlin", pro: Bool = false
    ) async throws -> Principal {
        var principal = try await pro ? database.proLifter(name) : database.lifter(name)
        _ = try await database.accountService().updateProfile(principal, ProfileUpdate(timeZone: timeZone))
        principal.tenant = nil
        return principal
    }

    private func export(_ training: TrainingServices, _ principal: Principal, _ format: ExportFormat) async throws
        -> Data
    {
        var data = Data()
        try await training.transfer.export(principal, format: format) { data.append($0) }
        return data
    }

    private func history(_ training: TrainingServices, _ principal: Principal) async throws -> [Workout] {
        let page = try await training.workouts.history(
            principal, from: nil, to: nil, text: "", pageSize: 100, pageToken: "")
        var workouts: [Workout] = []
        for entry in page.items.reversed() {
            workouts.append(try await training.workouts.get(principal, id: entry.id.description))
        }
        return workouts
    }

    @Test(
        "Strong's CSV: local times, pounds, warm-ups, rest timers, notes with commas and line breaks, timed sets; repeated rows are reported, unknown exercises created once"
    )
    func strong() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await lifter(database, "ada")
            let report = try await training.transfer.importWorkouts(
                ada, format: .strongCSV, unit: .lb, data: try ImportSamples.data("strong.csv"))
            #expect(report.workoutsAdded == 2)
            #expect(report.setsAdded == 9)
            #expect(report.skipped.isEmpty)
            #expect(report.exercisesCreated == ["Zercher Squat (Barbell)"])
            #expect(report.notes == ["row 6 repeats row 5 and was left out"])

            let workouts = try await history(training, ada)
            #expect(workouts.count == 2)
            let push = workouts[0].content
            #expect(push.name == "Push, heavy")
            // The 60-second plank is a timed set: its time, no reps.
            let plank = try #require(
                push.exercises.first { workouts[0].exerciseNames[$0.exerciseID]?.contains("Plank") == true }?.sets.first
            )
            #expect(plank.durationSeconds == 60 && plank.reps == 0 && plank.distanceMeters == nil)
            // 18:05 in Berlin (CET) is 17:05 UTC.
            #expect(push.startedAt == Date(timeIntervalSince1970: 1_709_658_300))
            #expect(push.durationSeconds == 3900)
            #expect(push.notes == "Felt strong, slept 8h\nnew belt")
            #expect(push.exercises.map(\.exerciseID).prefix(1) == [Catalog.benchPress])
            #expect(workouts[0].exerciseNames[push.exercises[3].exerciseID] == "Pull-Up")
            let bench = push.exercises[0].sets
            #expect(bench.map(\.type) == [.warmUp, .working, .working])
            #expect(bench[1].weight == Mass(225, .lb))
            #expect(bench[1].rpe == Decimal(string: "8.5"))
            #expect(bench[1].restSeconds == 180)
            #expect(bench[1].note == "paused, 1 sec")
            #expect(workouts[1].content.exercises.map(\.exerciseID) == [Catalog.squat, Catalog.deadlift])
            #expect(workouts[1].content.exercises[0].sets[0].rpe == 9)
            #expect(workouts[1].content.exercises[0].sets[1].rpe == nil)

            let again = try await training.transfer.importWorkouts(
                ada, format: .strongCSV, unit: .lb, data: try ImportSamples.data("strong.csv"))
            #expect(again.workoutsAdded == 0)
            #expect(again.workoutsUnchanged == 2)
            #expect(again.exercisesCreated.isEmpty)
            #expect(try await database.count("SELECT count(*)::int FROM workouts") == 2)
            #expect(try await database.count("SELECT count(*)::int FROM exercises") == 1)
            // A workout deleted since stays deleted, and the import says why it was left out (it
            // said "a different workout with this start and name is already stored").
            try await training.workouts.delete(ada, id: workouts[0].id.description)
            let afterDelete = try await training.transfer.importWorkouts(
                ada, format: .strongCSV, unit: .lb, data: try ImportSamples.data("strong.csv"))
            #expect(afterDelete.workoutsAdded == 0 && afterDelete.workoutsUnchanged == 1)
            #expect(
                afterDelete.skipped.map(\.reason) == [
                    "it was imported before and you deleted it since, so it stays deleted"
                ])
            #expect(try await history(training, ada).count == 1)

            // After a move to another zone the file's local times are read in the new one: given the
            // zone of the first import, the same workouts are found again instead of added hours apart.
            let owner = try await database.ownerConnection()
            try await owner.query(
                "UPDATE tenants SET time_zone = 'America/Los_Angeles' WHERE tenant_id = $1", [ada.tenantID.rawValue])
            await owner.close()
            let travelled = try await training.transfer.importWorkouts(
                ada, format: .strongCSV, unit: .lb, timeZone: "Europe/Berlin",
                data: try ImportSamples.data("strong.csv"))
            #expect(travelled.workoutsAdded == 0 && travelled.workoutsUnchanged == 1 && travelled.skipped.count == 1)
            await #expect(
                throws: SpotterError.invalid(
                    "time_zone", "must be written Europe/Berlin (time zone names are case-sensitive)")
            ) {
                try await training.transfer.importWorkouts(
                    ada, format: .strongCSV, unit: .lb, timeZone: "europe/berlin",
                    data: try ImportSamples.data("strong.csv"))
            }
            let moved = try await training.transfer.importWorkouts(
                ada, format: .strongCSV, unit: .lb, data: try ImportSamples.data("strong.csv"))
            #expect(moved.workoutsAdded == 2, "read in Los Angeles: nine hours later, new workouts")
        }
    }

    @Test("Strong's older semicolon CSV: its own Weight Unit column, decimal commas, Workout Duration")
    func strongLegacy() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await lifter(database, "ada", timeZone: "UTC")
            let report = try await training.transfer.importWorkouts(
                ada, format: .strongCSV, unit: nil, data: try ImportSamples.data("strong-legacy.csv"))
            #expect(report.workoutsAdded == 1)
            #expect(report.exercisesCreated.isEmpty)
            let workout = try #require(try await history(training, ada).first).content
            #expect(workout.startedAt == Date(timeIntervalSince1970: 1_547_209_914))
            #expect(workout.durationSeconds == 3600)
            #expect(workout.exercises.map(\.exerciseID) == [Catalog.deadlift, Catalog.overheadPress])
            #expect(workout.exercises[0].sets.map(\.weight) == [Mass(100, .kg), Mass(Decimal(string: "102.5")!, .kg)])
            #expect(workout.exercises[1].sets[0].weight == Mass(135, .lb))
            #expect(workout.exercises[1].sets[0].rpe == 7)
            #expect(workout.exercises[1].sets[0].note == "grip; wider")
        }
    }

    @Test("Strong's and Hevy's names for the catalog's newer variations find them, not new custom exercises")
    func variationNames() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await lifter(database, "ada")
            let names = [
                "Bench Press (Paused)", "Straight Leg Deadlift", "Deadlift (Trap bar)", "EZ Bar Biceps Curl",
                "Ab Wheel", "Box Squat (Barbell)", "Rowing (Machine)", "Deficit Deadlift (Barbell)", "Larsen Press",
                "Clean and Jerk (Barbell)", "Chest Supported Incline Row (Dumbbell)", "Exercise Bike",
            ]
            let rows = names.enumerated().map { "2024-03-05 18:00:00,Variations,\($1),\($0 + 1),100,5" }
            let report = try await training.transfer.importWorkouts(
                ada, format: .strongCSV, unit: .kg,
                data: Data(
                    ("Date,Workout Name,Exercise Name,Set Order,Weight,Reps\n" + rows.joined(separator: "\n")).utf8))
            #expect(report.exercisesCreated == [])
            let workout = try #require(try await history(training, ada).first)
            #expect(
                workout.content.exercises.map { workout.exerciseNames[$0.exerciseID] } == [
                    "Pause Bench Press", "Stiff-Leg Deadlift", "Trap Bar Deadlift", "EZ-Bar Curl", "Ab Wheel Rollout",
                    "Box Squat", "Rowing Machine", "Deficit Deadlift", "Larsen Press", "Clean and Jerk",
                    "Chest-Supported Dumbbell Row", "Stationary Bike",
                ])
        }
    }

    @Test(
        "A custom exercise an earlier import made keeps its name's entries when the catalog gains that name; others do not"
    )
    func earlierImportsExercise() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await lifter(database, "ada")
            // What an import made for "Box Squat" before the catalog had one, and one Ada made herself.
            func custom(_ name: String, id: String) async throws -> Exercise {
                try await training.exercises.create(
                    ada, id: id,
                    ExerciseDraft(
                        name: name, category: .isolation, muscleGroup: .fullBody, equipment: .other,
                        instructions: "Created by an import."))
            }
            let imported = try await custom(
                "Box Squat (mine)",
                id: ExerciseID.derived(ada, "exercise", "boxsquat", namespace: "spotter-import").description)
            let own = try await custom("Larsen Press (mine)", id: "")
            // Named before the catalog had these names, which a lifter can no longer choose.
            try await database.asOwner {
                try await $0.query(
                    "UPDATE exercises SET name = left(name, -7) WHERE exercise_id IN ($1, $2)",
                    [imported.id.rawValue, own.id.rawValue])
            }
            let report = try await training.transfer.importWorkouts(
                ada, format: .strongCSV, unit: .kg,
                data: Data(
                    """
                    Date,Workout Name,Exercise Name,Set Order,Weight,Reps
                    2024-03-06 18:00:00,Variations,Box Squat,1,100,5
                    2024-03-06 18:00:00,Variations,Larsen Press,2,80,5
                    2024-03-06 18:00:00,Variations,Box Squat (Barbell),3,100,5
                    """.utf8))
            #expect(report.exercisesCreated == [])
            let workout = try #require(try await history(training, ada).first)
            let ids = workout.content.exercises.map(\.exerciseID)
            #expect(ids.count == 3)
            #expect(ids.first == imported.id, "the earlier import's Box Squat, not the catalog's")
            #expect(ids[1] != own.id, "the catalog's Larsen Press, as before")
            #expect(workout.exerciseNames[ids[1]] == "Larsen Press")
            #expect(
                ids[2] != imported.id && workout.exerciseNames[ids[2]] == "Box Squat",
                "the catalog's barbell Box Squat: the earlier import's has other equipment")

            // Archived, the earlier import's gives way to the catalog's.
            _ = try await training.exercises.archive(ada, id: imported.id.description, archived: true)
            let again = try await training.transfer.importWorkouts(
                ada, format: .strongCSV, unit: .kg,
                data: Data(
                    """
                    Date,Workout Name,Exercise Name,Set Order,Weight,Reps
                    2024-03-07 18:00:00,Box day,Box Squat,1,100,5
                    """.utf8))
            #expect(again.exercisesCreated == [])
            #expect(again.workoutsAdded == 1)
            let later = try #require(try await history(training, ada).first { $0.content.name == "Box day" })
            #expect(later.content.exercises.map(\.exerciseID) == [ids[2]])
        }
    }

    @Test("Hevy's CSV: set types, end time as duration, quoted descriptions, distance sets in metres")
    func hevy() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await lifter(database, "ada", timeZone: "America/New_York")
            let report = try await training.transfer.importWorkouts(
                ada, format: .hevyCSV, unit: nil, data: try ImportSamples.data("hevy.csv"))
            #expect(report.workoutsAdded == 2)
            #expect(report.setsAdded == 8)
            #expect(report.exercisesCreated == ["Viking Press"], "Hevy's Running is the catalog's Run")
            #expect(report.notes.isEmpty)
            let workouts = try await history(training, ada)
            let upper = workouts[0].content
            // 18:00 in New York (EST) is 23:00 UTC.
            #expect(upper.startedAt == Date(timeIntervalSince1970: 1_707_778_800))
            #expect(upper.durationSeconds == 4200)
            #expect(upper.notes == "Deload week, \"easy\"")
            #expect(upper.exercises[0].notes == "Elbows in")
            #expect(upper.exercises[0].sets.map(\.type) == [.warmUp, .working, .drop])
            #expect(upper.exercises[1].sets.map(\.type) == [.working, .failure])
            #expect(upper.exercises[1].sets[0].weight == Mass(Decimal(string: "70.5")!, .kg))
            #expect(workouts[0].exerciseNames[upper.exercises[1].exerciseID] == "Lat Pulldown")
            #expect(workouts[1].exerciseNames[workouts[1].content.exercises[0].exerciseID] == "Romanian Deadlift")
            #expect(workouts[1].content.exercises[0].sets[0].rpe == Decimal(string: "7.5"))
            // 5 km in 25 minutes: a distance set in metres, with its time.
            let run = try #require(
                upper.exercises.first { $0.exerciseID.description == "c0000000-0000-4000-8000-000000000200" }?.sets
                    .first)
            #expect(run.distanceMeters == 5_000 && run.durationSeconds == 1_500 && run.reps == 0)

            // Hevy's supersets (superset_id, from 0) are circuits (from 1); a plural name is the
            // catalog's singular exercise ("Dips" is Dip, "Pull Ups" is Pull-Up), not a new one.
            let supersets = """
                title,start_time,end_time,exercise_title,superset_id,set_type,reps,weight_kg
                Arms,"20 Feb 2024, 18:00","20 Feb 2024, 19:00",Dips,0,normal,10,
                Arms,"20 Feb 2024, 18:00","20 Feb 2024, 19:00",Pull Ups,0,normal,8,
                Arms,"20 Feb 2024, 18:00","20 Feb 2024, 19:00",Dips,0,normal,9,
                Arms,"20 Feb 2024, 18:00","20 Feb 2024, 19:00",Bench Press (Barbell),,normal,5,100

                """
            let arms = try await training.transfer.importWorkouts(
                ada, format: .hevyCSV, unit: nil, data: Data(supersets.utf8))
            #expect(arms.workoutsAdded == 1 && arms.exercisesCreated.isEmpty, "\(arms)")
            let armsWorkout = try #require(try await history(training, ada).first { $0.content.name == "Arms" })
            #expect(armsWorkout.content.exercises.map(\.circuit) == [1, 1, 1, 0])
            #expect(
                armsWorkout.content.exercises.map { armsWorkout.exerciseNames[$0.exerciseID] ?? "" } == [
                    "Dip", "Pull-Up", "Dip", "Barbell Bench Press",
                ])
        }
    }

    @Test("a file that cannot be read names the field and the row, and stores nothing")
    func unreadable() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await lifter(database, "ada")
            func refusal(_ format: ImportFormat?, _ text: String) async -> SpotterError? {
                do {
                    _ = try await training.transfer.importWorkouts(
                        ada, format: format, unit: nil, data: Data(text.utf8))
                    return nil
                } catch {
                    return error as? SpotterError
                }
            }
            let header = "Date,Workout Name,Exercise Name,Set Order,Weight,Reps\n"
            #expect(
                await refusal(.strongCSV, "Date,Workout Name,Exercise Name,Set Order,Reps\n")
                    == .invalid("data", "is not a Strong CSV export: the header has no \"weight\" column"))
            #expect(
                await refusal(
                    .strongCSV, header + "2024-03-05 18:00:00,A,Squat (Barbell),1,100,5\n05/03/2024,A,Squat,1,100,5\n")
                    == .invalid("data", "row 3: Date \"05/03/2024\" is not a date and time like 2024-03-05 18:30:00"))
            #expect(
                await refusal(
                    .strongCSV,
                    header + "2024-03-05 18:00:00,A,Squat (Barbell),1,100,5\n2024-03-05 18:00:00,\"A,Squat,1,100,5\n")
                    == .invalid(
                        "data",
                        "is not valid CSV: row 3: a field opens with a quote (\") that is never closed, so the rest of the file would be one field"
                    ))
            #expect(
                await refusal(
                    .hevyCSV,
                    "title,start_time,end_time,exercise_title,set_type,reps,weight_kg\nA,12 Feb 2024,,B,normal,5,10\n")
                    == .invalid(
                        "data", "row 2: start_time \"12 Feb 2024\" is not a date and time like \"5 Mar 2024, 18:30\""))
            #expect(
                await refusal(.spotterJSON, #"{"format":"strong"}"#)
                    == .invalid("data", "is not a Spotter export (its \"format\" must be \"spotter-export\")"))
            #expect(
                await refusal(.spotterJSON, #"{"format":"spotter-export","version":3}"#)
                    == .invalid("data", "is a Spotter export of version 3; this server reads up to version 2"))
            #expect(
                await refusal(nil, header)
                    == .invalid("format", "is required (STRONG_CSV, HEVY_CSV or SPOTTER_JSON)"))
            #expect(await refusal(.hevyCSV, "") == .invalid("data", "is empty"))
            #expect(try await database.count("SELECT count(*)::int FROM workouts") == 0)
            #expect(try await database.count("SELECT count(*)::int FROM exercises") == 0)
        }
    }

    @Test(
        "a value no set can have leaves its row out, an RPE out of range leaves its set without one, each with a note; the rest of the file is stored"
    )
    func badValuesLeftOut() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await lifter(database, "ada", timeZone: "UTC")
            let text = """
                Date,Workout Name,Exercise Name,Set Order,Weight,Reps,RPE,Seconds
                2024-03-05 18:00:00,A,Squat (Barbell),1,100,5,8,
                2024-03-05 18:00:00,A,Squat (Barbell),2,heavy,5,,
                2024-03-05 18:00:00,A,Squat (Barbell),Rest Timer,0,0,,90
                2024-03-05 18:00:00,A,Squat (Barbell),3,100,5.5,,
                2024-03-05 18:00:00,A,Squat (Barbell),4,105,3,11,
                2024-03-05 18:00:00,A,Squat (Barbell),5,5000,1,,
                2024-03-05 18:00:00,A,Squat (Barbell),6,20,1500,,

                """
            let report = try await training.transfer.importWorkouts(
                ada, format: .strongCSV, unit: .kg, data: Data(text.utf8))
            #expect(report.workoutsAdded == 1)
            #expect(
                report.notes == [
                    "row 3 was left out: weight \"heavy\" is not a number of at least 0",
                    "row 4 (a rest timer with no set before it) was left out",
                    "row 5 was left out: reps \"5.5\" is not a whole number of repetitions",
                    "row 6: RPE \"11\" is not between 1 and 10, so the set was kept without it",
                    // Under the file's own cut-offs once, but over the API's: the row, not the workout.
                    "row 7 was left out: a weight of 5000 kg is over the 2,000 kg (4,409.24 lb) a set can have",
                    "row 8 was left out: 1500 reps is more than the 1,000 a set can have",
                ])
            let sets = try #require(try await history(training, ada).first).content.exercises[0].sets
            #expect(sets.map(\.reps) == [5, 3])
            #expect(sets.map(\.rpe) == [8, nil])
            #expect(sets.map(\.restSeconds) == [nil, nil], "the rest after a row left out belongs to no kept set")

            // Hevy: a workout that ends before it starts is imported without a duration, once noted.
            let hevy = """
                title,start_time,end_time,exercise_title,set_type,reps,weight_kg
                Broken,"6 Mar 2024, 18:30","6 Mar 2024, 17:00",Squat (Barbell),normal,5,100
                Broken,"6 Mar 2024, 18:30","6 Mar 2024, 17:00",Squat (Barbell),normal,5,105

                """
            let broken = try await training.transfer.importWorkouts(
                ada, format: .hevyCSV, unit: .kg, data: Data(hevy.utf8))
            #expect(broken.workoutsAdded == 1)
            #expect(
                broken.notes == [
                    "row 2: end_time \"6 Mar 2024, 17:00\" is before start_time \"6 Mar 2024, 18:30\", so \"Broken\" was imported without a duration"
                ])
            // A workout's duration is its first row's: a later row's end before the start says
            // nothing about it (the note had claimed no duration for a workout stored with an hour).
            let laterRow = """
                title,start_time,end_time,exercise_title,set_type,reps,weight_kg
                Fine,"7 Mar 2024, 18:30","7 Mar 2024, 19:30",Squat (Barbell),normal,5,100
                Fine,"7 Mar 2024, 18:30","7 Mar 2024, 17:00",Squat (Barbell),normal,5,105

                """
            let fine = try await training.transfer.importWorkouts(
                ada, format: .hevyCSV, unit: .kg, data: Data(laterRow.utf8))
            #expect(fine.workoutsAdded == 1 && fine.notes.isEmpty, "\(fine.notes)")
            #expect(
                try await history(training, ada).first { $0.content.name == "Fine" }?.content.durationSeconds == 3_600)
        }
    }

    @Test(
        "numbers past every limit are capped or refused, never overflow: a duration of 10^20 hours, a rest of 1e300 s, year 99999"
    )
    func extremeNumbers() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await lifter(database, "ada", timeZone: "UTC")
            let text = """
                Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Seconds
                2024-03-05 18:00:00,A,99999999999999999999h 9999999999999999999m,Squat (Barbell),1,100,5,0
                2024-03-05 18:00:00,A,99999999999999999999h 9999999999999999999m,Squat (Barbell),Rest Timer,0,0,1e300

                """
            let report = try await training.transfer.importWorkouts(
                ada, format: .strongCSV, unit: .kg, data: Data(text.utf8))
            #expect(report.workoutsAdded == 1)
            let workout = try #require(try await history(training, ada).first).content
            #expect(workout.durationSeconds == 86_400)
            #expect(workout.exercises[0].sets[0].restSeconds == 3600)
            await #expect(
                throws: SpotterError.invalid(
                    "data", "row 2: start_time \"1 Jan 99999, 10:00\" is not a date and time like \"5 Mar 2024, 18:30\""
                )
            ) {
                _ = try await training.transfer.importWorkouts(
                    ada, format: .hevyCSV, unit: nil,
                    data: Data(
                        "title,start_time,end_time,exercise_title,set_type,reps,weight_kg\nA,\"1 Jan 99999, 10:00\",,B,normal,5,10\n"
                            .utf8))
            }
        }
    }

    @Test("a workout the API would refuse is skipped with the reason; the rest of the file is stored")
    func invalidWorkoutSkipped() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await lifter(database, "ada", timeZone: "UTC")
            let text = """
                Date,Workout Name,Exercise Name,Set Order,Weight,Reps
                2024-03-05 18:00:00,,Squat (Barbell),1,100,5
                2024-03-06 18:00:00,B,Squat (Barbell),1,100,5
                2099-03-06 18:00:00,C,Squat (Barbell),1,100,5

                """
            let report = try await training.transfer.importWorkouts(
                ada, format: .strongCSV, unit: .kg, data: Data(text.utf8))
            #expect(report.workoutsAdded == 1)
            #expect(
                report.skipped.map(\.reason) == [
                    "workouts[0].name: is required",
                    "workouts[2].started_at: must not be more than a day in the future",
                ])
        }
    }

    @Test("the JSON export leaves reps out of a timed set, as the CSV leaves them empty, and reads it back")
    func jsonTimedSet() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await lifter(database, "ada")
            var draft = workoutDraft("Core", at: Date(timeIntervalSince1970: 1_709_658_300), sets: 1)
            draft.exercises[0].sets.append(SetDraft(reps: nil, durationSeconds: 60))
            _ = try await training.workouts.log(ada, id: "", draft)
            let data = try await export(training, ada, .json)
            let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let workouts = try #require(document["workouts"] as? [[String: Any]])
            let exercises = try #require(workouts.first?["exercises"] as? [[String: Any]])
            let sets = try #require(exercises.first?["sets"] as? [[String: Any]])
            #expect(sets.count == 2)
            #expect(sets[0]["reps"] as? Int == 5)
            #expect(sets[1]["reps"] == nil && sets[1]["duration_seconds"] as? Int == 60, "\(sets[1])")

            let bob = try await lifter(database, "bob")
            let report = try await training.transfer.importWorkouts(bob, format: .spotterJSON, unit: nil, data: data)
            #expect(report.workoutsAdded == 1 && report.skipped.isEmpty)
            let copied = try #require(try await history(training, bob).first).content.exercises[0].sets
            #expect(copied.map(\.reps) == [5, 0])
            #expect(copied.map(\.durationSeconds) == [nil, 60])
        }
    }

    @Test(
        "CSV export: one row per set, in the lifter's wall-clock time and both units, read back by any CSV reader; pages past 200 workouts"
    )
    func csvExport() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let training = database.trainingServices(clock: clock)
            let ada = try await lifter(database, "ada", timeZone: "Europe/Berlin")
            var draft = workoutDraft("Push, \"heavy\"", at: Date(timeIntervalSince1970: 1_709_658_300), sets: 2)
            draft.notes = "line one\nline two"
            draft.exercises[0].sets[0].weight = WeightDraft(value: 225, unit: .lb)
            draft.exercises[0].sets[0].rpe = 8.5
            draft.exercises[0].sets[1].type = .warmUp
            _ = try await training.workouts.log(ada, id: "", draft)
            for day in 0..<249 {
                _ = try await training.workouts.log(
                    ada, id: "",
                    workoutDraft(at: Date(timeIntervalSince1970: 1_710_000_000 + Double(day) * 86_400), sets: 1))
            }
            let text = String(decoding: try await export(training, ada, .csv), as: UTF8.self)
            let records = try #require(CSV.records(text, separator: ","))
            #expect(records[0] == ExportCSV.columns)
            #expect(records.count == 1 + 2 + 249)
            let first = Dictionary(uniqueKeysWithValues: zip(records[0], records[1]))
            #expect(first["date"] == "2024-03-05 18:05:00")
            #expect(first["started_at"] == "2024-03-05T17:05:00Z")
            #expect(first["workout_name"] == "Push, \"heavy\"")
            #expect(first["workout_notes"] == "line one\nline two")
            #expect(first["exercise_name"] == "Barbell Bench Press")
            #expect(first["set_index"] == "1")
            #expect(first["weight_lb"] == "225")
            #expect(first["weight_kg"] == "102.06")
            #expect(first["rpe"] == "8.5")
            #expect(Dictionary(uniqueKeysWithValues: zip(records[0], records[2]))["set_type"] == "warm_up")
        }
    }

    @Test(
        "a Spotter import brings the export's body measurements under their ids; a day already measured keeps its value, and importing twice adds nothing"
    )
    func measurementsRoundTrip() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await lifter(database, "ada", timeZone: "UTC", pro: true)
            let bea = try await lifter(database, "bea", timeZone: "UTC", pro: true)
            for (metric, day, value) in [
                ("body_weight", "2026-09-01", 80.25), ("body_weight", "2026-09-08", 79.5),
                ("waist", "2026-09-01", 84.2),
            ] {
                _ = try await training.body.record(
                    ada, id: "", MeasurementDraft(metric: metric, measuredOn: day, value: value, unit: nil))
            }
            // Bea already weighed herself on one of the days, differently.
            _ = try await training.body.record(
                bea, id: "", MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-08", value: 70, unit: .kg))
            let file = try await export(training, ada, .json)

            let report = try await training.transfer.importWorkouts(bea, format: .spotterJSON, unit: nil, data: file)
            #expect(report.measurementsAdded == 2 && report.measurementsUnchanged == 0)
            #expect(
                report.notes == [
                    "body_weight on 2026-09-08 was left as it is: 70 kg is stored, the file has 79.5 kg"
                ])
            let theirs = try await training.body.series(bea, metrics: [], from: "", to: "").flatMap(\.measurements)
            let adas = try await training.body.series(ada, metrics: [], from: "", to: "").flatMap(\.measurements)
            #expect(theirs.map(\.value).sorted() == [70, Decimal(string: "80.25")!, Decimal(string: "84.2")!])
            #expect(Set(theirs.map(\.id)).intersection(adas.map(\.id)).count == 2, "the export's ids are kept")

            let again = try await training.transfer.importWorkouts(bea, format: .spotterJSON, unit: nil, data: file)
            #expect(again.measurementsAdded == 0 && again.measurementsUnchanged == 2)
            #expect(
                try await training.body.series(bea, metrics: [], from: "", to: "").flatMap(\.measurements).count == 3)

            // On the free tier, which has no body tracking, the workouts come in and the measurements
            // are said to be left out.
            let cal = try await lifter(database, "cal", timeZone: "UTC")
            let free = try await training.transfer.importWorkouts(cal, format: .spotterJSON, unit: nil, data: file)
            #expect(free.measurementsAdded == 0)
            #expect(
                free.notes == [
                    "3 body measurements were not imported: body weight and measurement tracking needs the Pro tier"
                ])
        }
    }

    @Test("the JSON export holds the sync devices, feedback, a coach's invites (no codes) and the followed program")
    func everythingAddedSince() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let coaching = database.coachingService(clock: TestClock(now))
            let ada = try await lifter(database, "ada")
            let cora = try await database.lifter("cora", kind: .coach)
            _ = try await database.syncService().registerDevice(ada, label: "Ada's phone")
            _ = try await FeedbackService(
                store: PostgresFeedbackStore(database: SpotterDatabase(pool: database.appPool))
            )
            .submit(ada, kind: .bug, subject: "Timer stops", body: "When the screen locks.", appVersion: "1.2")
            let template = try await training.templates.create(
                cora, id: "",
                TemplateDraft(
                    name: "Day A",
                    items: [TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 3, repsMin: 5)]))
            let program = try await coaching.createProgram(
                cora, id: "",
                ProgramDraft(
                    name: "Base block", weeks: 1,
                    days: [ProgramDraft.Day(week: 1, weekday: 1, templateID: template.id.description)]))
            let invite = try await coaching.createInvite(cora, note: "for Ada", validDays: 0)
            _ = try await coaching.redeemInvite(ada, code: invite.code!, scopes: ["history"])
            _ = try await coaching.assign(
                cora, client: ada.tenantID.description, templateID: "", programID: program.id.description, note: "")
            _ = try await coaching.follow(ada, programID: program.id.description, startOn: "2026-09-07")
            // A workout logged from the coach's template: importing one's own export again finds it
            // unchanged (the coach's template is not among Ada's own).
            var fromCoach = workoutDraft("Day A", at: now.addingTimeInterval(-3_600), exercises: [Catalog.squat])
            fromCoach.templateID = template.id.description
            let logged = try await training.workouts.log(ada, id: "", fromCoach)
            #expect(logged.content.templateID == template.id)
            let file = try await export(training, ada, .json)
            let again = try await training.transfer.importWorkouts(ada, format: .spotterJSON, unit: nil, data: file)
            #expect(again.skipped.isEmpty, "\(again.skipped)")
            #expect(again.workoutsUnchanged == 1 && again.workoutsAdded == 0)

            let mine = try TenantExport.decoder().decode(TenantExport.self, from: file)
            #expect(mine.devices.map(\.label) == ["Ada's phone"])
            #expect(mine.feedback.map(\.subject) == ["Timer stops"])
            #expect(mine.coaching.follow?.program.content.name == "Base block")
            #expect(mine.coaching.follow?.startedOn == "2026-09-07")
            let coach = try await export(training, cora, .json)
            let theirs = try TenantExport.decoder().decode(TenantExport.self, from: coach)
            #expect(theirs.coaching.invites.map(\.note) == ["for Ada"])
            #expect(theirs.coaching.invites.first?.usedAt != nil)
            #expect(!String(decoding: coach, as: UTF8.self).contains(invite.code!))
            // The coach's program is not Ada's: her import leaves it out.
            #expect(again.programsAdded == 0 && again.notes.isEmpty, "\(again.notes)")
            // An assignment names its plan by id as everything else does, lower-case ids included
            // (it was `"item": {"program": {"_0": …}}` and an upper-case id); the old form still reads.
            let raw = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
            let assigned = try #require(
                ((raw["coaching"] as? [String: Any])?["assignments"] as? [[String: Any]])?.first)
            #expect(assigned["item"] as? [String: String] == ["program_id": program.id.description], "\(assigned)")
            #expect((assigned["id"] as? String).map { $0 == $0.lowercased() } == true)
            let old = #"{"program": {"_0": "\#(program.id)"}}"#
            #expect(
                try TenantExport.decoder().decode(Assignment.Item.self, from: Data(old.utf8)) == .program(program.id))
        }
    }

    @Test(
        "a lifter's own programs go with the JSON export into a new account, once; their template names are an object")
    func ownProgramsRoundTrip() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let coaching = database.coachingService(clock: TestClock(now))
            let lena = try await lifter(database, "lena")
            let upper = try await training.templates.create(
                lena, id: "",
                TemplateDraft(
                    name: "Heavy Upper",
                    items: [TemplateItemDraft(exerciseID: Catalog.benchPress.description, targetSets: 5, repsMin: 5)]))
            let program = try await coaching.createProgram(
                lena, id: "",
                ProgramDraft(
                    name: "Upper 2x", weeks: 2,
                    days: [
                        ProgramDraft.Day(week: 1, weekday: 1, templateID: upper.id.description),
                        ProgramDraft.Day(week: 2, weekday: 4, templateID: upper.id.description),
                    ]))
            let file = try await export(training, lena, .json)
            // Names by template id, as a template's exercise names are (it was a flat [id, name] array).
            let json = try #require(
                try JSONSerialization.jsonObject(with: file) as? [String: Any])
            let programs = try #require((json["coaching"] as? [String: Any])?["programs"] as? [[String: Any]])
            #expect(programs.first?["template_names"] as? [String: String] == [upper.id.description: "Heavy Upper"])

            let mia = try await lifter(database, "mia")
            let report = try await training.transfer.importWorkouts(mia, format: .spotterJSON, unit: nil, data: file)
            #expect(report.templatesAdded == 1 && report.programsAdded == 1 && report.notes.isEmpty, "\(report)")
            let imported = try await coaching.program(mia, id: program.id.description)
            #expect(imported.content == program.content && imported.templateNames[upper.id] == "Heavy Upper")
            let again = try await training.transfer.importWorkouts(mia, format: .spotterJSON, unit: nil, data: file)
            #expect(again.programsAdded == 0 && again.notes.isEmpty)
            // An export from before still reads (a flat array of names).
            var old = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
            var oldCoaching = try #require(old["coaching"] as? [String: Any])
            var oldPrograms = try #require(oldCoaching["programs"] as? [[String: Any]])
            oldPrograms[0]["template_names"] = [upper.id.description, "Heavy Upper"]
            oldCoaching["programs"] = oldPrograms
            old["coaching"] = oldCoaching
            let oldFile = try JSONSerialization.data(withJSONObject: old)
            let oldReport = try await training.transfer.importWorkouts(
                try await lifter(database, "noa"), format: .spotterJSON, unit: nil, data: oldFile)
            #expect(oldReport.programsAdded == 1, "\(oldReport)")
        }
    }

    @Test(
        "JSON round trip on random accounts: export, import into a new account, export again gives the same training data; importing again adds nothing"
    )
    func jsonRoundTrip() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            for seed in 1...3 {
                var random = SeededGenerator(seed: UInt64(seed))
                let source = try await lifter(database, "source\(seed)")
                try await RandomAccount.fill(source, training, count: 30 + seed * 20, now: now, using: &random)
                let exported = try await export(training, source, .json)

                let target = try await lifter(database, "target\(seed)")
                let report = try await training.transfer.importWorkouts(
                    target, format: .spotterJSON, unit: nil, data: exported)
                #expect(report.skipped.isEmpty)
                #expect(report.notes.isEmpty)
                let reexported = try await export(training, target, .json)
                #expect(try Self.trainingData(reexported) == Self.trainingData(exported))

                let again = try await training.transfer.importWorkouts(
                    target, format: .spotterJSON, unit: nil, data: exported)
                #expect(again.workoutsAdded == 0)
                #expect(again.templatesAdded == 0)
                #expect(again.exercisesCreated.isEmpty)
                #expect(again.workoutsUnchanged == report.workoutsAdded)
                let home = try await training.transfer.importWorkouts(
                    source, format: .spotterJSON, unit: nil, data: exported)
                #expect(home.workoutsAdded == 0)
                #expect(try Self.trainingData(try await export(training, source, .json)) == Self.trainingData(exported))
            }
        }
    }

    @Test(
        "a workout edited after it was logged: exports from before and after the edit both import as unchanged and the edit stays; other content under its id is refused"
    )
    func editedWorkouts() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await lifter(database, "ada")
            let logged = try await training.workouts.log(ada, id: "", workoutDraft(at: now.addingTimeInterval(-86_400)))
            let before = try await export(training, ada, .json)
            _ = try await training.workouts.update(
                ada, id: logged.id.description, WorkoutPatch(notes: "edited"), expectedVersion: nil)
            let after = try await export(training, ada, .json)
            let same = try await training.transfer.importWorkouts(ada, format: .spotterJSON, unit: nil, data: after)
            #expect(same.workoutsUnchanged == 1 && same.skipped.isEmpty)
            // The export from before the edit is what was logged: nothing to add, nothing reverted.
            let older = try await training.transfer.importWorkouts(ada, format: .spotterJSON, unit: nil, data: before)
            #expect(older.workoutsUnchanged == 1 && older.skipped.isEmpty)
            #expect(try await training.workouts.get(ada, id: logged.id.description).content.notes == "edited")
            // Content that was never stored under that id is refused with the reason.
            var document = try TenantExport.decoder().decode(TenantExport.self, from: after)
            document.workouts[0].name = "Another day"
            let other = try await training.transfer.importWorkouts(
                ada, format: .spotterJSON, unit: nil, data: try TenantExport.encoder().encode(document))
            #expect(
                other.skipped.map(\.reason) == ["this workout is stored with other content (changed since the export)"])
            #expect(try await training.workouts.get(ada, id: logged.id.description).content.name == "Push day")
        }
    }

    /// The document's custom exercises, templates and workouts without the fields an import does
    /// not keep (README "Export and import"): versions, created and updated times, the template
    /// version a workout was logged from.
    private static func trainingData(_ data: Data) throws -> String {
        var document = try TenantExport.decoder().decode(TenantExport.self, from: data)
        let epoch = Date(timeIntervalSince1970: 0)
        for index in document.exercises.indices {
            document.exercises[index].custom?.version = 0
            document.exercises[index].custom?.createdAt = epoch
            document.exercises[index].custom?.updatedAt = epoch
            if document.exercises[index].custom?.archivedAt != nil {
                document.exercises[index].custom?.archivedAt = epoch
            }
        }
        for index in document.templates.indices {
            document.templates[index].version = 0
            document.templates[index].createdAt = epoch
            document.templates[index].updatedAt = epoch
            if document.templates[index].archivedAt != nil { document.templates[index].archivedAt = epoch }
        }
        for index in document.workouts.indices {
            document.workouts[index].version = 0
            document.workouts[index].createdAt = epoch
            document.workouts[index].updatedAt = epoch
            document.workouts[index].templateVersion = nil
        }
        struct Training: Encodable {
            var exercises: [Exercise]
            var templates: [ExportedTemplate]
            var workouts: [ExportedWorkout]
        }
        let training = Training(
            exercises: document.exercises, templates: document.templates, workouts: document.workouts)
        return String(decoding: try TenantExport.encoder(pretty: true).encode(training), as: UTF8.self)
    }
}

/// Random custom exercises, templates (some archived) and workouts with every kind of set.
enum RandomAccount {
    static let texts = ["", "easy", "Notes, with commas", "two\nlines", "quote \"this\"", "ünïcödé 💪", "  padded"]

    static func fill(
        _ principal: Principal, _ training: TrainingServices, count: Int, now: Date,
        using random: inout SeededGenerator
    ) async throws {
        var exercises = [Catalog.squat, Catalog.benchPress, Catalog.deadlift, Catalog.overheadPress]
        for index in 0..<3 {
            let exercise = try await training.exercises.create(
                principal, id: "",
                ExerciseDraft(
                    name: "Custom \(index) \(random.next() % 1000)",
                    category: ExerciseCategory.allCases.randomElement(using: &random)!,
                    muscleGroup: MuscleGroup.allCases.randomElement(using: &random)!,
                    equipment: Equipment.allCases.randomElement(using: &random)!,
                    instructions: texts.randomElement(using: &random)!))
            if index == 2 {
                _ = try await training.exercises.archive(principal, id: exercise.id.description, archived: true)
            }
            exercises.append(exercise.id)
        }
        var templates: [Template] = []
        for index in 0..<2 {
            let template = try await training.templates.create(
                principal, id: "",
                TemplateDraft(
                    name: "Template \(index)", notes: texts.randomElement(using: &random)!,
                    items: (0..<Int.random(in: 1...4, using: &random)).map { _ in
                        // Loads too: none, a weight in either unit (kept to the microgram), a percentage.
                        let load = Int.random(in: 0...3, using: &random)
                        return TemplateItemDraft(
                            exerciseID: exercises.randomElement(using: &random)!.description, targetSets: 3, repsMin: 5,
                            repsMax: 8, targetRPE: [nil, 7.5, 8].randomElement(using: &random)!,
                            restSeconds: [nil, 90].randomElement(using: &random)!, notes: "",
                            targetWeight: [
                                nil, WeightDraft(value: 102.5, unit: .kg), WeightDraft(value: 225, unit: .lb), nil,
                            ][
                                load],
                            targetPercentOfMax: load == 3 ? 72.5 : nil)
                    }))
            if index == 1 {
                _ = try await training.templates.archive(principal, id: template.id.description, archived: true)
            }
            templates.append(template)
        }
        for index in 0..<count {
            let startedAt = now.addingTimeInterval(-Double(index) * 86_400 - Double(random.next() % 1_000_000) / 7)
            let draft = WorkoutDraft(
                name: "Workout \(index)", startedAt: startedAt, durationSeconds: Int(random.next() % 7200),
                notes: texts.randomElement(using: &random)!,
                templateID: index % 5 == 0 ? templates[0].id.description : "",
                exercises: (0..<Int.random(in: 1...4, using: &random)).map { _ in
                    WorkoutExerciseDraft(
                        exerciseID: exercises.randomElement(using: &random)!.description,
                        notes: texts.randomElement(using: &random)!,
                        sets: (0..<Int.random(in: 1...5, using: &random)).map { _ in
                            SetDraft(
                                reps: Int.random(in: 1...20, using: &random),
                                weight: Bool.random(using: &random)
                                    ? nil
                                    : WeightDraft(
                                        value: Double(Int.random(in: 0...40_000, using: &random)) / 100,
                                        unit: Bool.random(using: &random) ? .kg : .lb),
                                rpe: [nil, 6, 7.5, 10].randomElement(using: &random)!,
                                restSeconds: [nil, 0, 120].randomElement(using: &random)!,
                                note: texts.randomElement(using: &random)!,
                                type: SetType.allCases.randomElement(using: &random)!)
                        })
                })
            _ = try await training.workouts.log(principal, id: "", draft)
        }
    }
}
