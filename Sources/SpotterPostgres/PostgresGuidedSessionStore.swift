import Foundation
import Postgres
import SpotterCore

/// Guided sessions in `guided_sessions` (migration 0030): the status and times as columns, the
/// plan, the timer and the pauses as one JSON document.
public struct PostgresGuidedSessionStore: GuidedSessionStore {
    private let database: SpotterDatabase
    private let workouts: PostgresWorkoutStore

    public init(database: SpotterDatabase) {
        self.database = database
        self.workouts = PostgresWorkoutStore(database: database)
    }

    public func createSession(_ principal: Principal, _ session: GuidedSession) async throws -> GuidedSession {
        let tenant = principal.tenantID
        return try await database.withTenant(principal) { connection in
            if let open = try await Self.load(tenant, nil, lock: true, connection) {
                let current = try await Self.persistExpiry(tenant, open, now: session.startedAt, connection)
                if current.status.isOpen {
                    throw SpotterError.failedPrecondition(
                        "session \(current.id) (\(current.name)) is still open; complete or abandon it first")
                }
            }
            do {
                let inserted = try await connection.query(
                    """
                    INSERT INTO guided_sessions (tenant_id, session_id, status, started_at, last_activity_at, state)
                    VALUES ($1, $2, 'active', $3, $3, $4::jsonb)
                    ON CONFLICT (tenant_id, session_id) DO NOTHING
                    RETURNING spotter_note_session_change(tenant_id)
                    """,
                    [tenant.rawValue, session.id.rawValue, session.startedAt, try Self.document(session)])
                if !inserted.isEmpty { return session }
            } catch let error as PostgresError where error.constraint == "guided_sessions_one_open" {
                throw SpotterError.failedPrecondition(
                    "another session was started at the same moment; complete or abandon it first")
            }
            // A retried start: the session stored under this id.
            guard let stored = try await Self.load(tenant, session.id, lock: false, connection) else {
                throw SpotterError.alreadyExists(field: "session_id", reason: "is already used")
            }
            return stored
        }
    }

    public func session(_ principal: Principal, _ id: GuidedSessionID, now: Date) async throws -> GuidedSession? {
        try await database.withTenant(principal) { connection in
            guard let stored = try await Self.load(principal.tenantID, id, lock: false, connection) else { return nil }
            // A coach's view reads; only the lifter's own calls write the closing down.
            return principal.isClientView
                ? stored.expiring(at: now)
                : try await Self.persistExpiry(principal.tenantID, stored, now: now, connection)
        }
    }

    public func sessions(_ principal: Principal, limit: Int, now: Date) async throws -> [GuidedSession] {
        try await database.withTenant(principal) { connection in
            let rows = try await connection.query(
                Self.select + """
                     WHERE tenant_id = $1
                    ORDER BY status IN ('active', 'paused') DESC, started_at DESC, session_id
                    LIMIT $2
                    """,
                [principal.tenantID.rawValue, limit])
            var sessions: [GuidedSession] = []
            for row in rows {
                sessions.append(
                    try await Self.persistExpiry(principal.tenantID, try Self.decode(row), now: now, connection))
            }
            return sessions
        }
    }

    public func updateSession(
        _ principal: Principal, _ id: GuidedSessionID, now: Date,
        _ change: @Sendable (GuidedSession) async throws -> GuidedSession
    ) async throws -> GuidedSession {
        try await database.withTenant(principal) { connection in
            guard let stored = try await Self.load(principal.tenantID, id, lock: true, connection) else {
                throw SpotterError.notFound("session not found")
            }
            let current = stored.expiring(at: now)
            let next = try await change(current)
            guard next != stored else { return stored }
            try await Self.write(principal.tenantID, next, replacing: stored, connection)
            if next.status == .completed, stored.status != .completed {
                // Joins this transaction: the workout exists exactly when the session is completed.
                _ = try await workouts.logWorkout(
                    principal, WorkoutID(rawValue: next.id.rawValue), next.workoutContent(at: now), now: now)
            }
            return next
        }
    }

    public func bests(_ principal: Principal, _ exercise: ExerciseID) async throws -> SetBests {
        try await database.withTenant(principal) { connection in
            let row = try await connection.query(
                """
                SELECT max(s.weight_kg) FILTER (WHERE s.reps >= 1) AS heaviest,
                       max(\(RecordSQL.e1rm("s")))::float8 AS e1rm,
                       max(s.duration_seconds) AS longest
                FROM workout_sets s
                -- Each set's workout by its primary key: a join hashed every workout of the tenant, or
                -- under a generic plan made while the statistics knew of one large tenant, the table.
                CROSS JOIN LATERAL (
                    SELECT deleted_at FROM workouts WHERE tenant_id = s.tenant_id AND workout_id = s.workout_id OFFSET 0
                ) w
                WHERE s.tenant_id = $1 AND s.exercise_id = $2 AND s.set_type <> 'warm_up' AND w.deleted_at IS NULL
                """,
                [principal.tenantID.rawValue, exercise.rawValue]
            ).single
            return SetBests(
                heaviest: try row?.decode("heaviest"), bestE1RM: try row?.decode("e1rm"),
                longestSeconds: try row?.decode("longest"))
        }
    }

    /// Closes `session` as abandoned when it has been idle for a day, and stores that.
    private static func persistExpiry(
        _ tenant: TenantID, _ session: GuidedSession, now: Date, _ connection: PostgresConnection
    ) async throws -> GuidedSession {
        let current = session.expiring(at: now)
        if current != session { try await write(tenant, current, replacing: session, connection) }
        return current
    }

    /// Stores `session` over `stored`, the version read under the row's lock.
    private static func write(
        _ tenant: TenantID, _ session: GuidedSession, replacing stored: GuidedSession, _ connection: PostgresConnection
    ) async throws {
        try await connection.query(
            """
            UPDATE guided_sessions
            SET status = $4, last_activity_at = $5, ended_at = $6, state = $7::jsonb, version = $8
            WHERE tenant_id = $1 AND session_id = $2 AND version = $3
            RETURNING spotter_note_session_change(tenant_id)
            """,
            [
                tenant.rawValue, session.id.rawValue, stored.version, session.status.rawValue,
                session.lastActivityAt, session.endedAt, try document(session), session.version,
            ])
    }

    private static let select = """
        SELECT session_id, status, started_at, last_activity_at, ended_at, state::text AS state, version
        FROM guided_sessions
        """

    /// The session `id`, or the tenant's open one when `id` is `nil`; `lock` takes its row lock.
    private static func load(_ tenant: TenantID, _ id: GuidedSessionID?, lock: Bool, _ connection: PostgresConnection)
        async throws -> GuidedSession?
    {
        let filter =
            id == nil
            ? " WHERE tenant_id = $1 AND status IN ('active', 'paused')" : " WHERE tenant_id = $1 AND session_id = $2"
        let parameters: [any PostgresEncodable] = id.map { [tenant.rawValue, $0.rawValue] } ?? [tenant.rawValue]
        let rows = try await connection.query(select + filter + (lock ? " FOR UPDATE" : ""), parameters)
        return try rows.single.map(decode)
    }

    /// What of a session the JSON document holds.
    private struct Document: Codable {
        var name: String
        var source: GuidedSessionSource
        var templateID: TemplateID?
        var pausedAt: Date?
        var pausedSeconds: Double
        var exercises: [GuidedExercise]
        /// Absent in sessions stored before circuits were kept.
        var circuits: [TemplateCircuit]?
        var timer: GuidedTimer?
    }

    private static func document(_ session: GuidedSession) throws -> String {
        let document = Document(
            name: session.name, source: session.source, templateID: session.templateID, pausedAt: session.pausedAt,
            pausedSeconds: session.pausedSeconds, exercises: session.exercises, circuits: session.circuits,
            timer: session.timer)
        return String(decoding: try JSONEncoder().encode(document), as: UTF8.self)
    }

    private static func decode(_ row: PostgresRow) throws -> GuidedSession {
        let document = try JSONDecoder().decode(Document.self, from: Data((try row.decode("state") as String).utf8))
        var session = GuidedSession(
            id: GuidedSessionID(rawValue: try row.decode("session_id")), name: document.name, source: document.source,
            templateID: document.templateID, startedAt: try row.decode("started_at"), exercises: document.exercises,
            circuits: document.circuits ?? [])
        session.status = try ExerciseSQL.enumValue(row, "status")
        session.pausedAt = document.pausedAt
        session.pausedSeconds = document.pausedSeconds
        session.lastActivityAt = try row.decode("last_activity_at")
        session.endedAt = try row.decode("ended_at")
        session.timer = document.timer
        session.version = try row.decode("version")
        return session
    }
}

extension SpotterDatabase {
    /// Closes every open session idle for a day before `now` as abandoned (`spotter_abandon_stale_sessions`,
    /// migration 0030); returns how many.
    @discardableResult
    public func abandonStaleSessions(now: Date = Date()) async throws -> Int {
        try await withoutTenant { connection in
            try await connection.query("SELECT spotter_abandon_stale_sessions($1) AS closed", [now]).single?.decode(
                "closed") ?? 0
        }
    }
}
