import Foundation

/// Progress per exercise and training statistics over the tenant's own workouts.
public struct ProgressService: Sendable {
    private let store: any ProgressStore
    private let exercises: any ExerciseStore
    private let contexts: any TenantContextStore
    private let now: @Sendable () -> Date

    public init(
        store: any ProgressStore,
        exercises: any ExerciseStore,
        contexts: any TenantContextStore,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.exercises = exercises
        self.contexts = contexts
        self.now = now
    }

    /// Per-day e1RM, top set and volume plus records in `[from, to)`; gated by tier.
    public func progress(_ principal: Principal, exerciseID: String, from: Date?, to: Date?, formula: E1RMFormula)
        async throws -> ProgressReport
    {
        let context = try await principal.context(from: contexts)
        let tier = context.tier.effective(at: now())
        return try await report(
            principal, exerciseID: exerciseID, from: from, to: to, formula: formula,
            timeZone: context.timeZone
        ) { exercise throws(SpotterError) in
            try Entitlements.checkProgress(for: exercise, tier: tier, kind: context.kind)
        }
    }

    /// The progress report of the principal's tenant (a coach's client view too), with days in
    /// `timeZone`, after `gate` allowed the exercise.
    public func report(
        _ principal: Principal, exerciseID: String, from: Date?, to: Date?, formula: E1RMFormula, timeZone: String,
        gate: (Exercise) throws(SpotterError) -> Void
    ) async throws -> ProgressReport {
        let id = try ExerciseService.id(exerciseID)
        if let from, let to, from >= to { throw SpotterError.invalid("to", "must be after from") }
        // A deleted custom exercise keeps its progress (the sets logged before it was deleted).
        guard let exercise = try await exercises.exercise(principal, id, includingDeleted: true) else {
            throw ExerciseService.notFound
        }
        try gate(exercise)
        let sets = try await store.exerciseSets(principal, id, from: from, to: to)
        return ProgressCalculator.report(
            exercise: exercise,
            sets: sets,
            formula: formula,
            timeZone: TimeZone(identifier: timeZone) ?? .gmt
        )
    }

    /// Every set of one exercise, newest first. Listing one's own sets is not gated.
    public func results(_ principal: Principal, exerciseID: String, pageSize: Int, pageToken: String) async throws
        -> Page<ExerciseSetRecord>
    {
        let id = try ExerciseService.id(exerciseID)
        let limit = try PageToken.size(pageSize)
        let query = [principal.tenantID.description, id.description]
        let cursor = try PageToken.cursor(ExerciseResultCursor.self, from: pageToken, query: query)
        guard try await exercises.exercise(principal, id, includingDeleted: true) != nil else {
            throw ExerciseService.notFound
        }
        let records = try await store.exerciseResults(principal, id, after: cursor, limit: limit + 1)
        return Page(fetched: records, limit: limit, query: query, cursor: ExerciseResultCursor.init)
    }

    /// Totals per day, ISO week or month in the tenant's time zone; per muscle group and category
    /// only for a tier with advanced statistics (`Entitlements.breakdownsLocked`).
    public func statistics(_ principal: Principal, period: StatisticsPeriod?, from: Date?, to: Date?) async throws
        -> Statistics
    {
        let context = try await principal.context(from: contexts)
        var statistics = try await statistics(principal, period: period, from: from, to: to, context: context)
        if let locked = Entitlements.breakdownsLocked(context, at: now()) {
            statistics.buckets = statistics.buckets.map(\.withoutBreakdowns)
            statistics.breakdownsLocked = locked
        }
        return statistics
    }

    /// A client's statistics for their coach, whole: the coach's tier, not the client's, gates them
    /// (`CoachEntitlements.checkClientStatistics`, checked by the caller).
    public func clientStatistics(_ view: Principal, period: StatisticsPeriod?, from: Date?, to: Date?) async throws
        -> Statistics
    {
        try await statistics(view, period: period, from: from, to: to, context: try await view.context(from: contexts))
    }

    private func statistics(
        _ principal: Principal, period: StatisticsPeriod?, from: Date?, to: Date?, context: TenantContext
    ) async throws -> Statistics {
        var validator = Validator()
        validator.check(period != nil, "period", "is required (DAY, WEEK or MONTH)")
        validator.check(from != nil, "from", "is required")
        validator.check(to != nil, "to", "is required")
        if let from, let to {
            validator.check(from < to, "to", "must be after from")
            validator.check(
                to.timeIntervalSince(from) <= StatisticsQuery.maxRange, "to", "must be at most 3 years after from")
        }
        try validator.validate()
        let buckets = try await store.statistics(
            principal,
            StatisticsQuery(period: period!, from: from!, to: to!, timeZone: context.timeZone)
        )
        return Statistics(
            buckets: buckets, streak: try await store.streak(principal, timeZone: context.timeZone, now: now()))
    }
}
