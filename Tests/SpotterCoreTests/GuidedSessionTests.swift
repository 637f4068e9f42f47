import Foundation
import SpotterCore
import Testing

@Suite("Guided sessions: timers, pauses, progress and score")
struct GuidedSessionTests {
    private let start = Date(timeIntervalSince1970: 1_790_000_000)
    private static let squat = ExerciseID("c0000000-0000-4000-8000-000000000001")!
    private static let plank = ExerciseID("c0000000-0000-4000-8000-000000000077")!

    /// Squat 3 × 5 resting 120 s, then a 60 s plank twice, no rest.
    private func session() -> GuidedSession {
        GuidedSession(
            id: .random(), name: "Legs", source: .template, templateID: nil, startedAt: start,
            exercises: [
                GuidedExercise(
                    exerciseID: Self.squat, name: "Squat",
                    sets: Array(
                        repeating: GuidedSet(planned: WorkoutSet(reps: 5, weight: nil, restSeconds: 120)), count: 3)),
                GuidedExercise(
                    exerciseID: Self.plank, name: "Plank",
                    sets: Array(
                        repeating: GuidedSet(planned: WorkoutSet(reps: 0, weight: nil, durationSeconds: 60)), count: 2)),
            ])
    }

    private func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    private func squatSet(_ kilograms: Decimal) -> WorkoutSet {
        WorkoutSet(reps: 5, weight: Mass(kilograms: kilograms))
    }

    @Test(
        "a set that would bring the session past the volume a workout holds is refused; a recorded set keeps its rep range, and so does a copy"
    )
    func volumeAndRange() throws {
        var session = GuidedSession(
            id: .random(), name: "Typo", source: .template, templateID: nil, startedAt: start,
            exercises: [
                GuidedExercise(
                    exerciseID: Self.squat, name: "Squat",
                    sets: Array(
                        repeating: GuidedSet(planned: WorkoutSet(reps: 12, weight: nil), plannedRepsMin: 8), count: 50))
            ])
        let huge = WorkoutSet(reps: 1000, weight: Mass(kilograms: 2000))
        for set in 0..<49 {
            session = try session.applying(.recordSet(exercise: 0, set: set, actual: huge), at: at(60))
        }
        #expect(session.exercises[0].sets[0].plannedRepsMin == 8, "recorded, the set keeps its range")
        #expect(
            throws: SpotterError.invalid(
                "actual",
                "brings the session's volume to 100,000,000 kg, more than a workout can hold (99,999,999 kg): check the reps and weight"
            )
        ) { try session.applying(.recordSet(exercise: 0, set: 49, actual: huge), at: at(60)) }
        session = try session.applying(.addSet(exercise: 0, planned: nil), at: at(70))
        #expect(session.exercises[0].sets.last?.plannedRepsMin == 8, "a copy of the last set keeps its range")
        session = try session.applying(.addSet(exercise: 0, planned: WorkoutSet(reps: 5, weight: nil)), at: at(80))
        #expect(session.exercises[0].sets.last?.plannedRepsMin == nil, "a set planned anew has none")
    }

    @Test("elapsed time leaves out every pause, including one still running; pausing twice changes nothing")
    func pausesComeOff() throws {
        var session = session()
        session = try session.applying(.pause, at: at(300))
        #expect(session.elapsedSeconds(at: at(400)) == 300, "the pause running now is left out")
        let twice = try session.applying(.pause, at: at(350))
        #expect(twice == session, "a second pause (another device) changes nothing")
        session = try session.applying(.resume, at: at(420))
        #expect(session.elapsedSeconds(at: at(500)) == 380)
        session = try session.applying(.pause, at: at(600))
        session = try session.applying(.resume, at: at(660))
        #expect(session.pausedSeconds == 180)
        #expect(session.elapsedSeconds(at: at(1000)) == 820)
        #expect(try session.applying(.resume, at: at(700)) == session, "resuming an active session changes nothing")
    }

    @Test("a done set starts its rest timer on the server's clock; a pause stops it and resuming carries on")
    func restTimer() throws {
        var session = try session().applying(
            .recordSet(exercise: 0, set: 0, actual: squatSet(100)), at: at(60))
        var timer = try #require(session.timer)
        #expect(timer.kind == .rest && timer.durationSeconds == 120)
        #expect(timer.endsAt == at(180))
        session = try session.applying(.pause, at: at(90))
        timer = try #require(session.timer)
        #expect(timer.endsAt == nil, "a paused timer has no end")
        #expect(timer.elapsed(at: at(500)) == 30)
        session = try session.applying(.resume, at: at(200))
        #expect(session.timer?.endsAt == at(290), "90 s of rest were left")
        #expect(throws: SpotterError.self) {
            try session.applying(.pause, at: at(210)).applying(
                .recordSet(exercise: 0, set: 1, actual: squatSet(100)), at: at(220))
        }
    }

    @Test("a timed set's work timer gives its time when it is recorded without one")
    func workTimer() throws {
        var session = try session().applying(.startSet(exercise: 1, set: 0), at: at(100))
        #expect(session.timer?.kind == .work && session.timer?.endsAt == at(160))
        session = try session.applying(.pause, at: at(130))
        session = try session.applying(.resume, at: at(200))
        session = try session.applying(
            .recordSet(exercise: 1, set: 0, actual: WorkoutSet(reps: 0, weight: nil)), at: at(245))
        #expect(session.exercises[1].sets[0].actual?.durationSeconds == 75, "30 s, a pause, then 45 s")
        #expect(session.timer == nil, "no rest planned")
        // A time sent with the set wins.
        session = try session.applying(.startSet(exercise: 1, set: 1), at: at(250))
        session = try session.applying(
            .recordSet(
                exercise: 1, set: 1, actual: WorkoutSet(reps: 0, weight: nil, durationSeconds: 58)),
            at: at(320))
        #expect(session.exercises[1].sets[1].actual?.durationSeconds == 58)
    }

    @Test("progress is done over planned sets (skipped stay planned); the score adds 10 per record up to 20")
    func progressAndScore() throws {
        var session = session()
        #expect(session.progress == 0 && session.score == 0)
        session = try session.applying(.recordSet(exercise: 0, set: 0, actual: squatSet(100)), at: at(60))
        session = try session.applying(.recordSet(exercise: 0, set: 1, actual: squatSet(105)), at: at(200))
        session = try session.applying(.recordSet(exercise: 0, set: 2, actual: squatSet(110)), at: at(340))
        // Each set heavier than the history's 95 kg and the sets before it.
        session.markRecords(of: Self.squat, beyond: SetBests(heaviest: Mass(95, .kg)))
        session = try session.applying(.skipExercise(exercise: 1), at: at(400))
        #expect(session.doneSets == 3 && session.plannedSets == 5)
        #expect(session.progress == 0.6)
        #expect(session.records == 3)
        #expect(session.score == 48 + 20, "80 × 0.6 plus the capped 20 for records")
        session = try session.applying(.addSet(exercise: 1, planned: nil), at: at(410))
        #expect(session.plannedSets == 6 && session.exercises[1].sets[2].planned.durationSeconds == 60)
        session = try session.applying(
            .recordSet(
                exercise: 1, set: 2, actual: WorkoutSet(reps: 0, weight: nil, durationSeconds: 60)),
            at: at(480))
        #expect(session.score == Int((80.0 * 4 / 6).rounded()) + 20)
    }

    @Test("completing needs a done set and writes only done sets; a closed session takes no more commands")
    func completion() throws {
        var session = session()
        #expect(throws: SpotterError.failedPrecondition("no set is done yet: record a set, or abandon the session")) {
            try session.applying(.complete, at: at(10))
        }
        session = try session.applying(
            .recordSet(exercise: 0, set: 0, actual: squatSet(100)), at: at(60))
        session = try session.applying(.pause, at: at(100))
        session = try session.applying(.resume, at: at(160))
        session = try session.applying(.complete, at: at(400))
        #expect(session.status == .completed && session.endedAt == at(400) && session.timer == nil)
        #expect(session.workoutID?.rawValue == session.id.rawValue)
        let content = session.workoutContent(at: at(9999))
        #expect(content.durationSeconds == 340, "the end, not the reading time, and without the pause")
        #expect(content.exercises.map(\.exerciseID) == [Self.squat])
        #expect(content.exercises[0].sets == [squatSet(100)])
        #expect(throws: SpotterError.failedPrecondition("the session is completed; start a new one")) {
            try session.applying(.pause, at: at(500))
        }
    }

    @Test("a session idle for 24 hours is abandoned as of its last activity plus a day, paused or not")
    func idleSessionsAbandon() throws {
        var session = try session().applying(.pause, at: at(600))
        #expect(session.abandonsAt == at(600 + 86_400))
        #expect(session.expiring(at: at(600 + 86_399)) == session)
        let expired = session.expiring(at: at(600 + 90_000))
        #expect(expired.status == .abandoned && expired.endedAt == at(600 + 86_400))
        #expect(expired.elapsedSeconds(at: at(200_000)) == 600, "the pause runs to the end")
        #expect(expired.abandonsAt == nil)
        session = try session.applying(.resume, at: at(80_000))
        #expect(session.expiring(at: at(600 + 90_000)) == session, "activity moves the deadline")
    }

    @Test("indices out of range and sets already done are refused naming the field or the set")
    func refusals() throws {
        let session = try session().applying(
            .recordSet(exercise: 0, set: 0, actual: squatSet(100)), at: at(60))
        #expect(throws: SpotterError.invalid("exercise_index", "must be between 0 and 1 (the session's exercises)")) {
            try session.applying(.startSet(exercise: 2, set: 0), at: at(70))
        }
        #expect(throws: SpotterError.invalid("set_index", "must be between 0 and 2 (the exercise's sets)")) {
            try session.applying(.skipSet(exercise: 0, set: 3), at: at(70))
        }
        // An empty session's range is not "between 0 and -1".
        let empty = GuidedSession(
            id: .random(), name: "Empty", source: .empty, templateID: nil, startedAt: start, exercises: [])
        #expect(
            throws: SpotterError.invalid(
                "exercise_index", "must name one of the session's exercises, and it has none yet (AddExercise)")
        ) { try empty.applying(.startSet(exercise: 0, set: 0), at: at(70)) }
        #expect(
            throws: SpotterError.failedPrecondition(
                "set_index 0 of exercise_index 0 (set 1 of Squat) is already done")
        ) {
            try session.applying(.startSet(exercise: 0, set: 0), at: at(70))
        }
    }

    @Test("a record beats an earlier heaviest weight, estimated max or hold; a first-ever set is none")
    func records() {
        var bests = SetBests()
        #expect(!bests.isBeaten(by: squatSet(100)), "nothing to beat yet")
        bests.include(squatSet(100))
        #expect(bests.isBeaten(by: squatSet(102.5)))
        #expect(!bests.isBeaten(by: squatSet(100)))
        #expect(bests.isBeaten(by: WorkoutSet(reps: 8, weight: Mass(kilograms: 95))), "a higher Epley estimate")
        #expect(!bests.isBeaten(by: WorkoutSet(reps: 8, weight: Mass(kilograms: 200), type: .warmUp)))
        bests.include(WorkoutSet(reps: 0, weight: nil, durationSeconds: 60))
        #expect(bests.isBeaten(by: WorkoutSet(reps: 0, weight: nil, durationSeconds: 61)))
    }

    @Test("a record's estimated max counts reps in reserve as progress does")
    func recordsCountRepsInReserve() {
        var bests = SetBests()
        bests.include(squatSet(100))  // 116.7 kg
        #expect(bests.isBeaten(by: WorkoutSet(reps: 5, weight: Mass(kilograms: 100), rpe: 8)), "7 reps: 123.3 kg")
        #expect(!bests.isBeaten(by: WorkoutSet(reps: 4, weight: Mass(kilograms: 100), rpe: 10)), "4 reps: 113.3 kg")
        bests.include(WorkoutSet(reps: 5, weight: Mass(kilograms: 100), rpe: 6))  // 9 reps: 130 kg
        #expect(bests.bestE1RM.map { ($0 * 10).rounded() } == 1300)
        #expect(!bests.isBeaten(by: WorkoutSet(reps: 8, weight: Mass(kilograms: 100))), "126.7 kg by the reps alone")
        #expect(
            !bests.isBeaten(by: WorkoutSet(reps: 12, weight: Mass(kilograms: 95), rpe: 8)),
            "14 reps counted: no estimate, though 12 reps alone would be 133 kg")
        #expect(!bests.isBeaten(by: WorkoutSet(reps: 3, weight: Mass(kilograms: 100), rpe: 5)), "below RPE 6")
    }

    @Test("in a circuit the last station's set starts the round's rest, until the last round")
    func circuitRoundRest() throws {
        let station = GuidedSet(planned: WorkoutSet(reps: 10, weight: nil, restSeconds: 15))
        var session = GuidedSession(
            id: .random(), name: "Circuit", source: .template, templateID: nil, startedAt: start,
            exercises: [
                GuidedExercise(exerciseID: Self.squat, name: "Squat", circuit: 1, sets: [station, station]),
                GuidedExercise(exerciseID: Self.plank, name: "Plank", circuit: 1, sets: [station, station]),
            ],
            circuits: [TemplateCircuit(rounds: 2, restSeconds: 120)])
        let done = WorkoutSet(reps: 10, weight: nil)
        session = try session.applying(.recordSet(exercise: 0, set: 0, actual: done), at: at(30))
        #expect(session.timer?.durationSeconds == 15, "between stations: the station's rest")
        session = try session.applying(.recordSet(exercise: 1, set: 0, actual: done), at: at(60))
        #expect(session.timer?.durationSeconds == 120, "after the round: the circuit's rest")
        session = try session.applying(.recordSet(exercise: 0, set: 1, actual: done), at: at(200))
        #expect(session.timer?.durationSeconds == 15)
        session = try session.applying(.recordSet(exercise: 1, set: 1, actual: done), at: at(230))
        #expect(session.timer == nil, "the last round's last station ends the session: no rest")
    }

    @Test("the session's last set starts no rest timer: nothing is left to rest for")
    func noRestAfterTheLastSet() throws {
        var session = session()
        for set in 0..<3 {
            session = try session.applying(.recordSet(exercise: 0, set: set, actual: squatSet(100)), at: at(60))
        }
        #expect(session.timer?.kind == .rest, "the plank is still to come")
        session = try session.applying(.skipSet(exercise: 1, set: 0), at: at(200))
        session = try session.applying(
            .recordSet(exercise: 1, set: 1, actual: WorkoutSet(reps: 0, weight: nil, durationSeconds: 60)),
            at: at(300))
        #expect(session.timer == nil)
    }
}
