import Foundation
import Postgres
import SpotterCore

extension PostgresAdminStore: AdminMaintenanceStore {
    public func unlock(_ tenant: TenantID, audit: AuditRecord) async throws {
        try await change(audit) { connection in
            try await connection.query(
                "UPDATE accounts SET failed_sign_ins = 0, locked_until = NULL WHERE tenant_id = $1",
                [tenant.rawValue]
            )
            try await connection.query("DELETE FROM sign_in_failures WHERE tenant_id = $1", [tenant.rawValue])
        }
    }

    public func resetTwoFactor(_ tenant: TenantID, now: Date, audit: AuditRecord) async throws {
        try await change(audit) { connection in
            // Nothing to reset is an operator's mistake: no session ends and nothing is audited.
            let enrolled: Bool =
                try await connection.query(
                    "SELECT EXISTS (SELECT FROM account_mfa WHERE tenant_id = $1) AS enrolled", [tenant.rawValue]
                ).single?.decode("enrolled") ?? false
            guard enrolled else {
                throw SpotterError.failedPrecondition("two-factor sign-in is not on for this account; nothing changed")
            }
            let accounts = try await connection.query(
                "SELECT account_id FROM accounts WHERE tenant_id = $1", [tenant.rawValue])
            for row in accounts {
                let account = AccountID(rawValue: try row.decode("account_id"))
                try await TwoFactorSQL.forget(account: account, connection)
                try await SessionSQL.revokeAll(account: account, reason: "two-factor reset", now: now, connection)
            }
        }
    }

    public func resealTwoFactorSecrets(
        _ reseal: (AccountID, MfaKeyring.Sealed) throws -> MfaKeyring.Sealed?, audit: () -> AuditRecord
    ) async throws {
        try await change(auditing: { _ in audit() }) { connection in
            let rows = try await connection.query(
                "SELECT account_id, key_id, sealed_secret FROM account_mfa ORDER BY account_id FOR UPDATE")
            for row in rows {
                let account = AccountID(rawValue: try row.decode("account_id"))
                let sealed = MfaKeyring.Sealed(
                    keyID: try row.decode("key_id"),
                    bytes: try row.decode("sealed_secret", as: PostgresBytes.self).bytes)
                guard let new = try reseal(account, sealed) else { continue }
                try await connection.query(
                    "UPDATE account_mfa SET key_id = $2, sealed_secret = $3 WHERE account_id = $1",
                    [account.rawValue, new.keyID, PostgresBytes(new.bytes)])
            }
        }
    }

    public func markEmailVerified(_ tenant: TenantID, now: Date, audit: AuditRecord) async throws {
        try await change(audit) { connection in
            try await connection.query(
                """
                UPDATE accounts SET email_verified_at = coalesce(email_verified_at, $2), updated_at = $2
                WHERE tenant_id = $1
                """,
                [tenant.rawValue, now]
            )
        }
    }

    public func revokeSessions(_ tenant: TenantID, now: Date, audit: (Int) -> AuditRecord) async throws -> Int {
        try await change(auditing: audit) { connection in
            try await SessionSQL.revokeAll(tenant: tenant, reason: "revoked by an administrator", now: now, connection)
        }
    }

    public func rename(_ tenant: TenantID, to username: String, now: Date, audit: AuditRecord) async throws {
        try await change(audit) { connection in
            // Neither held for the account nor stopped by another's hold: the row marks the rename
            // as an operator's (only this role may write it) and the trigger deletes it
            // (0059_username_holds_erasure.sql); an update that matched no account leaves it, so it
            // is deleted here too.
            try await connection.query(
                "INSERT INTO username_operator_renames (tenant_id) VALUES ($1)", [tenant.rawValue])
            try await connection.query(
                "UPDATE accounts SET username = $2, updated_at = $3 WHERE tenant_id = $1",
                [tenant.rawValue, username, now]
            )
            try await connection.query(
                "DELETE FROM username_operator_renames WHERE tenant_id = $1", [tenant.rawValue])
        }
    }

    public func issueResetToken(_ tenant: TenantID, _ token: AccountToken, audit: AuditRecord) async throws {
        try await change(audit) { connection in
            try await connection.query(
                """
                INSERT INTO account_tokens (tenant_id, token_hash, account_id, purpose, expires_at)
                SELECT tenant_id, $2, account_id, $3, $4 FROM accounts WHERE tenant_id = $1
                """,
                [tenant.rawValue, PostgresBytes(token.hash), token.purpose.rawValue, token.expiresAt]
            )
        }
    }

    public func setTier(_ tenant: TenantID, _ grant: TierGrant, now: Date, audit: AuditRecord) async throws {
        try await change(audit) { connection in
            try await connection.query(
                """
                UPDATE tenants SET tier = $2, tier_expires_at = $3, updated_at = $4, version = version + 1
                WHERE tenant_id = $1
                """,
                [tenant.rawValue, grant.tier.rawValue, grant.expiresAt, now]
            )
        }
    }

    public func paidTiers(expiringBefore: Date?) async throws -> [AccountSummary] {
        try await translatingErrors {
            try await pool.withConnection { connection in
                try await connection.query(
                    Self.selectSummary + """

                        WHERE t.tier <> 'free' AND (t.tier_expires_at IS NULL OR t.tier_expires_at > now())
                          AND ($1::timestamptz IS NULL OR t.tier_expires_at <= $1)
                        ORDER BY t.tier_expires_at NULLS LAST, a.username
                        """,
                    [expiringBefore]
                ).map(Self.decodeSummary)
            }
        }
    }

    public func erase(_ tenant: TenantID, pseudonym: String, audit: AuditRecord) async throws {
        try await translatingErrors {
            try await pool.withTransaction { connection in
                // The erasure's own audit row first, so the traces' pass pseudonymizes it too; the
                // pass reads the names to replace from the tenant's rows, so it runs before they go
                // (Migrations/0041_erasure_traces.sql).
                try await AuditSQL.append(audit, connection)
                // A coach's clients are told, without the coach's name (0052_coach_left_notice.sql).
                try await connection.query("SELECT spotter_tell_clients_coach_left($1)", [tenant.rawValue])
                try await connection.query("SELECT spotter_erase_traces($1, $2)", [tenant.rawValue, pseudonym])
                // Every tenant-owned table references tenants with ON DELETE CASCADE, directly or
                // through accounts and sessions; a test checks each table with a tenant_id column.
                try await connection.query("DELETE FROM tenants WHERE tenant_id = $1", [tenant.rawValue])
            }
        }
    }

    public func outbox(status: String?, limit: Int) async throws -> [OutboxEntry] {
        try await translatingErrors {
            try await pool.withConnection { connection in
                try await connection.query(
                    Self.selectOutbox + """

                        WHERE ($1::text IS NULL AND status <> 'sent') OR status = $1
                        ORDER BY created_at DESC LIMIT $2
                        """,
                    [status, limit]
                ).map(Self.decodeOutbox)
            }
        }
    }

    public func outboxMessage(_ id: UUID) async throws -> OutboxEntry? {
        try await translatingErrors {
            try await pool.withConnection { connection in
                try await connection.query(Self.selectOutbox + " WHERE message_id = $1", [id]).single
                    .map(Self.decodeOutbox)
            }
        }
    }

    public func recordAudit(_ audit: AuditRecord) async throws {
        try await change(audit) { _ in }
    }

    public func retryOutboxMessage(_ id: UUID, now: Date, audit: AuditRecord) async throws -> Bool {
        try await change(audit) { connection in
            try await connection.query(
                """
                UPDATE email_outbox SET status = 'pending', next_attempt_at = $2, last_error = NULL
                WHERE message_id = $1 AND status <> 'sent'
                """,
                [id, now]
            ).affectedRows == 1
        }
    }

    public func counts(now: Date) async throws -> SystemCounts {
        try await translatingErrors {
            try await pool.withConnection { connection in
                let tenants = try await connection.query(
                    """
                    SELECT kind || '/' || CASE WHEN tier_expires_at IS NOT NULL AND tier_expires_at <= $1
                                               THEN 'free' ELSE tier END AS bucket,
                           count(*)::int AS n
                    FROM tenants GROUP BY 1 ORDER BY 1
                    """,
                    [now]
                )
                let other = try await connection.query(
                    """
                    SELECT (SELECT count(*)::int FROM sessions WHERE revoked_at IS NULL AND expires_at > $1) AS sessions,
                           (SELECT count(*)::int FROM email_outbox WHERE status = 'pending') AS pending,
                           (SELECT count(*)::int FROM email_outbox WHERE status = 'failed') AS failed
                    """,
                    [now]
                ).single!
                var buckets: [String: Int] = [:]
                for row in tenants { buckets[try row.decode("bucket")] = try row.decode("n") }
                return SystemCounts(
                    tenants: buckets,
                    activeSessions: try other.decode("sessions"),
                    outboxPending: try other.decode("pending"),
                    outboxFailed: try other.decode("failed")
                )
            }
        }
    }

    public func databaseReport() async throws -> DatabaseReport {
        try await translatingErrors {
            try await pool.withConnection { connection in
                let server = try await connection.query(
                    "SELECT current_setting('server_version') AS version, current_database() AS database"
                ).single!
                let connections = try await connection.query(
                    """
                    SELECT coalesce(nullif(application_name, ''), '(unnamed)') AS name, count(*)::int AS n
                    FROM pg_stat_activity WHERE datname = current_database() GROUP BY 1
                    """
                )
                let sizes = try await connection.query(
                    """
                    SELECT c.relname, pg_total_relation_size(c.oid) AS bytes
                    FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace
                    """
                )
                var byName: [String: Int] = [:]
                for row in connections { byName[try row.decode("name")] = try row.decode("n") }
                var bytes: [String: Int64] = [:]
                for row in sizes { bytes[try row.decode("relname")] = try row.decode("bytes") }
                return DatabaseReport(
                    serverVersion: try server.decode("version"),
                    database: try server.decode("database"),
                    connections: byName,
                    tableBytes: bytes
                )
            }
        }
    }

    public func export(_ tenant: TenantID, now: Date, audit: AuditRecord) async throws -> TenantExport? {
        try await change(audit) { connection in
            try await connection.query("SELECT set_config('spotter.tenant_id', $1, true)", [tenant.rawValue])
            guard var document = try await ExportSQL.header(tenant, now: now, connection) else { return nil }
            document.workouts = try await ExportSQL.exported(
                tenant, try await WorkoutSQL.load(tenant, only: nil, connection), connection)
            return document
        }
    }

    public func feedback(open: Bool?, kind: FeedbackKind?, limit: Int) async throws -> [FiledFeedback] {
        try await translatingErrors {
            try await pool.withConnection { connection in
                try await connection.query(
                    Self.filedFeedback + """

                        WHERE ($1::boolean IS NULL OR (status = 'open') = $1) AND ($2::text IS NULL OR kind = $2)
                        ORDER BY created_at DESC LIMIT $3
                        """,
                    [open, kind?.rawValue, limit]
                ).map(Self.decodeFiled)
            }
        }
    }

    public func feedbackItem(_ id: UUID) async throws -> FiledFeedback? {
        try await translatingErrors {
            try await pool.withConnection { connection in
                try await connection.query(Self.filedFeedback + " WHERE feedback_id = $1", [id]).single
                    .map(Self.decodeFiled)
            }
        }
    }

    /// Reports with the username of the account that filed them.
    private static let filedFeedback = """
        SELECT \(FeedbackSQL.columns),
               coalesce((SELECT a.username FROM accounts a WHERE a.tenant_id = feedback.tenant_id), '') AS username
        FROM feedback
        """

    private static func decodeFiled(_ row: PostgresRow) throws -> FiledFeedback {
        FiledFeedback(feedback: try FeedbackSQL.decode(row), username: try row.decode("username"))
    }

    public func resolveFeedback(_ id: UUID, resolution: String, by: String, now: Date, audit: AuditRecord)
        async throws -> Bool
    {
        try await translatingErrors {
            try await pool.withTransaction { connection in
                let updated = try await connection.query(
                    """
                    UPDATE feedback SET status = 'resolved', resolved_at = $2, resolved_by = $3, resolution = $4
                    WHERE feedback_id = $1 AND status = 'open'
                    """,
                    [id, now, by, resolution]
                )
                guard updated.affectedRows == 1 else { return false }
                try await AuditSQL.append(audit, connection)
                return true
            }
        }
    }

    public func publications(author: TenantID?, all: Bool, limit: Int) async throws -> [Publication] {
        try await translatingErrors {
            try await pool.withTransaction { connection in
                var filter = PublicationFilter()
                filter.author = author
                filter.includeUnpublished = all
                filter.sort = .newest
                return try await DiscoverSQL.publications(filter, after: nil, now: Date(), limit: limit, connection)
            }
        }
    }

    public func createChallenge(_ challenge: Challenge, audit: AuditRecord) async throws {
        try await translatingErrors {
            try await pool.withTransaction { connection in
                try await connection.query(
                    """
                    INSERT INTO challenges (challenge_id, name, description, starts_on, ends_on, rule, target, created_at,
                                            created_by)
                    VALUES ($1, $2, $3, $4::date, $5::date, $6, $7, $8, $9)
                    """,
                    [
                        challenge.id, challenge.name, challenge.description, challenge.startsOn, challenge.endsOn,
                        challenge.rule.rawValue, challenge.target, challenge.createdAt, challenge.createdBy,
                    ])
                try await AuditSQL.append(audit, connection)
            }
        }
    }

    public func challenges(all: Bool, today: String, limit: Int) async throws -> [Challenge] {
        try await translatingErrors {
            try await pool.withTransaction { connection in
                try await connection.query(
                    PostgresActivityStore.challengeSelect
                        + " WHERE $1 OR ends_on >= $2::date - 1 ORDER BY ends_on DESC, challenge_id LIMIT $3",
                    [all, today, limit]
                ).map(PostgresActivityStore.decodeChallenge)
            }
        }
    }

    public func livePublication(_ id: UUID) async throws -> (title: String, author: String)? {
        try await translatingErrors {
            try await pool.withConnection { connection in
                try await connection.query(
                    """
                    SELECT p.title, a.username FROM publications p JOIN accounts a ON a.tenant_id = p.author_id
                    WHERE p.publication_id = $1 AND p.unpublished_at IS NULL
                    """,
                    [id]
                ).single.map { (try $0.decode("title"), try $0.decode("username")) }
            }
        }
    }

    public func unpublish(_ id: UUID, now: Date, audit: (TenantID) -> AuditRecord) async throws -> TenantID? {
        try await translatingErrors {
            try await pool.withTransaction { connection in
                guard
                    let row = try await connection.query(
                        """
                        UPDATE publications SET unpublished_at = $2
                        WHERE publication_id = $1 AND unpublished_at IS NULL
                        RETURNING author_id
                        """,
                        [id, now]
                    ).single
                else { return nil }
                let author = TenantID(rawValue: try row.decode("author_id"))
                try await AuditSQL.append(audit(author), connection)
                return author
            }
        }
    }

    public func securityFindings(applicationRoles: [String]) async throws -> [SecurityFinding] {
        try await translatingErrors {
            try await pool.withConnection { connection in
                var findings: [SecurityFinding] = []
                let tables = try await connection.query(
                    """
                    SELECT c.relname, c.relrowsecurity AND c.relforcerowsecurity AS forced
                    FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id'
                    WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace
                    ORDER BY c.relname
                    """
                )
                for table in tables {
                    let name: String = try table.decode("relname")
                    let forced: Bool = try table.decode("forced")
                    findings.append(
                        SecurityFinding(
                            check: "rls forced on \(name)",
                            ok: forced,
                            detail: forced ? "enabled and forced" : "row-level security is not enabled and forced"
                        )
                    )
                }
                for role in applicationRoles {
                    let rows = try await connection.query(
                        """
                        SELECT r.rolsuper, r.rolbypassrls,
                               (SELECT count(*)::int FROM pg_class c WHERE c.relowner = r.oid) AS owned
                        FROM pg_roles r WHERE r.rolname = $1
                        """,
                        [role]
                    )
                    guard let row = rows.single else {
                        findings.append(
                            SecurityFinding(check: "role \(role)", ok: false, detail: "role does not exist"))
                        continue
                    }
                    let superuser: Bool = try row.decode("rolsuper")
                    let bypass: Bool = try row.decode("rolbypassrls")
                    let owned: Int = try row.decode("owned")
                    findings.append(
                        SecurityFinding(
                            check: "role \(role) is not superuser", ok: !superuser,
                            detail: superuser ? "SUPERUSER" : "ok")
                    )
                    findings.append(
                        SecurityFinding(
                            check: "role \(role) has no BYPASSRLS", ok: !bypass, detail: bypass ? "BYPASSRLS" : "ok")
                    )
                    findings.append(
                        SecurityFinding(
                            check: "role \(role) owns nothing",
                            ok: owned == 0,
                            detail: owned == 0 ? "ok" : "owns \(owned) relations"
                        )
                    )
                }
                return findings
            }
        }
    }

    /// Runs a change and appends its audit record in one transaction.
    @discardableResult
    func change<T: Sendable>(
        _ audit: AuditRecord,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await change(auditing: { _ in audit }, body)
    }

    /// Runs a change and appends the audit record made from its result, in one transaction.
    @discardableResult
    func change<T: Sendable>(
        auditing audit: (T) -> AuditRecord,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await translatingErrors {
            try await pool.withTransaction { connection in
                let value = try await body(connection)
                try await AuditSQL.append(audit(value), connection)
                return value
            }
        }
    }

    private static let selectOutbox = """
        SELECT message_id, tenant_id, kind, recipient, subject, body, status, attempts, last_error, created_at,
               next_attempt_at, sent_at, sender_id IS NOT NULL AS from_member, link_path
        FROM email_outbox
        """

    private static func decodeOutbox(_ row: PostgresRow) throws -> OutboxEntry {
        OutboxEntry(
            id: try row.decode("message_id"),
            tenantID: TenantID(rawValue: try row.decode("tenant_id")),
            kind: try row.decode("kind"),
            recipient: try row.decode("recipient"),
            subject: try row.decode("subject"),
            body: try row.decode("body"),
            status: try row.decode("status"),
            attempts: try row.decode("attempts"),
            lastError: try row.decode("last_error"),
            createdAt: try row.decode("created_at"),
            nextAttemptAt: try row.decode("next_attempt_at"),
            sentAt: try row.decode("sent_at"),
            fromMember: try row.decode("from_member"),
            linkPath: try row.decode("link_path")
        )
    }
}
