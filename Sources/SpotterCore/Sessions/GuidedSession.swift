import Foundation

public struct GuidedSessionID: EntityID {
    public let rawValue: UUID
    public init(rawValue: UUID) { self.rawValue = rawValue }
}

public enum GuidedSessionStatus: String, Sendable, Codable, CaseIterable {
    case active, paused, completed, abandoned

    public var isOpen: Bool { self == .active || self == .paused }
}

/// Where a session's plan came from.
public enum GuidedSessionSource: String, Sendable, Codable, CaseIterable {
    case template
    case programDay = "program_day"
    case empty
}

/// One planned set of a session and, once done, what was done.
public struct GuidedSet: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable, CaseIterable { case pending, done, skipped }

    /// The target: reps, time or distance, RPE and rest, as the template (or the lifter) set them.
    public var planned: WorkoutSet
    public var status: Status
    /// What was done, once `done`.
    public var actual: WorkoutSet?
    public var doneAt: Date?
    /// A heavier set, a higher estimated max or a longer hold than any earlier set of the exercise.
    public var isRecord: Bool
    /// The bottom of the template item's rep range, when it gave one (`planned.reps` is its top).
    public var plannedRepsMin: Int?

    public init(
        planned: WorkoutSet, status: Status = .pending, actual: WorkoutSet? = nil, doneAt: Date? = nil,
        isRecord: Bool = false, plannedRepsMin: Int? = nil
    ) {
        self.plannedRepsMin = plannedRepsMin
        self.planned = planned
        self.status = status
        self.actual = actual
        self.doneAt = doneAt
        self.isRecord = isRecord
    }
}

public struct GuidedExercise: Sendable, Equatable, Codable {
    public var exerciseID: ExerciseID
    /// The exercise's name when it joined the session.
    public var name: String
    public var notes: String
    public var section: WorkoutSection
    public var circuit: Int
    public var sets: [GuidedSet]

    public init(
        exerciseID: ExerciseID, name: String, notes: String = "", section: WorkoutSection = .main, circuit: Int = 0,
        sets: [GuidedSet]
    ) {
        self.exerciseID = exerciseID
        self.name = name
        self.notes = notes
        self.section = section
        self.circuit = circuit
        self.sets = sets
    }
}

/// The one running timer of a session: a set being worked (counting up, or down from its target
/// time) or the rest after one. Driven by the server's clock; a pause stops it.
public struct GuidedTimer: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable, CaseIterable { case work, rest }

    public var kind: Kind
    public var exerciseIndex: Int
    public var setIndex: Int
    /// The target: the rest, or the set's target time; `nil` for work without one (counting up).
    public var durationSeconds: Int?
    /// Seconds run before the current stretch (pauses split a timer into stretches).
    public var accumulatedSeconds: Double
    /// When the current stretch began; `nil` while the session is paused.
    public var runningSince: Date?

    /// Seconds the timer has run by `now`.
    public func elapsed(at now: Date) -> Double {
        accumulatedSeconds + (runningSince.map { max(0, now.timeIntervalSince($0)) } ?? 0)
    }

    /// When a running timer with a target reaches it.
    public var endsAt: Date? {
        guard let durationSeconds, let runningSince else { return nil }
        return runningSince.addingTimeInterval(Double(durationSeconds) - accumulatedSeconds)
    }
}

/// A workout being done with the app's guidance: the plan, what was done, the timer and the pauses.
/// Pure: every change is a function of the command and the server's clock (`GuidedSession+Commands`).
public struct GuidedSession: Sendable, Equatable {
    public var id: GuidedSessionID
    public var name: String
    public var source: GuidedSessionSource
    public var templateID: TemplateID?
    public var status: GuidedSessionStatus
    public var startedAt: Date
    /// When the session was paused, while it is.
    public var pausedAt: Date?
    /// Seconds spent paused in earlier pauses.
    public var pausedSeconds: Double
    public var lastActivityAt: Date
    public var endedAt: Date?
    public var exercises: [GuidedExercise]
    /// The template's circuits: an exercise's `circuit` k is `circuits[k - 1]`.
    public var circuits: [TemplateCircuit]
    public var timer: GuidedTimer?
    /// The workout a completed session wrote: the session's own id.
    public var workoutID: WorkoutID? { status == .completed ? WorkoutID(rawValue: id.rawValue) : nil }
    public var version: Int64

    public init(
        id: GuidedSessionID, name: String, source: GuidedSessionSource, templateID: TemplateID?,
        startedAt: Date, exercises: [GuidedExercise], circuits: [TemplateCircuit] = []
    ) {
        self.id = id
        self.name = name
        self.source = source
        self.templateID = templateID
        self.status = .active
        self.startedAt = startedAt
        self.pausedAt = nil
        self.pausedSeconds = 0
        self.lastActivityAt = startedAt
        self.endedAt = nil
        self.exercises = exercises
        self.circuits = circuits
        self.timer = nil
        self.version = 1
    }

    /// A session idle this long is closed as abandoned.
    public static let idleLimit: TimeInterval = 24 * 3600

    /// Seconds of training by `now` (or by the end): the time since the start without the pauses.
    public func elapsedSeconds(at now: Date) -> Double {
        let end = endedAt ?? now
        let current = pausedAt.map { max(0, end.timeIntervalSince($0)) } ?? 0
        return max(0, end.timeIntervalSince(startedAt) - pausedSeconds - current)
    }

    public var plannedSets: Int { exercises.reduce(0) { $0 + $1.sets.count } }
    public var doneSets: Int { exercises.reduce(0) { $0 + $1.sets.count { $0.status == .done } } }
    public var records: Int { exercises.reduce(0) { $0 + $1.sets.count { $0.isRecord } } }

    /// Done sets over planned sets (skipped ones stay planned), 0–1.
    public var progress: Double { plannedSets == 0 ? 0 : Double(doneSets) / Double(plannedSets) }

    /// 0–100: up to 80 points for completion (80 × progress) and 10 per record set, at most 20.
    public var score: Int {
        Int((80 * progress).rounded()) + min(GuidedSession.recordPointsCap, GuidedSession.pointsPerRecord * records)
    }

    public static let pointsPerRecord = 10
    public static let recordPointsCap = 20

    /// When the session will be closed as abandoned if nothing happens.
    public var abandonsAt: Date? { status.isOpen ? lastActivityAt.addingTimeInterval(Self.idleLimit) : nil }

    /// The workout completing writes: every done set, in plan order; exercises without one left out.
    public func workoutContent(at now: Date) -> WorkoutContent {
        WorkoutContent(
            name: name, startedAt: startedAt, durationSeconds: min(86_400, Int(elapsedSeconds(at: now).rounded())),
            notes: "", templateID: templateID,
            exercises: exercises.compactMap { exercise in
                let done = exercise.sets.compactMap { $0.status == .done ? $0.actual : nil }
                guard !done.isEmpty else { return nil }
                return WorkoutExercise(
                    exerciseID: exercise.exerciseID, notes: exercise.notes, sets: done, section: exercise.section,
                    circuit: exercise.circuit)
            })
    }
}

extension GuidedSession {
    /// Marks which done sets of `exerciseID` are records: each judged, in the session's order,
    /// against `history` and the sets done before it in the session (`SetBests.isBeaten`).
    public mutating func markRecords(of exerciseID: ExerciseID, beyond history: SetBests) {
        var bests = history
        for exercise in exercises.indices where exercises[exercise].exerciseID == exerciseID {
            for set in exercises[exercise].sets.indices where exercises[exercise].sets[set].status == .done {
                guard let actual = exercises[exercise].sets[set].actual else { continue }
                exercises[exercise].sets[set].isRecord = bests.isBeaten(by: actual)
                bests.include(actual)
            }
        }
    }
}
