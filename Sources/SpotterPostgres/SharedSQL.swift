import Foundation
import Postgres
import SpotterCore

/// Outbox statements shared by the stores that send e-mail.
enum OutboxSQL {
    static func enqueue(_ message: OutboxMessage, tenant: TenantID, _ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO email_outbox (tenant_id, message_id, kind, recipient, subject, body)
            VALUES ($1, $2, $3, $4, $5, $6)
            """,
            [tenant.rawValue, message.id, message.kind, message.recipient, message.subject, message.body]
        )
    }
}

/// Account statements shared by registration and `spotterctl accounts create`.
enum AccountSQL {
    /// Inserts a tenant and its account; a taken e-mail or username fails with a unique violation.
    static func insert(_ account: NewAccount, verifiedAt: Date?, _ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO tenants (tenant_id, kind, display_name, time_zone, unit, created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $6)
            """,
            [
                account.tenantID.rawValue, account.kind.rawValue, account.displayName, account.timeZone,
                account.unit.rawValue, account.createdAt,
            ]
        )
        try await connection.query(
            """
            INSERT INTO accounts (tenant_id, account_id, email, username, password_hash, email_verified_at,
                                  created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
            """,
            [
                account.tenantID.rawValue, account.accountID.rawValue, account.email, account.username,
                account.passwordHash, verifiedAt, account.createdAt,
            ]
        )
    }
}

/// Session statements shared by the auth and admin stores.
enum SessionSQL {
    /// A tenant's live sessions, newest first.
    static func live(tenant: TenantID, now: Date, _ connection: PostgresConnection) async throws -> [SessionInfo] {
        try await connection.query(
            """
            SELECT session_id, device_label, sign_in_address, created_at, last_used_at, expires_at
            FROM sessions
            WHERE tenant_id = $1 AND revoked_at IS NULL AND expires_at > $2
            ORDER BY created_at DESC
            """,
            [tenant.rawValue, now]
        ).map(decodeInfo)
    }

    /// Revokes every live session of an account; returns how many.
    @discardableResult
    static func revokeAll(account: AccountID, reason: String, now: Date, _ connection: PostgresConnection)
        async throws -> Int
    {
        try await connection.query(
            """
            UPDATE sessions SET revoked_at = $2, revoked_reason = $3
            WHERE account_id = $1 AND revoked_at IS NULL
            """,
            [account.rawValue, now, reason]
        ).affectedRows
    }

    /// Revokes every live session of a tenant (all its accounts); returns how many.
    static func revokeAll(tenant: TenantID, reason: String, now: Date, _ connection: PostgresConnection)
        async throws -> Int
    {
        try await connection.query(
            """
            UPDATE sessions SET revoked_at = $2, revoked_reason = $3
            WHERE tenant_id = $1 AND revoked_at IS NULL AND expires_at > $2
            """,
            [tenant.rawValue, now, reason]
        ).affectedRows
    }

    /// A `SessionInfo` from a row with session_id, device_label, sign_in_address, created_at,
    /// last_used_at, expires_at.
    static func decodeInfo(_ row: PostgresRow) throws -> SessionInfo {
        SessionInfo(
            id: SessionID(rawValue: try row.decode("session_id")),
            deviceLabel: try row.decode("device_label"),
            address: try row.decode("sign_in_address"),
            createdAt: try row.decode("created_at"),
            lastUsedAt: try row.decode("last_used_at"),
            expiresAt: try row.decode("expires_at")
        )
    }
}

/// The one lock order of the sync feed counters (migration `0017_feed_lock_order.sql`).
enum FeedLocks {
    /// Takes, in one statement and in tenant id order, the feed counters of every tenant this
    /// transaction could write: call it before the first write of a change that shows in other
    /// tenants' feeds (a template, a program, a display name). Taken again it waits for nothing.
    static func take(_ connection: PostgresConnection) async throws {
        try await connection.query("SELECT spotter_lock_feeds()")
    }
}

/// Record statements shared by the New PR trophy and a guided session's record flag.
enum RecordSQL {
    /// Whether set `set` (a table alias) counts toward records: not a warm-up, with reps and a weight.
    static func working(_ set: String) -> String {
        "\(set).set_type <> 'warm_up' AND \(set).reps >= 1 AND \(set).weight_kg > 0"
    }

    /// The estimated one-rep max of set `set` (a table alias) as progress estimates it by default
    /// (`OneRepMax.estimate`, Epley): its reps with any in reserve, `reps + (10 − RPE)`, 1–12
    /// counted, RPE 6–10; `NULL` outside that and for a set without reps. Multiplied before it is
    /// divided, as `OneRepMax` does, so equal estimates are equal (`1 + 10 / 30.0` is not exact).
    static func e1rm(_ set: String) -> String {
        let counted = "(\(set).reps + 10 - coalesce(\(set).rpe, 10))"
        return """
            CASE WHEN \(set).reps >= 1 AND coalesce(\(set).rpe, 10) >= \(OneRepMax.minimumRPE)
                      AND \(counted) <= \(OneRepMax.maxReps) THEN
                CASE WHEN \(counted) = 1 THEN \(set).weight_kg ELSE \(set).weight_kg * (30 + \(counted)) / 30 END
            END
            """
    }
}
