import Foundation
import SpotterCore
import SpotterPostgres

/// Fixed ids of built-in exercises (Migrations/0007_exercise_catalog.sql).
public enum Catalog {
    public static let squat = ExerciseID("c0000000-0000-4000-8000-000000000001")!
    public static let benchPress = ExerciseID("c0000000-0000-4000-8000-000000000002")!
    public static let deadlift = ExerciseID("c0000000-0000-4000-8000-000000000003")!
    public static let frontSquat = ExerciseID("c0000000-0000-4000-8000-000000000004")!
    public static let overheadPress = ExerciseID("c0000000-0000-4000-8000-000000000005")!
}

extension TestDatabase {
    /// The training services on this database, with a clock the test controls.
    public func trainingServices(clock: TestClock? = nil) -> TrainingServices {
        TrainingServices(database: SpotterDatabase(pool: appPool), now: { clock?.now ?? Date() })
    }

    /// Registers a lifter named `name` on the Pro tier, which body measurements need.
    public func proLifter(_ name: String) async throws -> Principal {
        let lifter = try await lifter(name)
        let owner = try await ownerConnection()
        try await owner.query("UPDATE tenants SET tier = 'pro' WHERE tenant_id = $1", [lifter.tenantID.rawValue])
        await owner.close()
        return lifter
    }

    /// Registers a lifter named `name` and returns their principal.
    public func lifter(_ name: String, kind: TenantKind = .lifter) async throws -> Principal {
        try await authService().register(
            AuthService.Registration(
                email: "\(name)@example.com", username: name, password: "long enough \(name)", kind: kind)
        )
    }
}

/// A workout draft of `sets` working sets of `reps` at `kilograms` for each exercise.
public func workoutDraft(
    _ name: String = "Push day",
    at startedAt: Date,
    exercises: [ExerciseID] = [Catalog.benchPress],
    sets: Int = 3,
    reps: Int = 5,
    kilograms: Double = 100,
    rpe: Double? = nil
) -> WorkoutDraft {
    WorkoutDraft(
        name: name,
        startedAt: startedAt,
        durationSeconds: 3600,
        exercises: exercises.map { id in
            WorkoutExerciseDraft(
                exerciseID: id.description,
                sets: (0..<sets).map { _ in
                    SetDraft(reps: reps, weight: WeightDraft(value: kilograms, unit: .kg), rpe: rpe)
                }
            )
        }
    )
}

extension TestDatabase {
    /// Copies `tenant`'s workout `id`, with its exercises, sets and run, `times` times in one
    /// statement as the owner, copy n started n days later. Through the same constraints and triggers
    /// (the change feed) as a logged workout, for tests that need a long history but not thousands of
    /// calls.
    public func copyWorkout(_ tenant: TenantID, _ id: WorkoutID, times: Int) async throws {
        let later = ["started_at": "x.started_at + c.n * interval '1 day'"]
        try await copyRows(
            tenant, "workouts", key: "workout_id", id: id.rawValue,
            children: ["workout_exercises", "workout_sets", "runs"], times: times,
            changes: ["workouts": later, "workout_sets": later])
    }

    /// Copies `tenant`'s row `id` of `table` (its key column within the tenant `key`), with its rows
    /// in `children` (tables that name it by the same column), `times` times in one statement as the
    /// owner, each copy under a new id. `changes` gives, per table, columns' values in the copies as
    /// SQL over the original row `x` and the copy's number `c.n` (a name that must differ, a date
    /// that moves on). Through the same constraints and triggers as the services' writes.
    public func copyRows(
        _ tenant: TenantID, _ table: String, key: String, id: UUID, children: [String] = [], times: Int,
        changes: [String: [String: String]] = [:]
    ) async throws {
        // Each row as JSON with its new id (and changes), back into the table's row type.
        func copied(_ table: String) -> String {
            let changed = (changes[table] ?? [:]).sorted { $0.key < $1.key }.map { ", '\($0.key)', \($0.value)" }
            return """
                INSERT INTO \(table)
                SELECT (jsonb_populate_record(NULL::\(table), to_jsonb(x) || jsonb_build_object('\(key)', c.id\(changed.joined())))).*
                FROM \(table) x, c WHERE x.tenant_id = $1 AND x.\(key) = $2
                """
        }
        let tables = [table] + children
        let steps =
            ["c AS (SELECT n, gen_random_uuid() AS id FROM generate_series(1, $3::int) AS n)"]
            + tables.dropLast().enumerated().map { "t\($0.offset) AS (\(copied($0.element)))" }
        try await asOwner { connection in
            // A thousand copies cost a second of PostgreSQL's CPU. At the start of a full run, with a
            // hundred tests at work on two cores, that once took longer than the 30 s statement
            // timeout: this set-up is not what a test measures.
            try await connection.query("SET statement_timeout = 0")
            try await connection.query(
                """
                WITH \(steps.joined(separator: ",\n"))
                \(copied(tables.last!))
                """, [tenant.rawValue, id, times])
        }
    }
}

extension TestDatabase {
    /// Coaching on this database, with a clock the test controls.
    public func coachingService(clock: TestClock? = nil) -> CoachingService {
        let now: @Sendable () -> Date = { clock?.now ?? Date() }
        let database = SpotterDatabase(pool: appPool)
        return CoachingService(database: database, training: TrainingServices(database: database, now: now), now: now)
    }
}

extension TestDatabase {
    /// Guided sessions on this database, with a clock the test controls.
    public func guidedSessionService(clock: TestClock? = nil) -> GuidedSessionService {
        let now: @Sendable () -> Date = { clock?.now ?? Date() }
        return GuidedSessionService(
            database: SpotterDatabase(pool: appPool), training: trainingServices(clock: clock),
            coaching: coachingService(clock: clock), now: now)
    }

    /// Runs on this database, with a clock the test controls.
    public func runService(clock: TestClock? = nil) -> RunService {
        RunService(
            database: SpotterDatabase(pool: appPool), coaching: coachingService(clock: clock),
            now: { clock?.now ?? Date() })
    }
}

extension CoachingService {
    /// Links `lifter` to `coach` as a client joins: the coach's invite, redeemed granting `scopes`.
    @discardableResult
    public func link(_ coach: Principal, _ lifter: Principal, scopes: [String]) async throws -> CoachLink {
        let invite = try await createInvite(coach, note: "", validDays: 0)
        return try await redeemInvite(lifter, code: invite.code ?? "", scopes: scopes)
    }
}

extension TestDatabase {
    /// Sync on this database, with a clock the test controls.
    public func syncService(clock: TestClock? = nil, retentionDays: Int = 30) -> SyncService {
        let now: @Sendable () -> Date = { clock?.now ?? Date() }
        let database = SpotterDatabase(pool: appPool)
        let training = TrainingServices(database: database, now: now)
        return SyncService(
            database: database, training: training,
            coaching: CoachingService(database: database, training: training, now: now),
            retentionDays: retentionDays, now: now)
    }
}

extension TestDatabase {
    /// Discover on this database, with a clock the test controls.
    public func discoverService(clock: TestClock? = nil) -> DiscoverService {
        let now: @Sendable () -> Date = { clock?.now ?? Date() }
        let database = SpotterDatabase(pool: appPool)
        let training = TrainingServices(database: database, now: now)
        return DiscoverService(
            database: database, training: training,
            coaching: CoachingService(database: database, training: training, now: now), now: now)
    }
}
