import Foundation

/// Where the achievements' facts come from and where the awards are kept.
public protocol ActivityStore: Sendable {
    /// The facts of the principal's tenant (a coach's client view too: the client's), with `today` the
    /// tenant's local date at `now`. Reads only.
    func facts(_ principal: Principal, now: Date) async throws -> ActivityFacts
    /// In one transaction of `tenant`, one at a time per tenant: reads the facts, has `evaluate`
    /// list the achievements, and makes the stored awards match the earned ones (new ones added,
    /// changed ones rewritten, withdrawn ones deleted), each change a change of the tenant's feed.
    /// Answers the list and the awards as now stored. With `onlyAfterChanges`, does nothing and
    /// answers `nil` when no workout and no profile setting changed since the last reconciliation
    /// (nothing an award depends on did; a template edit, a comment or an award written moves the
    /// feed too).
    func reconcile(
        _ tenant: TenantID, now: Date, onlyAfterChanges: Bool, _ evaluate: @Sendable (ActivityFacts) -> [Achievement]
    ) async throws -> ([Achievement], [StoredAward])?
}

/// Activity totals and achievements.
public struct ActivityService: Sendable {
    private let store: any ActivityStore
    private let progress: any ProgressStore
    private let contexts: any TenantContextStore
    private let now: @Sendable () -> Date

    public init(
        store: any ActivityStore, progress: any ProgressStore, contexts: any TenantContextStore,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.progress = progress
        self.contexts = contexts
        self.now = now
    }

    /// Every achievement, earned or locked, after bringing the stored awards up to date (so what a
    /// device learns through the feed never disagrees with this list).
    public func achievements(_ principal: Principal) async throws -> [Achievement] {
        guard
            let (list, stored) = try await store.reconcile(
                principal.tenantID, now: now(), onlyAfterChanges: false, AchievementRules.evaluate)
        else { return [] }
        let awardedAt = Dictionary(stored.map { ($0.award.key, $0.awardedAt) }, uniquingKeysWith: { first, _ in first })
        return list.map { entry in
            var entry = entry
            if let earned = entry.earned { entry.awardedAt = awardedAt[earned.key] }
            return entry
        }
    }

    /// The achievements of the principal's tenant (in a coach's view, the client's) computed from
    /// the history, without writing.
    public func computedAchievements(_ principal: Principal) async throws -> [Achievement] {
        AchievementRules.evaluate(try await store.facts(principal, now: now()))
    }

    /// Brings `tenant`'s stored awards up to date with its history: what spotterd runs after a
    /// change of the tenant's feed. Skipped when the change was not to a workout or the profile.
    public func reconcile(_ tenant: TenantID) async throws {
        _ = try await store.reconcile(tenant, now: now(), onlyAfterChanges: true, AchievementRules.evaluate)
    }

    /// Totals of the live workouts started in `[from, to)` (all of history without them): workouts,
    /// active minutes, sets, reps and volume, per muscle group and per category where the tier
    /// includes them (`Entitlements.breakdownsLocked`); and the streak.
    public func summary(_ principal: Principal, from: Date?, to: Date?) async throws -> ActivitySummary {
        if let from, let to, from >= to { throw SpotterError.invalid("to", "must be after from") }
        let context = try await principal.context(from: contexts)
        var totals =
            try await progress.totals(principal, from: from, to: to, timeZone: context.timeZone)
            ?? StatisticsBucket(
                startDate: "", workouts: 0, activeMinutes: 0, setCount: 0, repCount: 0, volume: .zero, muscleGroups: [])
        let locked = Entitlements.breakdownsLocked(context, at: now())
        if locked != nil { totals = totals.withoutBreakdowns }
        return ActivitySummary(
            totals: totals, streak: try await progress.streak(principal, timeZone: context.timeZone, now: now()),
            breakdownsLocked: locked)
    }
}

/// What GetActivitySummary answers.
public struct ActivitySummary: Sendable, Equatable {
    /// Its start date is empty.
    public var totals: StatisticsBucket
    public var streak: WeeklyStreak
    /// As `Statistics.breakdownsLocked`.
    public var breakdownsLocked: Tier?

    public init(totals: StatisticsBucket, streak: WeeklyStreak, breakdownsLocked: Tier? = nil) {
        self.totals = totals
        self.streak = streak
        self.breakdownsLocked = breakdownsLocked
    }
}
