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
            contexts: PostgresProfileStore(database: database),
            now: now
        )
    }
}
