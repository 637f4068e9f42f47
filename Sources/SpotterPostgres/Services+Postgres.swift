import Foundation
import SpotterCore

extension TrainingServices {
    /// The training services on PostgreSQL stores.
    public init(database: SpotterDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(
            exerciseStore: PostgresExerciseStore(database: database),
            workoutStore: PostgresWorkoutStore(database: database),
            templateStore: PostgresTemplateStore(database: database),
            progressStore: PostgresProgressStore(database: database),
            transferStore: PostgresTransferStore(database: database),
            activityStore: PostgresActivityStore(database: database),
            bodyStore: PostgresBodyStore(database: database),
            contexts: PostgresProfileStore(database: database),
            now: now
        )
    }
}

extension CoachingService {
    /// Coaching on PostgreSQL stores, reading training data through `training`.
    public init(database: SpotterDatabase, training: TrainingServices, now: @escaping @Sendable () -> Date = { Date() })
    {
        self.init(
            store: PostgresCoachingStore(database: database),
            training: training,
            templates: PostgresTemplateStore(database: database),
            contexts: PostgresProfileStore(database: database),
            now: now
        )
    }
}

extension GuidedSessionService {
    /// Guided sessions on PostgreSQL, planned from the same templates and programs.
    public init(
        database: SpotterDatabase, training: TrainingServices, coaching: CoachingService,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            store: PostgresGuidedSessionStore(database: database), training: training, coaching: coaching, now: now)
    }
}

extension RunService {
    /// Runs on PostgreSQL, each beside its workout.
    public init(database: SpotterDatabase, coaching: CoachingService, now: @escaping @Sendable () -> Date = { Date() })
    {
        self.init(store: PostgresRunStore(database: database), coaching: coaching, now: now)
    }
}

extension DiscoverService {
    /// Discover on PostgreSQL, copying into accounts through the same template and program stores.
    public init(
        database: SpotterDatabase, training: TrainingServices, coaching: CoachingService,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            store: PostgresDiscoverStore(database: database),
            training: training,
            coaching: coaching,
            templates: PostgresTemplateStore(database: database),
            now: now
        )
    }
}

extension SyncService {
    /// Sync on PostgreSQL, applying pushed mutations through the same services as the API.
    public init(
        database: SpotterDatabase,
        training: TrainingServices,
        coaching: CoachingService,
        retentionDays: Int = 30,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            store: PostgresSyncStore(database: database),
            training: training,
            coaching: coaching,
            accounts: AccountService(store: PostgresProfileStore(database: database), now: now),
            retentionDays: retentionDays,
            now: now
        )
    }
}
