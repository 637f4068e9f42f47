import Foundation
import Postgres
import SpotterCore

/// `AdminStore` on PostgreSQL, working as the `spotter_admin` role (which row-level security lets
/// see every tenant). Each change and its audit row commit together or not at all.
public struct PostgresAdminStore: AdminStore {
    let pool: PostgresPool

    /// `pool` must work as the admin role.
    public init(pool: PostgresPool) {
        self.pool = pool
    }

    static let selectSummary = """
        SELECT t.tenant_id, a.account_id, t.kind, a.email, a.username, a.status, t.tier, t.tier_expires_at,
               a.email_verified_at IS NOT NULL AS verified, t.created_at
        FROM tenants t JOIN accounts a ON a.tenant_id = t.tenant_id
        """

    public func accounts(_ filter: AccountFilter) async throws -> [AccountSummary] {
        try await translatingErrors {
            try await pool.withConnection { connection in
                let rows = try await connection.query(
                    Self.selectSummary + """

                        WHERE ($1::text IS NULL OR t.kind = $1)
                          AND ($2::text IS NULL OR a.status = $2)
                          -- The tier in force, as the list shows it: a paid tier past its end is free.
                          AND ($3::text IS NULL OR (CASE WHEN t.tier_expires_at <= now() THEN 'free' ELSE t.tier END) = $3)
                          AND ($4::text IS NULL OR a.email ILIKE '%' || $4 || '%' OR a.username ILIKE '%' || $4 || '%')
                          AND ($5::timestamptz IS NULL OR t.created_at >= $5)
                        ORDER BY t.created_at DESC, t.tenant_id
                        LIMIT $6 OFFSET $7
                        """,
                    [
                        filter.kind?.rawValue, filter.status?.rawValue, filter.tier?.rawValue,
                        filter.search.map(Self.escapeLike), filter.createdSince, filter.limit, filter.offset,
                    ]
                )
                return try rows.map(Self.decodeSummary)
            }
        }
    }

    public func findAccount(_ reference: String) async throws -> AccountSummary? {
        let id = UUID(hexadecimal: reference)
        return try await translatingErrors {
            try await pool.withConnection { connection in
                let rows = try await connection.query(
                    Self.selectSummary + """

                        WHERE t.tenant_id = $1 OR a.account_id = $1 OR a.email = lower($2) OR lower(a.username) = lower($2)
                        LIMIT 1
                        """,
                    [id, reference]
                )
                return try rows.single.map(Self.decodeSummary)
            }
        }
    }

    public func accountDetail(_ tenant: TenantID, now: Date) async throws -> AccountDetail? {
        try await translatingErrors {
            try await pool.withConnection { connection in
                let profileRows = try await connection.query(
                    PostgresProfileStore.selectProfile + " WHERE t.tenant_id = $1",
                    [tenant.rawValue]
                )
                guard let profileRow = profileRows.single else { return nil }
                let profile = try PostgresProfileStore.decodeProfile(profileRow)
                let throttle = try await connection.query(
                    "SELECT failed_sign_ins, locked_until FROM accounts WHERE tenant_id = $1 AND account_id = $2",
                    [tenant.rawValue, profile.accountID.rawValue]
                )
                let sources = try await connection.query(
                    """
                    SELECT source, failures, locked_until FROM sign_in_failures
                    WHERE tenant_id = $1 AND account_id = $2 AND (failures > 0 OR locked_until > $3)
                    ORDER BY locked_until DESC NULLS LAST, source
                    """,
                    [tenant.rawValue, profile.accountID.rawValue, now]
                ).map {
                    SignInSourceFailures(
                        source: try $0.decode("source"), failures: try $0.decode("failures"),
                        lockedUntil: try $0.decode("locked_until", as: Date?.self).flatMap { $0 > now ? $0 : nil })
                }
                let sessions = try await SessionSQL.live(tenant: tenant, now: now, connection)
                // The sessions' last use, or of those the retention pass deleted (migration 0037).
                let activity = try await connection.query(
                    """
                    SELECT greatest(
                               (SELECT max(last_used_at) FROM sessions WHERE tenant_id = $1),
                               (SELECT max(ended_sessions_used_at) FROM accounts WHERE tenant_id = $1)) AS last
                    """,
                    [tenant.rawValue]
                )
                let training = try await connection.query(
                    """
                    SELECT count(*)::int AS workouts, max(started_at) AS last
                    FROM workouts WHERE tenant_id = $1 AND deleted_at IS NULL
                    """,
                    [tenant.rawValue]
                )
                let twoFactor = try await connection.query(
                    """
                    SELECT m.enabled_at,
                           (SELECT count(*)::int FROM mfa_recovery_codes r
                            WHERE r.tenant_id = m.tenant_id AND r.account_id = m.account_id AND r.used_at IS NULL) AS left
                    FROM account_mfa m WHERE m.tenant_id = $1 AND m.account_id = $2 AND m.enabled_at IS NOT NULL
                    """,
                    [tenant.rawValue, profile.accountID.rawValue]
                ).single
                return AccountDetail(
                    profile: profile,
                    failedSignIns: try throttle.single?.decode("failed_sign_ins") ?? 0,
                    lockedUntil: try throttle.single?.decode("locked_until", as: Date?.self),
                    sessions: sessions,
                    lastActivity: try activity.single?.decode("last", as: Date?.self),
                    workouts: try training.single?.decode("workouts") ?? 0,
                    lastWorkoutAt: try training.single?.decode("last", as: Date?.self),
                    sources: sources,
                    twoFactorSince: try twoFactor?.decode("enabled_at", as: Date?.self),
                    recoveryCodesLeft: try twoFactor?.decode("left") ?? 0
                )
            }
        }
    }

    public func createAccount(_ account: NewAccount, verified: Bool, audit: AuditRecord) async throws {
        try await change(audit) { connection in
            try await AccountSQL.insert(account, verifiedAt: verified ? account.createdAt : nil, connection)
        }
    }

    public func setStatus(_ tenant: TenantID, _ status: AccountStatus, now: Date, audit: AuditRecord) async throws
        -> Int
    {
        try await change(
            auditing: { revoked in
                // Disabling revokes the sessions; enabling revokes none and says nothing of them.
                var record = audit
                if status == .disabled { record.details = #"{"sessions_revoked": \#(revoked)}"# }
                return record
            }
        ) { connection in
            try await connection.query(
                "UPDATE accounts SET status = $2, updated_at = $3 WHERE tenant_id = $1",
                [tenant.rawValue, status.rawValue, now]
            )
            guard status == .disabled else { return 0 }
            return try await SessionSQL.revokeAll(tenant: tenant, reason: "account disabled", now: now, connection)
        }
    }

    public func auditLog(_ filter: AuditFilter) async throws -> [AuditEntry] {
        try await translatingErrors {
            try await pool.withConnection { connection in
                let rows = try await connection.query(
                    """
                    SELECT audit_id, at, actor_kind, actor, os_user, action, target_tenant_id, target, reason,
                           details::text AS details
                    FROM audit_log
                    WHERE ($1::text IS NULL OR actor = $1 OR os_user = $1)
                      AND ($2::text IS NULL OR starts_with(action, $2))
                      AND ($3::uuid IS NULL OR target_tenant_id = $3)
                      AND ($4::timestamptz IS NULL OR at >= $4)
                      AND ($5::timestamptz IS NULL OR at < $5)
                      AND ($7::text IS NULL OR target = $7)
                    ORDER BY audit_id DESC
                    LIMIT $6
                    """,
                    [
                        filter.actor, filter.action, filter.targetTenantID?.rawValue, filter.since, filter.until,
                        filter.limit, filter.target,
                    ]
                )
                return try rows.map { row in
                    AuditEntry(
                        id: try row.decode("audit_id"),
                        at: try row.decode("at"),
                        actorKind: try row.decode("actor_kind"),
                        actor: try row.decode("actor"),
                        osUser: try row.decode("os_user"),
                        action: try row.decode("action"),
                        targetTenantID: try row.decode("target_tenant_id", as: UUID?.self).map(TenantID.init),
                        target: try row.decode("target"),
                        reason: try row.decode("reason"),
                        details: try row.decode("details")
                    )
                }
            }
        }
    }

    static func decodeSummary(_ row: PostgresRow) throws -> AccountSummary {
        let tier = TierGrant(
            tier: Tier(rawValue: try row.decode("tier")) ?? .free,
            expiresAt: try row.decode("tier_expires_at")
        )
        return AccountSummary(
            tenantID: TenantID(rawValue: try row.decode("tenant_id")),
            accountID: AccountID(rawValue: try row.decode("account_id")),
            kind: TenantKind(rawValue: try row.decode("kind")) ?? .lifter,
            email: try row.decode("email"),
            username: try row.decode("username"),
            status: AccountStatus(rawValue: try row.decode("status")) ?? .disabled,
            tier: tier,
            emailVerified: try row.decode("verified"),
            createdAt: try row.decode("created_at")
        )
    }

    private static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}

/// The one statement that appends to the audit log, for an operator's change, an owner's change
/// of their own account, and a migration.
enum AuditSQL {
    /// An operator's change (spotterctl).
    static func append(_ record: AuditRecord, _ connection: PostgresConnection) async throws {
        try await insert(
            kind: "admin", actor: record.actor.operatorName, osUser: record.actor.osUser, action: record.action,
            tenant: record.targetTenantID, target: record.target, reason: record.reason, details: record.details,
            connection)
    }

    /// An owner's change of their own account: the actor is no name, which an erasure would not
    /// reach; the names go in `details` (`from`, `to`), where it looks for them.
    static func appendOwner(
        _ action: String, tenant: TenantID, target: String, reason: String, details: [String: String],
        _ connection: PostgresConnection
    ) async throws {
        let json = (try? JSONEncoder().encode(details)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        try await insert(
            kind: "tenant", actor: "owner", osUser: nil, action: action, tenant: tenant, target: target,
            reason: reason, details: json, connection)
    }

    static func insert(
        kind: String, actor: String, osUser: String?, action: String, tenant: TenantID?, target: String?,
        reason: String?, details: String, _ connection: PostgresConnection
    ) async throws {
        try await connection.query(
            """
            INSERT INTO audit_log (actor_kind, actor, os_user, action, target_tenant_id, target, reason, details)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)
            """,
            [kind, actor, osUser, action, tenant?.rawValue, target, reason, details]
        )
    }
}
