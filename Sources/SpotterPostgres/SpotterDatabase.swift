import Logging
import Postgres
import SpotterCore

/// The database as the stores use it: a pool working as `spotter_app`, and the one place that sets
/// a transaction's acting tenant.
public struct SpotterDatabase: Sendable {
    public let pool: PostgresPool
    /// Sends the Watch notifications of this database's committed transactions; spotterd runs it.
    public let notifier: WatchNotifier
    /// The tenants whose workouts or profile committed transactions changed (what decides their
    /// awards), for the achievements' reconciliation (spotterd's `ActivityReconciler` takes them).
    public let activityChanges = TenantMailbox()

    public init(pool: PostgresPool) {
        self.pool = pool
        self.notifier = WatchNotifier(pool: pool)
    }

    /// The transaction the current task has open, so a store called inside another store's
    /// transaction body (see `CoachingStore.inOneTransaction`) joins it instead of opening its own.
    struct OpenTransaction: Sendable {
        let tenant: TenantID
        let connection: PostgresConnection
    }

    @TaskLocal static var open: OpenTransaction?

    /// Runs `body` in a transaction whose row-level security context is `tenant`. The setting is
    /// transaction-local (`set_config(…, true)`), so it ends with the transaction and a pooled
    /// connection never carries it into another request. `opening` runs first, in BEGIN's round
    /// trip. Called while this task already has a transaction open for the same tenant, `body`
    /// runs in that one (after `opening`).
    @discardableResult
    public func withTenant<T: Sendable>(
        _ tenant: TenantID,
        isolation: PostgresIsolation = .readCommitted,
        opening: [(sql: String, parameters: [any PostgresEncodable])] = [],
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        if let open = Self.open, open.tenant == tenant {
            return try await translatingErrors {
                if !opening.isEmpty { try await open.connection.pipeline(opening) }
                return try await body(open.connection)
            }
        }
        return try await translatingErrors {
            // The tenant is set in BEGIN's round trip (or was, by the call's authentication), and
            // `opening` (whose rows are not kept) runs in it after.
            return try await pool.withTransaction(
                isolation: isolation, opening: [Self.actingAs(tenant)] + opening, closing: Self.changedFeeds,
                committed: notifyWatchers
            ) { connection in
                try await Self.$open.withValue(OpenTransaction(tenant: tenant, connection: connection)) {
                    try await body(connection)
                }
            }
        }
    }

    /// The statement that makes a transaction act as `tenant` for row-level security (local to the
    /// transaction).
    static func actingAs(_ tenant: TenantID) -> (sql: String, parameters: [any PostgresEncodable]) {
        ("SELECT set_config('spotter.tenant_id', $1, true)", [tenant.rawValue])
    }

    /// The tenants whose change feeds the transaction wrote, and among them those whose workouts
    /// or profile it changed (space-separated ids, noted by the feed triggers:
    /// `Migrations/0020_feed_notify_after_commit.sql`, `0033_activity_changes.sql`), read in
    /// COMMIT's round trip.
    private static let changedFeeds: (sql: String, parameters: [any PostgresEncodable]) = (
        """
        SELECT coalesce(current_setting('spotter.changed_feeds', true), '') AS feeds,
               coalesce(current_setting('spotter.activity_feeds', true), '') AS activity
        """, []
    )

    /// Hands the tenants whose change feeds the committed transaction wrote to `notifier`, and
    /// those whose workouts or profile it changed to `activityChanges`.
    private func notifyWatchers(_ rows: PostgresRows) async {
        guard let row = rows.single, let feeds: String = try? row.decode("feeds") else { return }
        notifier.changed(feeds)
        if let activity: String = try? row.decode("activity") { activityChanges.post(activity) }
    }

    /// Runs `body` in a transaction acting as the principal's tenant (a coach's, in a view of a
    /// client: see `Principal.clientView(of:)`).
    @discardableResult
    public func withTenant<T: Sendable>(
        _ principal: Principal,
        isolation: PostgresIsolation = .readCommitted,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withTenant(principal.actingTenantID, isolation: isolation, body)
    }

    /// Runs `body` in a transaction with no tenant set: only the SECURITY DEFINER lookups and
    /// non-tenant tables are reachable.
    @discardableResult
    public func withoutTenant<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await translatingErrors {
            try await pool.withTransaction(closing: Self.changedFeeds, committed: notifyWatchers) { connection in
                try await body(connection)
            }
        }
    }
}

extension SpotterDatabase: CallScope {
    /// Runs one RPC with one connection kept for it (`PostgresPool.withReservedConnection`).
    public func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await translatingErrors { try await pool.withReservedConnection(body) }
    }
}

extension SpotterDatabase {
    /// Runs one statement outside an explicit transaction (autocommit) with no tenant set: for the
    /// single-statement SECURITY DEFINER lookups on every call's path, where BEGIN and COMMIT would
    /// double the round trips.
    @discardableResult
    public func withoutTenantAutocommit<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await translatingErrors {
            try await pool.withConnection { connection in try await body(connection) }
        }
    }
}

/// Turns database failures into domain errors: unique violations into `alreadyExists` naming the
/// field (from the constraint or index name), CHECK violations into `invalidArgument` naming the
/// column (logged, since every rule should have been checked first), deadlocks and serialization
/// failures and an unreachable database into `unavailable`.
@discardableResult
func translatingErrors<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as PostgresError {
        switch error.kind {
        case .connection, .connectionLost, .poolTimeout, .poolClosed:
            throw SpotterError.unavailable("the database is unavailable; try again shortly")
        case .server where error.sqlState == "40P01" || error.sqlState == "40001":
            // Deadlock or serialization failure: the transaction wrote nothing; the same call can be
            // retried (a long sync push keeps its earlier transactions, which the retry answers from storage).
            throw SpotterError.unavailable("the database resolved a conflict with another request; try again")
        case .server where error.sqlState == PostgresError.Code.uniqueViolation:
            let field = uniqueField(constraint: error.constraint)
            throw SpotterError.alreadyExists(field: field, reason: "is already taken")
        case .server where error.sqlState == PostgresError.Code.checkViolation:
            // Every rule of a CHECK constraint is checked before the write, with the field's path;
            // one that is missed still refuses the request, not INTERNAL, and in a sync push only
            // its mutation. The constraint's name is for the log, where the missed check shows.
            checkLogger.error(
                "a CHECK constraint refused a write that validation let through",
                metadata: ["constraint": "\(error.constraint ?? "-")", "table": "\(error.table ?? "-")"])
            throw SpotterError.invalid(checkField(error), "is too long or not allowed")
        case .server, .decoding, .parameter:
            throw error
        }
    }
}

private let checkLogger = Logger(label: "SpotterPostgres")

/// The column a CHECK constraint named `<table>_<column>_check` (PostgreSQL's default names)
/// guards; the table's name for any other.
private func checkField(_ error: PostgresError) -> String {
    guard let constraint = error.constraint, let table = error.table, constraint.hasPrefix(table + "_"),
        constraint.hasSuffix("_check"), constraint.count > table.count + 7
    else { return error.table ?? "request" }
    return String(constraint.dropFirst(table.count + 1).dropLast(6))
}

private func uniqueField(constraint: String?) -> String {
    switch constraint {
    case "accounts_email_key": "email"
    case "accounts_username_key", "admin_operators_pkey", "username_holds_pkey": "username"
    case "exercises_name_key": "exercise.name"
    default: "id"
    }
}
