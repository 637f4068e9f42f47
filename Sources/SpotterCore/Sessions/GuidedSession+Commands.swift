import Foundation

/// A change to a guided session, as the service validated it.
public enum GuidedSessionCommand: Sendable, Equatable {
    case pause
    case resume
    /// Starts the work timer of a set (counting down from its target time, or up).
    case startSet(exercise: Int, set: Int)
    /// Marks a set done with what was done (whether it is a record is judged after, against the
    /// history and the session's other sets: `GuidedSession.markRecords`).
    case recordSet(exercise: Int, set: Int, actual: WorkoutSet)
    case skipSet(exercise: Int, set: Int)
    /// Skips every set of the exercise not done yet.
    case skipExercise(exercise: Int)
    case addExercise(GuidedExercise)
    /// Adds a set to an exercise: `planned`, or a copy of its last set's target.
    case addSet(exercise: Int, planned: WorkoutSet?)
    case complete
    case abandon
}

extension GuidedSession {
    /// The session after `command` at `now`, or why it cannot be applied. Pausing a paused session
    /// or resuming an active one changes nothing (two devices may press the same button).
    public func applying(_ command: GuidedSessionCommand, at now: Date) throws(SpotterError) -> GuidedSession {
        var next = self
        guard status.isOpen else {
            throw .failedPrecondition("the session is \(status.rawValue); start a new one")
        }
        switch command {
        case .pause:
            guard status == .active else { return self }
            next.status = .paused
            next.pausedAt = now
            if var timer = next.timer {
                timer.accumulatedSeconds = timer.elapsed(at: now)
                timer.runningSince = nil
                next.timer = timer
            }
        case .resume:
            guard status == .paused, let pausedAt else { return self }
            next.status = .active
            next.pausedSeconds += max(0, now.timeIntervalSince(pausedAt))
            next.pausedAt = nil
            next.timer?.runningSince = now
        case .startSet(let exercise, let set):
            try requireActive()
            let planned = try pending(exercise, set)
            next.timer = GuidedTimer(
                kind: .work, exerciseIndex: exercise, setIndex: set, durationSeconds: planned.planned.durationSeconds,
                accumulatedSeconds: 0, runningSince: now)
        case .recordSet(let exercise, let set, var actual):
            try requireActive()
            let current = try existing(exercise, set)
            if actual.durationSeconds == nil, let seconds = workTimerSeconds(exercise: exercise, set: set, at: now) {
                actual.durationSeconds = seconds
            }
            next.exercises[exercise].sets[set] = GuidedSet(
                planned: current.planned, status: .done, actual: actual, doneAt: now, isRecord: current.isRecord,
                plannedRepsMin: current.plannedRepsMin)
            // The workout it completes into holds at most `WorkoutDraft.maximumVolume`.
            let volume = next.workoutContent(at: now).summary.volume
            guard volume <= WorkoutDraft.maximumVolume else {
                throw .invalid(
                    "actual",
                    "brings the session's volume to \(DisplayFormat.grouped(volume.value(in: .kg).rounded(scale: 0))) kg, "
                        + "more than a workout can hold (99,999,999 kg): check the reps and weight")
            }
            let rest = next.roundRest(after: exercise) ?? current.planned.restSeconds ?? 0
            // No rest after the session's last set: nothing is left to rest for.
            let setsLeft = next.exercises.contains { $0.sets.contains { $0.status == .pending } }
            next.timer =
                rest > 0 && setsLeft
                ? GuidedTimer(
                    kind: .rest, exerciseIndex: exercise, setIndex: set, durationSeconds: rest, accumulatedSeconds: 0,
                    runningSince: now)
                : nil
        case .skipSet(let exercise, let set):
            _ = try pending(exercise, set)
            next.exercises[exercise].sets[set].status = .skipped
            if timer?.exerciseIndex == exercise && timer?.setIndex == set && timer?.kind == .work { next.timer = nil }
        case .skipExercise(let exercise):
            try requireExercise(exercise)
            for index in next.exercises[exercise].sets.indices
            where next.exercises[exercise].sets[index].status == .pending {
                next.exercises[exercise].sets[index].status = .skipped
            }
            if timer?.exerciseIndex == exercise && timer?.kind == .work { next.timer = nil }
        case .addExercise(let exercise):
            guard exercises.count < 100 else { throw .invalid("exercise", "a session holds at most 100 exercises") }
            next.exercises.append(exercise)
        case .addSet(let exercise, let planned):
            try requireExercise(exercise)
            guard exercises[exercise].sets.count < 100 else {
                throw .invalid("exercise_index", "an exercise holds at most 100 sets")
            }
            guard let planned = planned ?? exercises[exercise].sets.last?.planned else {
                throw .invalid("planned", "is required for an exercise without sets")
            }
            // A copy of the last set keeps its rep range; a set planned anew has its own reps.
            let repsMin =
                (planned == exercises[exercise].sets.last?.planned)
                ? exercises[exercise].sets.last?.plannedRepsMin : nil
            next.exercises[exercise].sets.append(GuidedSet(planned: planned, plannedRepsMin: repsMin))
        case .complete:
            guard doneSets > 0 else {
                throw .failedPrecondition("no set is done yet: record a set, or abandon the session")
            }
            next.close(.completed, at: now)
        case .abandon:
            next.close(.abandoned, at: now)
        }
        next.lastActivityAt = now
        next.version += 1
        return next
    }

    /// The session as it stands at `now`: closed as abandoned once idle for `idleLimit`.
    public func expiring(at now: Date) -> GuidedSession {
        guard let abandonsAt, now >= abandonsAt else { return self }
        var next = self
        next.close(.abandoned, at: abandonsAt)
        next.version += 1
        return next
    }

    /// The circuit's rest after a round, when `exercise` is its last station and another round
    /// is still to come (a set of the circuit is pending).
    func roundRest(after exercise: Int) -> Int? {
        let number = exercises[exercise].circuit
        guard number > 0, circuits.indices.contains(number - 1),
            exercises.lastIndex(where: { $0.circuit == number }) == exercise,
            exercises.contains(where: { $0.circuit == number && $0.sets.contains { $0.status == .pending } })
        else { return nil }
        return circuits[number - 1].restSeconds
    }

    private mutating func close(_ status: GuidedSessionStatus, at now: Date) {
        self.status = status
        endedAt = now
        timer = nil
    }

    private func requireActive() throws(SpotterError) {
        guard status == .active else { throw .failedPrecondition("the session is paused; resume it first") }
    }

    private func requireExercise(_ exercise: Int) throws(SpotterError) {
        guard exercises.indices.contains(exercise) else {
            throw exercises.isEmpty
                ? .invalid(
                    "exercise_index", "must name one of the session's exercises, and it has none yet (AddExercise)")
                : .invalid("exercise_index", "must be between 0 and \(exercises.count - 1) (the session's exercises)")
        }
    }

    /// The seconds the work timer has measured for a timed set (one planned with a time), while it
    /// runs for that set: the time of a timed set recorded without its own.
    public func workTimerSeconds(exercise: Int, set: Int, at now: Date) -> Int? {
        guard let timer, timer.kind == .work, timer.exerciseIndex == exercise, timer.setIndex == set,
            exercises.indices.contains(exercise), exercises[exercise].sets.indices.contains(set),
            exercises[exercise].sets[set].planned.durationSeconds != nil
        else { return nil }
        return max(1, Int(timer.elapsed(at: now).rounded()))
    }

    private func existing(_ exercise: Int, _ set: Int) throws(SpotterError) -> GuidedSet {
        try requireExercise(exercise)
        let sets = exercises[exercise].sets
        guard sets.indices.contains(set) else {
            throw .invalid("set_index", "must be between 0 and \(sets.count - 1) (the exercise's sets)")
        }
        return sets[set]
    }

    private func pending(_ exercise: Int, _ set: Int) throws(SpotterError) -> GuidedSet {
        let current = try existing(exercise, set)
        guard current.status == .pending else {
            // Named by the request's indexes (from 0), as the index errors are, with the names people use.
            throw .failedPrecondition(
                "set_index \(set) of exercise_index \(exercise) (set \(set + 1) of \(exercises[exercise].name)) "
                    + "is already \(current.status.rawValue)")
        }
        return current
    }
}
