import Foundation

/// What a guided session starts from.
public enum GuidedSessionStart: Sendable, Equatable {
    /// One of the lifter's templates, or one a coach assigned.
    case template(String)
    /// Today's template of the program the lifter follows (`GetToday`).
    case programDay
    /// Nothing planned: exercises are added as the lifter goes.
    case empty(name: String)
}

/// Guided sessions: start one, mark sets done against the server's clock, pause and resume,
/// complete it into a workout exactly once, or abandon it. A second device of the lifter and a
/// coach with the details scope follow it (`clientSession`).
public struct GuidedSessionService: Sendable {
    private let store: any GuidedSessionStore
    private let training: TrainingServices
    private let coaching: CoachingService
    private let now: @Sendable () -> Date

    public init(
        store: any GuidedSessionStore, training: TrainingServices, coaching: CoachingService,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.training = training
        self.coaching = coaching
        self.now = now
    }

    /// Starts a session with a client-chosen id (or a new one); starting again with the same id
    /// returns the session already started while it is open (a retried start). The id of a session
    /// already completed or abandoned is refused: it starts nothing new.
    public func start(_ principal: Principal, id: String, _ start: GuidedSessionStart) async throws -> GuidedSession {
        let sessionID = id.isEmpty ? GuidedSessionID.random() : try Self.id(id)
        if let existing = try await store.session(principal, sessionID, now: now()) {
            guard existing.status.isOpen else {
                throw SpotterError.alreadyExists(
                    field: "session_id",
                    reason:
                        "is the id of a session already \(existing.status.rawValue); send a new id (or none) to start another"
                )
            }
            return existing
        }
        let at = now()
        let plan: (name: String, source: GuidedSessionSource, template: Template?)
        switch start {
        case .template(let templateID):
            let template = try await training.workouts.template(principal, id: templateID)
            plan = (template.content.name, .template, template)
        case .programDay:
            let today = try await coaching.today(principal)
            guard let follow = today.follow else {
                throw SpotterError.failedPrecondition(
                    "you follow no program; start from a template or an empty session")
            }
            guard let template = today.template else {
                let name = follow.program.content.name
                switch today.day?.state {
                case .notStarted:
                    throw SpotterError.failedPrecondition(
                        "\(name) starts on \(follow.startedOn); today (\(today.date)) is before it")
                case .finished:
                    let start = CivilDate.dayNumber(follow.startedOn) ?? 0
                    let end = CivilDate(day: start + follow.program.content.weeks * 7 - 1).text
                    throw SpotterError.failedPrecondition(
                        "\(name) ended on \(end); follow it again or another program to train from one")
                default:
                    throw SpotterError.failedPrecondition("today (\(today.date)) is a rest day in \(name)")
                }
            }
            plan = (template.content.name, .programDay, template)
        case .empty(let name):
            var validator = Validator()
            let trimmed = name.trimmingWhitespacesAndNewlines()
            validator.check(trimmed.storedLength <= 100, "name", "must be at most 100 characters")
            try validator.validate()
            plan = (trimmed.isEmpty ? "Workout" : trimmed, .empty, nil)
        }
        var content: WorkoutContent?
        if let template = plan.template {
            content = try await training.workouts.prefill(principal, template: template, startedAt: at)
        }
        // The prefill has one exercise per template item, in order; an item's rep range is kept
        // beside its planned sets, whose reps are the range's top.
        let items = plan.template?.content.items ?? []
        let exercises = (content?.exercises ?? []).enumerated().map { index, exercise in
            let item = items.indices.contains(index) ? items[index] : nil
            let repsMin = item.flatMap { $0.repsMin < $0.repsMax ? $0.repsMin : nil }
            return GuidedExercise(
                exerciseID: exercise.exerciseID, name: plan.template?.exerciseNames[exercise.exerciseID] ?? "",
                notes: exercise.notes, section: exercise.section, circuit: exercise.circuit,
                sets: exercise.sets.map { GuidedSet(planned: $0, plannedRepsMin: repsMin) })
        }
        return try await store.createSession(
            principal,
            GuidedSession(
                id: sessionID, name: plan.name, source: plan.source, templateID: plan.template?.id, startedAt: at,
                exercises: exercises, circuits: plan.template?.content.circuits ?? []))
    }

    public func get(_ principal: Principal, id: String) async throws -> GuidedSession {
        guard let session = try await store.session(principal, try Self.id(id), now: now()) else {
            throw Self.notFound
        }
        return session
    }

    /// The open session first, if any, then the most recent closed ones.
    public func list(_ principal: Principal, limit: Int) async throws -> [GuidedSession] {
        guard (0...100).contains(limit) else {
            throw SpotterError.invalid("limit", "must be between 1 and 100 (0 means 20)")
        }
        return try await store.sessions(principal, limit: limit == 0 ? 20 : limit, now: now())
    }

    public func pause(_ principal: Principal, id: String) async throws -> GuidedSession {
        try await apply(principal, id) { _ in .pause }
    }

    public func resume(_ principal: Principal, id: String) async throws -> GuidedSession {
        try await apply(principal, id) { _ in .resume }
    }

    /// Starts the work timer of a set.
    public func startSet(_ principal: Principal, id: String, exercise: Int, set: Int) async throws -> GuidedSession {
        try await apply(principal, id) { _ in .startSet(exercise: exercise, set: set) }
    }

    /// Marks a set done with what was done. A timed set sent without its time takes the time its
    /// work timer ran; a set that beats the lifter's earlier bests of the exercise is a record.
    public func recordSet(_ principal: Principal, id: String, exercise: Int, set: Int, _ draft: SetDraft)
        async throws -> GuidedSession
    {
        let id = try Self.id(id)
        return try await store.updateSession(principal, id, now: now()) { [store, now] session in
            // A timed set sent without its time (a plank: no reps either) takes the time its work
            // timer ran, so it is checked with that time.
            var draft = draft
            if draft.durationSeconds == nil, session.status == .active,
                let seconds = session.workTimerSeconds(exercise: exercise, set: set, at: now())
            {
                draft.durationSeconds = seconds
            }
            var validator = Validator()
            let actual = WorkoutDraft.validated(draft, "actual", into: &validator)
            try validator.validate()
            guard let actual else { throw SpotterError.invalid("actual", "is not a set") }
            let command = GuidedSessionCommand.recordSet(exercise: exercise, set: set, actual: actual)
            // An index out of range (or a closed session) is refused by the command itself.
            guard session.status.isOpen, session.exercises.indices.contains(exercise) else {
                return try session.applying(command, at: now())
            }
            // Every done set of the exercise is judged again, in the session's order, against the
            // history's marks (read in this transaction) and the sets before it: a corrected set
            // changes what the sets after it beat.
            let exerciseID = session.exercises[exercise].exerciseID
            var updated = try session.applying(command, at: now())
            updated.markRecords(of: exerciseID, beyond: try await store.bests(principal, exerciseID))
            return updated
        }
    }

    public func skipSet(_ principal: Principal, id: String, exercise: Int, set: Int) async throws -> GuidedSession {
        try await apply(principal, id) { _ in .skipSet(exercise: exercise, set: set) }
    }

    public func skipExercise(_ principal: Principal, id: String, exercise: Int) async throws -> GuidedSession {
        try await apply(principal, id) { _ in .skipExercise(exercise: exercise) }
    }

    /// Adds an exercise at the end with `sets` planned sets (at least one). `expectedVersion`: the
    /// session's version the app saw; a session that moved on (a retry of a call that was
    /// applied) refuses it.
    public func addExercise(
        _ principal: Principal, id: String, exerciseID: String, sets: [SetDraft], expectedVersion: Int64? = nil
    ) async throws -> GuidedSession {
        let exercise = try await training.exercises.get(principal, exerciseID)
        var validator = Validator()
        validator.check(!sets.isEmpty, "sets", "must contain at least one set")
        validator.check(sets.count <= 100, "sets", "must contain at most 100 sets")
        let planned = sets.enumerated().compactMap { index, set in
            WorkoutDraft.validated(set, "sets[\(index)]", into: &validator)
        }
        try validator.validate()
        return try await apply(principal, id, expectedVersion: expectedVersion) { _ in
            .addExercise(
                GuidedExercise(
                    exerciseID: exercise.id, name: exercise.name, sets: planned.map { GuidedSet(planned: $0) }))
        }
    }

    /// Adds a set to an exercise: `draft`, or a copy of its last set's target; `expectedVersion`
    /// as for `addExercise`.
    public func addSet(
        _ principal: Principal, id: String, exercise: Int, _ draft: SetDraft?, expectedVersion: Int64? = nil
    ) async throws -> GuidedSession {
        var validator = Validator()
        let planned = draft.flatMap { WorkoutDraft.validated($0, "planned", into: &validator) }
        try validator.validate()
        return try await apply(principal, id, expectedVersion: expectedVersion) { _ in
            .addSet(exercise: exercise, planned: planned)
        }
    }

    /// Writes the workout (id: the session's) and closes the session. Completing a completed
    /// session answers it again: a retry, or the other device, gets the same workout.
    public func complete(_ principal: Principal, id: String) async throws -> (GuidedSession, Workout) {
        let session = try await store.updateSession(principal, try Self.id(id), now: now()) { [now] session in
            if session.status == .completed { return session }
            return try session.applying(.complete, at: now())
        }
        // The workout a completed session wrote carries the session's id.
        return (session, try await training.workouts.get(principal, id: session.id.description))
    }

    public func abandon(_ principal: Principal, id: String) async throws -> GuidedSession {
        try await store.updateSession(principal, try Self.id(id), now: now()) { [now] session in
            if session.status == .abandoned { return session }
            return try session.applying(.abandon, at: now())
        }
    }

    /// A client's session, for a coach with the details scope (access-logged).
    public func clientSession(_ principal: Principal, client: String, id: String) async throws -> GuidedSession {
        try await coaching.reading(
            principal, client: client, needs: .details, kind: .details, method: "WatchClientSession"
        ) { view, _, _ in try await get(view, id: id) }
    }

    /// A client's session again, for a coach already following it: not access-logged again, and
    /// `nil` once the client has taken back the details scope or ended the coaching (row-level
    /// security lets the read through only while both hold).
    public func followClientSession(_ principal: Principal, client: TenantID, id: GuidedSessionID) async throws
        -> GuidedSession?
    {
        try await store.session(principal.clientView(of: client), id, now: now())
    }

    private func apply(
        _ principal: Principal, _ id: String, expectedVersion: Int64? = nil,
        _ command: @escaping @Sendable (GuidedSession) throws -> GuidedSessionCommand
    ) async throws -> GuidedSession {
        try await store.updateSession(principal, try Self.id(id), now: now()) { [now] session in
            if let expectedVersion, expectedVersion != session.version {
                throw SpotterError.failedPrecondition(
                    "expected_version: the session is at version \(session.version), not \(expectedVersion); "
                        + "read it again (a call you retried may have been applied)")
            }
            return try session.applying(try command(session), at: now())
        }
    }

    static let notFound = SpotterError.notFound("session not found")

    static func id(_ text: String, field: String = "session_id") throws(SpotterError) -> GuidedSessionID {
        guard let id = GuidedSessionID(text) else { throw .invalid(field, "must be a UUID") }
        return id
    }
}
