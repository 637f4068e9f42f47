import Foundation

/// Logging, editing and reading the tenant's workouts.
public struct WorkoutService: Sendable {
    private let store: any WorkoutStore
    private let templates: any TemplateStore
    private let progress: any ProgressStore
    private let contexts: any TenantContextStore
    private let now: @Sendable () -> Date

    public init(
        store: any WorkoutStore,
        templates: any TemplateStore,
        progress: any ProgressStore,
        contexts: any TenantContextStore,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.templates = templates
        self.progress = progress
        self.contexts = contexts
        self.now = now
    }

    /// Validates and stores a whole workout; a retry with the same id and content returns the stored one.
    public func log(_ principal: Principal, id: String, _ draft: WorkoutDraft) async throws -> Workout {
        // The id and the content are refused together, every field named at once.
        let (workoutID, content) = try await namingExercises(principal, draft, workout: nil) {
            try Validator.both(
                { () throws(SpotterError) in id.isEmpty ? .random() : try Self.id(id) },
                { () throws(SpotterError) in try draft.validated(now: now()) })
        }
        return try await store.logWorkout(principal, workoutID, content, now: now())
    }

    /// `ExerciseRefusals.naming` for a workout: the exercises the store would refuse, in the same
    /// refusal as the draft's other fields.
    private func namingExercises<T>(
        _ principal: Principal, _ draft: WorkoutDraft, workout: WorkoutID?, _ validate: () throws -> T
    ) async throws -> T {
        try await ExerciseRefusals.naming(draft.exercises.map(\.exerciseID), validate) { ids in
            try await store.exerciseRefusals(principal, ids, template: TemplateID(draft.templateID), workout: workout)
        }
    }

    /// Today's workout from a template; nothing is stored.
    public func prefill(_ principal: Principal, templateID: String, startedAt: Date?) async throws -> WorkoutContent {
        try await prefill(
            principal, template: try await template(principal, id: templateID), startedAt: startedAt ?? now())
    }

    /// Today's workout from `template` (`TemplateContent.prefill`) with the loads it prescribes, in
    /// the lifter's unit (`TemplateLoad.resolvedWeight`): a weight, or a percentage of the lifter's
    /// best estimate of the exercise in the `TemplateLoad.maxWindow` before `start` (none without a
    /// set in that time: last time's weight could be any share of a max long gone). Where it
    /// prescribes no load, the weights of the last time each exercise was done: its working sets,
    /// set by set, the last one again for sets beyond them.
    public func prefill(_ principal: Principal, template: Template, startedAt start: Date) async throws
        -> WorkoutContent
    {
        var maxes: [ExerciseID: Double] = [:]
        let percentages = Set(template.content.items.filter { $0.targetLoad?.percentOfMax != nil }.map(\.exerciseID))
        for exercise in percentages {
            let sets = try await progress.exerciseSets(
                principal, exercise, from: start.addingTimeInterval(-TemplateLoad.maxWindow), to: start)
            maxes[exercise] =
                sets.filter(\.set.type.isCounted).compactMap {
                    OneRepMax.estimate(weight: $0.set.weight, reps: $0.set.reps, rpe: $0.set.rpe, formula: .epley)
                        .kilograms
                }.max()
        }
        let unit = try await principal.context(from: contexts).unit
        var content = template.content.prefill(templateID: template.id, startedAt: start, maxes: maxes, unit: unit)
        let last = try await store.lastSets(principal, of: content.exercises.map(\.exerciseID), before: start)
        // Items and exercises correspond one to one, in order.
        for index in content.exercises.indices where template.content.items[index].targetLoad == nil {
            let done = (last[content.exercises[index].exerciseID] ?? []).filter(\.type.isCounted)
            guard let final = done.last else { continue }
            for set in content.exercises[index].sets.indices where content.exercises[index].sets[set].weight == nil {
                content.exercises[index].sets[set].weight = (set < done.count ? done[set] : final).weight
            }
        }
        return content
    }

    /// A template the lifter may log from: their own, or one a coach assigned.
    public func template(_ principal: Principal, id: String) async throws -> Template {
        guard let template = try await templates.template(principal, try TemplateService.id(id)) else {
            throw TemplateService.notFound
        }
        return template
    }

    public func get(_ principal: Principal, id: String) async throws -> Workout {
        guard let workout = try await store.workout(principal, try Self.id(id)) else { throw Self.notFound }
        return workout
    }

    public func replace(_ principal: Principal, id: String, _ draft: WorkoutDraft, expectedVersion: Int64?)
        async throws -> Workout
    {
        let (workoutID, content) = try await namingExercises(principal, draft, workout: try? Self.id(id)) {
            try Validator.both(
                { () throws(SpotterError) in try Self.id(id) },
                { () throws(SpotterError) in try draft.validated(now: now()) })
        }
        return try await store.replaceWorkout(
            principal, workoutID, content, expectedVersion: expectedVersion, now: now())
    }

    public func update(_ principal: Principal, id: String, _ patch: WorkoutPatch, expectedVersion: Int64?)
        async throws -> Workout
    {
        let (workoutID, patch) = try Validator.both(
            { () throws(SpotterError) in try Self.id(id) },
            { () throws(SpotterError) in try patch.validated(now: now()) })
        return try await store.updateWorkout(principal, workoutID, patch, expectedVersion: expectedVersion, now: now())
    }

    public func delete(_ principal: Principal, id: String) async throws {
        guard try await store.deleteWorkout(principal, try Self.id(id), now: now()) else { throw Self.notFound }
    }

    /// One page of history, newest first.
    public func history(
        _ principal: Principal,
        from: Date?,
        to: Date?,
        text: String,
        pageSize: Int,
        pageToken: String
    ) async throws -> Page<WorkoutEntry> {
        let text = text.trimmingWhitespacesAndNewlines()
        var validator = Validator()
        validator.check(text.count <= 100, "query", "must be at most 100 characters")
        if let from, let to { validator.check(from < to, "to", "must be after from") }
        try validator.validate()
        let limit = try PageToken.size(pageSize)
        let filters = [
            principal.tenantID.description, from.map(PageToken.micros) ?? "", to.map(PageToken.micros) ?? "",
            text.lowercased(),
        ]
        let cursor = try PageToken.cursor(HistoryCursor.self, from: pageToken, query: filters)
        let query = HistoryQuery(from: from, to: to, text: text.lowercased(), limit: limit + 1, after: cursor)
        let entries = try await store.history(principal, query)
        return Page(fetched: entries, limit: limit, query: filters) {
            HistoryCursor(startedAt: $0.startedAt, id: $0.id)
        }
    }

    static let notFound = SpotterError.notFound("workout not found")

    static func id(_ text: String) throws(SpotterError) -> WorkoutID {
        guard !text.isEmpty else { throw .invalid("workout_id", "is required") }
        guard let id = WorkoutID(text) else { throw .invalid("workout_id", "must be a UUID") }
        return id
    }
}
