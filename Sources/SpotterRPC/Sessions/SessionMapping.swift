import Foundation
import SpotterCore
import SpotterProto

extension Spotter_V1_GuidedSession {
    /// The session as it stands at `now`, the server's time, weights in `unit`.
    init(_ session: GuidedSession, unit: WeightUnit, at now: Date) {
        self.init()
        sessionID = session.id.description
        name = session.name
        source = session.source.proto()
        templateID = session.templateID?.description ?? ""
        status = session.status.proto()
        startedAt = Spotter_V1_Timestamp(session.startedAt)
        elapsedSeconds = session.elapsedSeconds(at: now)
        if let pausedAt = session.pausedAt { self.pausedAt = Spotter_V1_Timestamp(pausedAt) }
        exercises = session.exercises.map { exercise in
            .with {
                $0.exerciseID = exercise.exerciseID.description
                $0.exerciseName = exercise.name
                $0.notes = exercise.notes
                $0.section = exercise.section.proto()
                $0.circuit = Int32(exercise.circuit)
                $0.sets = exercise.sets.map { set in
                    .with {
                        $0.status = set.status.proto()
                        $0.planned = Spotter_V1_WorkoutSet(set.planned, unit: unit)
                        if let actual = set.actual { $0.actual = Spotter_V1_WorkoutSet(actual, unit: unit) }
                        if let doneAt = set.doneAt { $0.doneAt = Spotter_V1_Timestamp(doneAt) }
                        $0.record = set.isRecord
                        if let repsMin = set.plannedRepsMin { $0.plannedRepsMin = Int32(repsMin) }
                    }
                }
            }
        }
        if let timer = session.timer {
            self.timer = .with {
                $0.kind = timer.kind.proto()
                $0.exerciseIndex = Int32(timer.exerciseIndex)
                $0.setIndex = Int32(timer.setIndex)
                if let seconds = timer.durationSeconds { $0.durationSeconds = Int32(seconds) }
                $0.elapsedSeconds = timer.elapsed(at: now)
                if let endsAt = timer.endsAt { $0.endsAt = Spotter_V1_Timestamp(endsAt) }
            }
        }
        doneSets = Int32(session.doneSets)
        plannedSets = Int32(session.plannedSets)
        progress = session.progress
        score = Int32(session.score)
        records = Int32(session.records)
        if let endedAt = session.endedAt { self.endedAt = Spotter_V1_Timestamp(endedAt) }
        if let abandonsAt = session.abandonsAt { self.abandonsAt = Spotter_V1_Timestamp(abandonsAt) }
        workoutID = session.workoutID?.description ?? ""
        version = session.version
        serverTime = Spotter_V1_Timestamp(now)
        circuits = session.circuits.map(Spotter_V1_Circuit.init)
    }
}
