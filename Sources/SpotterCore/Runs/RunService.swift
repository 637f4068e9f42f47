import Foundation

/// A run as a client sent it.
public struct RunDraft: Sendable, Equatable {
    /// Optional: "Run" when empty.
    public var name: String
    public var startedAt: Date?
    public var notes: String
    public var samples: [FootstepSample]

    public init(name: String = "", startedAt: Date?, notes: String = "", samples: [FootstepSample]) {
        self.name = name
        self.startedAt = startedAt
        self.notes = notes
        self.samples = samples
    }
}

/// A logged run: the workout it is in history, and what the server derived from its footsteps.
public struct Run: Sendable, Equatable {
    public var workout: Workout
    public var analysis: RunAnalysis

    public init(workout: Workout, analysis: RunAnalysis) {
        self.workout = workout
        self.analysis = analysis
    }
}

/// Where runs live: beside the workout each one is.
public protocol RunStore: Sendable {
    /// Logs the run's workout and stores its samples and analysis, in one transaction. A retry
    /// with the same id and content returns the stored run; other content is `alreadyExists`.
    func logRun(
        _ principal: Principal, _ id: WorkoutID, _ content: WorkoutContent, samples: [FootstepSample],
        analysis: RunAnalysis, now: Date
    ) async throws -> Run
    /// The live run `id`, or `nil` (also for a workout that is no run).
    func run(_ principal: Principal, _ id: WorkoutID) async throws -> Run?
    /// Live runs started before `before` (all when `nil`), newest first.
    /// The live runs newest first, started before `before`, or at `before` with an id below
    /// `beforeID` (the previous page's last run: runs that share a start are not lost between pages).
    func runs(_ principal: Principal, before: Date?, beforeID: WorkoutID?, limit: Int) async throws -> [Run]
}

/// Runs (the CityJogger document): logged with their footsteps, analysed by the server, kept as
/// workouts of the catalog's Run so history, statistics and achievements count their minutes.
public struct RunService: Sendable {
    /// The catalog exercise every run's workout holds (migration 0031).
    public static let exerciseID = ExerciseID("c0000000-0000-4000-8000-000000000200")!

    private let store: any RunStore
    private let coaching: CoachingService
    private let now: @Sendable () -> Date

    public init(store: any RunStore, coaching: CoachingService, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.coaching = coaching
        self.now = now
    }

    /// Validates the samples (every bad one named) and the run's fields, analyses and stores it.
    public func log(_ principal: Principal, id: String, _ draft: RunDraft) async throws -> Run {
        let workoutID = id.isEmpty ? WorkoutID.random() : try Self.id(id)
        var violations: [FieldViolation] = []
        let analysis = try Self.collecting(&violations) { () throws(SpotterError) in
            // Named as LogRunRequest's own fields: `samples[17].offset_ms`, `name`, `started_at`.
            try RunAnalysis.analyze(draft.samples, field: "samples")
        }
        let seconds = analysis.map { min(86_400, max(1, Int($0.durationSeconds.rounded()))) } ?? 1
        let meters = analysis?.distanceMeters.map { Int($0.rounded()) }.flatMap { $0 >= 1 ? $0 : nil }
        let workout = WorkoutDraft(
            name: draft.name.trimmingWhitespacesAndNewlines().isEmpty ? "Run" : draft.name,
            startedAt: draft.startedAt, durationSeconds: seconds, notes: draft.notes,
            exercises: [
                WorkoutExerciseDraft(
                    exerciseID: Self.exerciseID.description,
                    sets: [SetDraft(reps: 0, durationSeconds: seconds, distanceMeters: meters)])
            ])
        let at = now()
        let content = try Self.collecting(&violations) { () throws(SpotterError) in
            try workout.validated(now: at, prefix: "")
        }
        guard violations.isEmpty, let analysis, let content else { throw SpotterError.invalidArgument(violations) }
        return try await store.logRun(
            principal, workoutID, content, samples: draft.samples, analysis: analysis, now: now())
    }

    public func get(_ principal: Principal, id: String) async throws -> Run {
        guard let run = try await store.run(principal, try Self.id(id)) else { throw Self.notFound }
        return run
    }

    /// Newest first, `limit` 1–50 (0 means 20), started before `before` when set.
    /// The runs newest first, a page of `limit`; the next page starts after the last run's start
    /// (`before`) and id (`beforeRunID`).
    public func list(_ principal: Principal, before: Date?, beforeRunID: String = "", limit: Int) async throws
        -> [Run]
    {
        var validator = Validator()
        validator.check((0...50).contains(limit), "limit", "must be between 1 and 50 (0 means 20)")
        let beforeID = beforeRunID.isEmpty ? nil : WorkoutID(beforeRunID)
        validator.check(beforeRunID.isEmpty || beforeID != nil, "before_run_id", "must be a run id")
        validator.check(beforeRunID.isEmpty || before != nil, "before_run_id", "goes with before, the run's start")
        try validator.validate()
        return try await store.runs(principal, before: before, beforeID: beforeID, limit: limit == 0 ? 20 : limit)
    }

    /// A client's run with its footstep analysis, for a coach with the details scope (access-logged).
    public func clientRun(_ principal: Principal, client: String, id: String) async throws -> Run {
        // Logged with the run's workout, so the lifter's access log names the run it read.
        try await coaching.reading(
            principal, client: client, needs: .details, kind: .details, method: "GetClientRun", workout: id
        ) { view, _, _ in try await get(view, id: id) }
    }

    /// `body`'s value, or `nil` with its refusal's violations added to `violations` (so the samples'
    /// and the fields' problems are reported together).
    private static func collecting<T>(_ violations: inout [FieldViolation], _ body: () throws(SpotterError) -> T)
        throws(SpotterError) -> T?
    {
        do {
            return try body()
        } catch {
            guard case .invalidArgument(let found) = error else { throw error }
            violations += found
            return nil
        }
    }

    static let notFound = SpotterError.notFound("run not found")

    /// Why an edit of a run's workout from `stored` to `content` is refused, or `nil`: a run's
    /// exercise, its set's time and distance and the workout's duration come from its footsteps.
    /// Its name, notes, start and its set's note, RPE and rest are the lifter's to change. Named by
    /// the field under `workout.`.
    public static func editRefusal(_ content: WorkoutContent, from stored: WorkoutContent) -> SpotterError? {
        func measured(_ content: WorkoutContent) -> [[Int?]] {
            content.exercises.map { exercise in
                exercise.sets.flatMap { [$0.reps, $0.durationSeconds, $0.distanceMeters] }
            }
        }
        if content.exercises.map(\.exerciseID) != stored.exercises.map(\.exerciseID)
            || measured(content) != measured(stored)
            || content.exercises.flatMap(\.sets).contains(where: { $0.weight != nil })
        {
            return .invalid("workout.exercises", footsteps)
        }
        return durationRefusal(content.durationSeconds, stored: stored.durationSeconds, prefix: "workout.")
    }

    /// Why changing a run's duration from `stored` to `seconds` is refused, or `nil` when it stays.
    public static func durationRefusal(_ seconds: Int, stored: Int, prefix: String = "") -> SpotterError? {
        seconds == stored ? nil : .invalid(prefix + "duration_seconds", footsteps)
    }

    private static let footsteps =
        "a run's exercise, time, distance and duration come from its footsteps: change its name, notes or start, or delete the run and log it again"

    static func id(_ text: String) throws(SpotterError) -> WorkoutID {
        guard let id = WorkoutID(text) else { throw .invalid("run_id", "must be a UUID") }
        return id
    }
}
