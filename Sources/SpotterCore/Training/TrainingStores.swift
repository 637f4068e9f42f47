import Foundation

/// Where a listing by name ends: lower-cased names sort, ids break ties.
public struct NameCursor<ID: EntityID>: PageCursor, Equatable {
    public var name: String
    public var id: ID

    public init(name: String, id: ID) {
        self.name = name
        self.id = id
    }

    public static var tokenPartCount: Int { 2 }
    public var tokenParts: [String] { [name, id.description] }

    public init?(tokenParts parts: [String]) {
        guard let id = ID(parts[1]) else { return nil }
        self.init(name: parts[0], id: id)
    }
}

public typealias ExerciseCursor = NameCursor<ExerciseID>
public typealias TemplateCursor = NameCursor<TemplateID>

/// Built-in and custom exercises.
public protocol ExerciseStore: Sendable {
    /// Exercises matching `filter`, ordered by lower-cased name then id, after `cursor`.
    func exercises(_ principal: Principal, _ filter: ExerciseFilter, after cursor: ExerciseCursor?, limit: Int)
        async throws -> [Exercise]
    /// A built-in exercise or one of the tenant's custom ones (archived too, and deleted ones with
    /// `includingDeleted`, for the progress of sets logged before); `nil` otherwise.
    func exercise(_ principal: Principal, _ id: ExerciseID, includingDeleted: Bool) async throws -> Exercise?
    /// The built-in exercise whose name is `name` ignoring case, spaces and punctuation ("Pull Up"
    /// is "Pull-Up", as an import matches names); `nil` when there is none.
    func builtInExercise(_ principal: Principal, named name: String) async throws -> Exercise?
    /// Creates a custom exercise. An existing one with the same id and input is returned as is;
    /// with other input it is `alreadyExists`.
    func createExercise(_ principal: Principal, _ id: ExerciseID, _ input: ExerciseInput, now: Date) async throws
        -> Exercise
    /// Replaces a custom exercise's fields.
    func updateExercise(
        _ principal: Principal, _ id: ExerciseID, _ input: ExerciseInput, expectedVersion: Int64?, now: Date
    ) async throws -> Exercise
    func archiveExercise(_ principal: Principal, _ id: ExerciseID, archived: Bool, now: Date) async throws -> Exercise
    /// Marks a custom exercise deleted; `false` when there was no live one. Workouts and templates
    /// that use it keep it under its last name; it leaves lists and new workouts cannot use it.
    /// `failedPrecondition` for a built-in exercise.
    func deleteExercise(_ principal: Principal, _ id: ExerciseID, now: Date) async throws -> Bool
}

extension ExerciseStore {
    /// A built-in exercise or one of the tenant's live custom ones (archived too); `nil` otherwise.
    public func exercise(_ principal: Principal, _ id: ExerciseID) async throws -> Exercise? {
        try await exercise(principal, id, includingDeleted: false)
    }
}

/// Logged workouts and history.
public protocol WorkoutStore: Sendable {
    /// Stores a new workout with its exercises and sets in one transaction. An existing workout
    /// with this id and the same fingerprint is returned as is; another fingerprint (or a deleted
    /// workout) is `alreadyExists`. Unknown exercise or template ids are `invalidArgument` naming
    /// their paths.
    func logWorkout(_ principal: Principal, _ id: WorkoutID, _ content: WorkoutContent, now: Date) async throws
        -> Workout
    func workout(_ principal: Principal, _ id: WorkoutID) async throws -> Workout?
    /// The refusals `logWorkout` (with `template`) or `replaceWorkout` (of `workout`) would give the
    /// exercises at `ids`' indices (`workout.exercises[i].exercise_id`), for a refusal of other
    /// fields to name them at once.
    func exerciseRefusals(
        _ principal: Principal, _ ids: [Int: ExerciseID], template: TemplateID?, workout: WorkoutID?
    ) async throws -> [FieldViolation]
    /// Replaces the workout's content; comments on a set follow their exercise to its new position,
    /// or stay on the workout when the set is gone.
    func replaceWorkout(
        _ principal: Principal, _ id: WorkoutID, _ content: WorkoutContent, expectedVersion: Int64?, now: Date
    ) async throws -> Workout
    func updateWorkout(
        _ principal: Principal, _ id: WorkoutID, _ patch: WorkoutPatch, expectedVersion: Int64?, now: Date
    ) async throws -> Workout
    /// Marks the workout deleted and removes its sets and its comments (a coach's too); `false` when
    /// there was no live workout.
    func deleteWorkout(_ principal: Principal, _ id: WorkoutID, now: Date) async throws -> Bool
    /// Newest first.
    func history(_ principal: Principal, _ query: HistoryQuery) async throws -> [WorkoutEntry]
    /// For each of `exercises`, the sets of it in the latest workout before `before` that has it
    /// (its first place in that workout), in order; an exercise never done is left out.
    func lastSets(_ principal: Principal, of exercises: [ExerciseID], before: Date) async throws
        -> [ExerciseID: [WorkoutSet]]
}

public protocol TemplateStore: Sendable {
    /// Creates a template; an existing one with this id and the same content is returned as is.
    func createTemplate(_ principal: Principal, _ id: TemplateID, _ content: TemplateContent, now: Date) async throws
        -> Template
    func template(_ principal: Principal, _ id: TemplateID) async throws -> Template?
    /// The refusals `createTemplate` or `updateTemplate` (of `template`) would give the exercises at
    /// `ids`' indices (`template.items[i].exercise_id`), for a refusal of other fields to name them
    /// at once.
    func exerciseRefusals(_ principal: Principal, _ ids: [Int: ExerciseID], template: TemplateID?) async throws
        -> [FieldViolation]
    /// Replaces a template's content. Target weights sent back as shown
    /// (`TemplateContent.keepingWeights(of:)`) stay as stored, and content equal to the stored one
    /// (at `expectedVersion`, if given) returns the template as it is, with no new version.
    func updateTemplate(
        _ principal: Principal, _ id: TemplateID, _ content: TemplateContent, expectedVersion: Int64?, now: Date
    ) async throws -> Template
    func archiveTemplate(_ principal: Principal, _ id: TemplateID, archived: Bool, now: Date) async throws -> Template
    func deleteTemplate(_ principal: Principal, _ id: TemplateID, now: Date) async throws -> Bool
    func templates(_ principal: Principal, includeArchived: Bool, after cursor: TemplateCursor?, limit: Int)
        async throws -> [Template]
}

/// Where a per-exercise results page ends.
public struct ExerciseResultCursor: PageCursor, Equatable {
    public var startedAt: Date
    public var workoutID: WorkoutID
    public var exerciseIndex: Int
    public var setIndex: Int

    public init(startedAt: Date, workoutID: WorkoutID, exerciseIndex: Int, setIndex: Int) {
        self.startedAt = startedAt
        self.workoutID = workoutID
        self.exerciseIndex = exerciseIndex
        self.setIndex = setIndex
    }

    public init(_ record: ExerciseSetRecord) {
        self.init(
            startedAt: record.startedAt, workoutID: record.workoutID, exerciseIndex: record.exerciseIndex,
            setIndex: record.setIndex)
    }

    public static var tokenPartCount: Int { 4 }

    public var tokenParts: [String] {
        [PageToken.micros(startedAt), workoutID.description, String(exerciseIndex), String(setIndex)]
    }

    public init?(tokenParts parts: [String]) {
        guard let startedAt = try? PageToken.date(micros: parts[0]), let workoutID = WorkoutID(parts[1]),
            let exerciseIndex = Int(parts[2]), let setIndex = Int(parts[3])
        else { return nil }
        self.init(startedAt: startedAt, workoutID: workoutID, exerciseIndex: exerciseIndex, setIndex: setIndex)
    }
}

/// Reads for progress and statistics.
public protocol ProgressStore: Sendable {
    /// Every set of the exercise in live workouts started in `[from, to)`, without workout names.
    func exerciseSets(_ principal: Principal, _ exercise: ExerciseID, from: Date?, to: Date?) async throws
        -> [ExerciseSetRecord]
    /// The exercise's sets newest first (then by position), after `cursor`.
    func exerciseResults(
        _ principal: Principal, _ exercise: ExerciseID, after cursor: ExerciseResultCursor?, limit: Int
    ) async throws -> [ExerciseSetRecord]
    /// Buckets with at least one workout, oldest first.
    func statistics(_ principal: Principal, _ query: StatisticsQuery) async throws -> [StatisticsBucket]
    /// One bucket of every live workout started in `[from, to)` (either end open when `nil`), with
    /// an empty start date; `nil` without any.
    func totals(_ principal: Principal, from: Date?, to: Date?, timeZone: String) async throws -> StatisticsBucket?
    /// The Mondays of the ISO weeks in `timeZone` with at least one live workout, as days since
    /// 1970-01-01.
    func trainingWeeks(_ principal: Principal, timeZone: String) async throws -> [Int]
}

extension ProgressStore {
    /// The weekly streak of the principal's tenant at `now`, weeks in `timeZone`.
    func streak(_ principal: Principal, timeZone: String, now: Date) async throws -> WeeklyStreak {
        let weeks = try await trainingWeeks(principal, timeZone: timeZone)
        return WeeklyStreak.of(
            weeks: weeks, thisWeek: WeeklyStreak.monday(of: now, timeZone: TimeZone(identifier: timeZone) ?? .gmt))
    }
}
