import Foundation

/// A coach's reads of one client, each within the scopes the client granted.
extension CoachingService {
    /// Runs a coach's read of `client` needing `scope`, all in one transaction acting as the coach:
    /// the active link or `notFound` (the same answer as a tenant that does not exist),
    /// `scopeNotGranted` without the scope; then `body` with a principal that reads the client's
    /// rows (so the database checks the grant again); then, when it succeeded, one access-log row
    /// for the whole call, naming `workout` when the call read that one workout (read after `body`,
    /// which has refused an id that is not one). A failure rolls everything back, the log row
    /// included.
    func reading<T: Sendable>(
        _ principal: Principal, client: String, needs scope: Scope, kind: AccessKind, method: String,
        workout: String? = nil,
        _ body: (_ view: Principal, _ link: CoachLink, _ coach: TenantContext) async throws -> T
    ) async throws -> T {
        let context = try await requireKind(.coach, principal)
        let clientID = try Self.tenantID(client, field: "client_id")
        return try await store.inOneTransaction(principal) {
            let tier = context.tier.effective(at: now())
            let link = try await store.linking(principal) {
                try await coveredClientLink(principal, client: clientID, tier: tier, $0)
            }
            guard link.scopes.contains(scope) else {
                throw SpotterError.scopeNotGranted(
                    "\(link.lifterName) has not granted you the \(scope.rawValue) scope", scope: scope)
            }
            let result = try await body(principal.clientView(of: clientID), link, context)
            try await store.recordAccess(
                principal, lifter: clientID, kind: kind, method: method,
                workout: workout.flatMap { UUID(uuidString: $0) }.map { WorkoutID(rawValue: $0) }, now: now())
            return result
        }
    }

    /// Days without a workout after which a client is flagged inactive, unless the coach says.
    public static let defaultInactiveDays = 7

    /// The coach's active clients: last workout, workouts and planned days this week, and flags
    /// (inactive after `inactiveDays` without a workout; 0 means `defaultInactiveDays`).
    public func clients(_ principal: Principal, inactiveDays: Int) async throws -> [ClientSummary] {
        let context = try await requireKind(.coach, principal)
        guard (0...365).contains(inactiveDays) else {
            throw SpotterError.invalid("inactive_days", "must be between 1 and 365 (0 means 7)")
        }
        let days = inactiveDays == 0 ? Self.defaultInactiveDays : inactiveDays
        let at = now()
        let progress = CoachEntitlements.clientProgress(context.tier.effective(at: at))
        let facts = try await store.clientFacts(principal, now: at, bigThreeOnly: progress != .every)
        // Past the tier's limit (after a downgrade) the latest clients are listed without their data.
        let limit = CoachEntitlements.clientLimit(context.tier.effective(at: at))
        let covered = Set(
            facts.map(\.link).sorted {
                ($0.since, $0.id.rawValue.uuidString) < ($1.since, $1.id.rawValue.uuidString)
            }
            .prefix(limit).map(\.id))
        return facts.map { fact in
            guard covered.contains(fact.link.id) else {
                return ClientSummary(
                    link: fact.link, lastWorkoutAt: nil, workoutsThisWeek: nil, plannedThisWeek: nil, inactive: false,
                    newRecordExercise: nil, beyondTierLimit: true)
            }
            let scopes = fact.link.scopes
            let history = scopes.contains(.history) || scopes.contains(.details)
            let today = ProgramSchedule.localDay(at, timeZoneID: fact.timeZone)
            let planned =
                history
                ? fact.follow.map {
                    ProgramSchedule.plannedTemplates($0.content, startedOn: $0.startedOn, holding: today)
                }
                : nil
            return ClientSummary(
                link: fact.link,
                lastWorkoutAt: history ? fact.lastWorkoutAt : nil,
                workoutsThisWeek: history ? fact.workoutsSince : nil,
                plannedThisWeek: planned?.count,
                plannedDoneThisWeek: planned.map {
                    ProgramSchedule.plannedDone(planned: $0, logged: fact.templatesLogged)
                },
                // Counted from the last workout, whenever it was (a client who moved over from
                // another app three weeks after their last session is inactive from the first day);
                // with no workout at all, from the start of coaching: a client who joined yesterday
                // has not been inactive for a week.
                inactive: history
                    && at.timeIntervalSince(fact.lastWorkoutAt ?? fact.link.since) >= Double(days) * 86_400,
                newRecordExercise: scopes.contains(.progress) && progress != .none ? fact.newRecordExercise : nil,
                streakWeeks: history ? WeeklyStreak.of(weeks: fact.recentWeeks, thisWeek: fact.thisWeek).current : nil
            )
        }
    }

    /// A client's history page; sets, reps and volume only with the details scope.
    public func clientHistory(
        _ principal: Principal, client: String, from: Date?, to: Date?, text: String, pageSize: Int,
        pageToken: String
    ) async throws -> Page<WorkoutEntry> {
        try await reading(principal, client: client, needs: .history, kind: .history, method: "ListClientWorkouts") {
            view, link, _ in
            var page = try await training.workouts.history(
                view, from: from, to: to, text: text, pageSize: pageSize, pageToken: pageToken)
            if !link.scopes.contains(.details) {
                page.items = page.items.map { entry in
                    var entry = entry
                    entry.summary = nil
                    return entry
                }
            }
            return page
        }
    }

    /// One of a client's workouts with every set (details scope).
    public func clientWorkout(_ principal: Principal, client: String, workoutID: String) async throws -> Workout {
        try await reading(
            principal, client: client, needs: .details, kind: .details, method: "GetClientWorkout", workout: workoutID
        ) {
            view, _, _ in try await training.workouts.get(view, id: workoutID)
        }
    }

    /// A client's progress for one exercise (progress scope; the coach's tier decides which
    /// exercises). Marks the client seen for the "new record" flag.
    public func clientProgress(
        _ principal: Principal, client: String, exerciseID: String, from: Date?, to: Date?, formula: E1RMFormula
    ) async throws -> ProgressReport {
        try await reading(principal, client: client, needs: .progress, kind: .progress, method: "GetClientProgress") {
            view, _, coach in
            let tier = coach.tier.effective(at: now())
            let clientContext = try await contexts.tenantContext(view)
            let report = try await training.progress.report(
                view, exerciseID: exerciseID, from: from, to: to, formula: formula, timeZone: clientContext.timeZone
            ) { exercise throws(SpotterError) in
                try CoachEntitlements.checkClientProgress(for: exercise, tier: tier)
            }
            try await store.markSeen(principal, lifter: view.tenantID, now: now())
            return report
        }
    }

    /// A client's statistics (progress scope), in the client's time zone.
    /// The exercises a client's progress can be read for, matching `query`: the catalog and the
    /// client's own custom exercises (progress scope), first 30 by name.
    public func clientExercises(_ principal: Principal, client: String, query: String) async throws -> [Exercise] {
        try await reading(
            principal, client: client, needs: .progress, kind: .progress, method: "ListClientExercises"
        ) { view, _, _ in
            try await training.exercises.list(view, ExerciseFilter(query: query), pageSize: 30, pageToken: "").items
        }
    }

    /// A client's body measurements (body scope), a series per metric.
    public func clientMeasurements(_ principal: Principal, client: String, metrics: [String], from: String, to: String)
        async throws -> [MeasurementSeries]
    {
        try await reading(principal, client: client, needs: .body, kind: .body, method: "GetClientMeasurements") {
            view, _, _ in
            try await training.body.storedSeries(view, metrics: metrics, from: from, to: to)
        }
    }

    /// A client's achievements, earned and locked, computed from their history (progress scope),
    /// with the client's tenant id.
    public func clientAchievements(_ principal: Principal, client: String) async throws
        -> (client: TenantID, achievements: [Achievement])
    {
        try await reading(
            principal, client: client, needs: .progress, kind: .statistics, method: "GetClientAchievements"
        ) { view, _, coach in
            // The achievements are the client's statistics (streaks, counts): gated alike.
            try CoachEntitlements.checkClientStatistics(tier: coach.tier.effective(at: now()))
            return (view.tenantID, try await training.activity.computedAchievements(view))
        }
    }

    public func clientStatistics(
        _ principal: Principal, client: String, period: StatisticsPeriod?, from: Date?, to: Date?
    ) async throws -> Statistics {
        try await reading(
            principal, client: client, needs: .progress, kind: .statistics, method: "GetClientStatistics"
        ) { view, _, coach in
            try CoachEntitlements.checkClientStatistics(tier: coach.tier.effective(at: now()))
            return try await training.progress.clientStatistics(view, period: period, from: from, to: to)
        }
    }
}
