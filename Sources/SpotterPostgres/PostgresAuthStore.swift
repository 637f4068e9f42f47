import Foundation
import Postgres
import SpotterCore

/// `AuthStore` on PostgreSQL. Before sign-in the tenant is found through a SECURITY DEFINER lookup
/// that returns only its id; everything else runs with that tenant set, under row-level security.
public struct PostgresAuthStore: AuthStore {
    let database: SpotterDatabase

    public init(database: SpotterDatabase) {
        self.database = database
    }

    public func createAccount(_ account: NewAccount, verification: AccountToken, email: OutboxMessage) async throws {
        try await database.withTenant(account.tenantID) { connection in
            try await AccountSQL.insert(account, verifiedAt: nil, connection)
            let principal = Principal(tenantID: account.tenantID, accountID: account.accountID)
            try await Self.insertToken(principal, verification, connection)
            try await OutboxSQL.enqueue(email, tenant: account.tenantID, connection)
        }
    }

    public func signInCandidate(login: String) async throws -> SignInCandidate? {
        guard let tenant = try await lookupTenant("SELECT spotter_tenant_for_login($1) AS tenant_id", login) else {
            return nil
        }
        return try await database.withTenant(tenant) { connection in
            let rows = try await connection.query(
                """
                SELECT tenant_id, account_id, password_hash, status
                FROM accounts
                WHERE CASE WHEN strpos($1, '@') > 0 THEN email = $1 ELSE lower(username) = $1 END
                """,
                [login]
            )
            guard let row = rows.single else { return nil }
            return SignInCandidate(
                principal: Principal(
                    tenantID: TenantID(rawValue: try row.decode("tenant_id")),
                    accountID: AccountID(rawValue: try row.decode("account_id"))),
                passwordHash: try row.decode("password_hash"),
                status: AccountStatus(rawValue: try row.decode("status")) ?? .disabled
            )
        }
    }

    public func knownDevice(_ principal: Principal, tokenHash: [UInt8], now: Date) async throws -> UUID? {
        try await database.withTenant(principal.tenantID) { connection in
            try await connection.query(
                """
                SELECT device_id FROM known_devices
                WHERE account_id = $1 AND token_hash = $2 AND expires_at > $3
                """,
                [principal.accountID.rawValue, PostgresBytes(tokenHash), now]
            ).single?.decode("device_id")
        }
    }

    public func countSignInAttempt(
        _ principal: Principal, from source: SignInSource,
        _ decide: @Sendable (SignInThrottle) -> ThrottleDecision<SignInThrottle>
    ) async throws -> ThrottleDecision<SignInThrottle> {
        try await database.withTenant(principal.tenantID) { connection in
            // The account row first, then the source's: every attempt on an account takes its locks
            // in that order, and waits for the one before it.
            let account = try await connection.query(
                """
                SELECT failed_sign_ins, failure_window_start, locked_until FROM accounts
                WHERE account_id = $1 FOR UPDATE
                """,
                [principal.accountID.rawValue]
            ).single
            guard let account else { throw SpotterError.unauthenticated("invalid login or password") }
            let row = try await connection.query(
                """
                SELECT failures, locked_until FROM sign_in_failures
                WHERE account_id = $1 AND source = $2 FOR UPDATE
                """,
                [principal.accountID.rawValue, source.key]
            ).single
            let decision = decide(
                SignInThrottle(
                    source: AccountFailures(
                        failures: try row?.decode("failures") ?? 0, lockedUntil: try row?.decode("locked_until")),
                    ceiling: AccountCeiling(
                        failures: try account.decode("failed_sign_ins"),
                        windowStart: try account.decode("failure_window_start"),
                        nextAttempt: try account.decode("locked_until"))))
            if case .proceed(let state) = decision {
                try await connection.query(
                    """
                    UPDATE accounts SET failed_sign_ins = $2, failure_window_start = $3, locked_until = $4,
                                        last_failed_sign_in = now()
                    WHERE account_id = $1
                    """,
                    [
                        principal.accountID.rawValue, state.ceiling.failures, state.ceiling.windowStart,
                        state.ceiling.nextAttempt,
                    ]
                )
                try await connection.query(
                    """
                    INSERT INTO sign_in_failures (tenant_id, account_id, source, failures, locked_until, updated_at)
                    VALUES ($1, $2, $3, $4, $5, now())
                    ON CONFLICT (tenant_id, account_id, source)
                    DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until, updated_at = now()
                    """,
                    [
                        principal.tenantID.rawValue, principal.accountID.rawValue, source.key, state.source.failures,
                        state.source.lockedUntil,
                    ]
                )
                // Sources quiet for a day start over, so many addresses cannot grow the table for good.
                try await connection.query(
                    "DELETE FROM sign_in_failures WHERE account_id = $1 AND updated_at < now() - interval '1 day'",
                    [principal.accountID.rawValue]
                )
            }
            return decision
        }
    }

    public func openSession(_ principal: Principal, _ session: NewSession, keepingDevices: Int) async throws {
        try await database.withTenant(principal.tenantID) { connection in
            try await connection.query(
                "DELETE FROM sign_in_failures WHERE account_id = $1 AND source = $2",
                [principal.accountID.rawValue, session.source.key]
            )
            if let tokenHash = session.device.newTokenHash {
                // A new device, or a known one that gets a new token.
                try await connection.query(
                    """
                    INSERT INTO known_devices (tenant_id, device_id, account_id, token_hash, label, created_at,
                                               last_used_at, expires_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $6, $7)
                    ON CONFLICT (tenant_id, device_id) DO UPDATE
                    SET token_hash = excluded.token_hash, last_used_at = excluded.last_used_at,
                        expires_at = excluded.expires_at,
                        label = CASE WHEN excluded.label = '' THEN known_devices.label ELSE excluded.label END
                    """,
                    [
                        principal.tenantID.rawValue, session.device.id, principal.accountID.rawValue,
                        PostgresBytes(tokenHash), session.deviceLabel, session.createdAt, session.device.expiresAt,
                    ]
                )
                try await connection.query(
                    """
                    DELETE FROM known_devices WHERE account_id = $1 AND device_id NOT IN (
                        SELECT device_id FROM known_devices WHERE account_id = $1
                        ORDER BY last_used_at DESC LIMIT $2)
                    """,
                    [principal.accountID.rawValue, keepingDevices]
                )
            } else {
                try await connection.query(
                    """
                    UPDATE known_devices SET last_used_at = $3, expires_at = $4,
                                             label = CASE WHEN $5 = '' THEN label ELSE $5 END
                    WHERE account_id = $1 AND device_id = $2
                    """,
                    [
                        principal.accountID.rawValue, session.device.id, session.createdAt, session.device.expiresAt,
                        session.deviceLabel,
                    ]
                )
            }
            try await connection.query(
                """
                INSERT INTO sessions (tenant_id, session_id, account_id, device_label, access_token_hash,
                                      access_expires_at, created_at, last_used_at, expires_at, sign_in_address)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, nullif(left($9, 100), ''))
                """,
                [
                    principal.tenantID.rawValue, session.id.rawValue, principal.accountID.rawValue, session.deviceLabel,
                    PostgresBytes(session.tokens.accessHash), session.tokens.accessExpiresAt, session.createdAt,
                    session.expiresAt, session.address,
                ]
            )
            try await Self.insertRefreshToken(principal.tenantID, session.id, session.tokens, connection)
        }
    }

    /// Inside a call's reserved connection (`SpotterDatabase.run`), the lookup also begins the
    /// call's transaction, acting as the tenant it found, in the same round trip: the handler's
    /// first transaction for that tenant runs in it (`PostgresPool.beginInReservation`). Elsewhere
    /// (streams re-checking their token) it is one statement on its own.
    public func authenticate(accessTokenHash: [UInt8], now: Date) async throws -> Principal? {
        let parameters: [any PostgresEncodable] = [PostgresBytes(accessTokenHash), now]
        let begun = try await translatingErrors {
            try await database.pool.beginInReservation(
                [
                    (
                        """
                        SELECT tenant_id, account_id, session_id, kind, tier, tier_expires_at, time_zone, unit,
                               set_config('spotter.tenant_id', tenant_id::text, true) AS acting_tenant
                        FROM spotter_authenticate($1, $2)
                        """,
                        parameters
                    )
                ],
                standsFor: { rows in
                    guard let row = rows.first?.single, let tenant: UUID = try? row.decode("tenant_id") else {
                        return nil
                    }
                    return [SpotterDatabase.actingAs(TenantID(rawValue: tenant))]
                })
        }
        if let begun { return try begun[0].single.map(Self.principal) }
        return try await database.withoutTenantAutocommit { connection in
            let rows = try await connection.query(
                """
                SELECT tenant_id, account_id, session_id, kind, tier, tier_expires_at, time_zone, unit
                FROM spotter_authenticate($1, $2)
                """,
                parameters
            )
            return try rows.single.map(Self.principal)
        }
    }

    private static func principal(_ row: PostgresRow) throws -> Principal {
        Principal(
            tenantID: TenantID(rawValue: try row.decode("tenant_id")),
            accountID: AccountID(rawValue: try row.decode("account_id")),
            sessionID: SessionID(rawValue: try row.decode("session_id")),
            tenant: try TenantContextSQL.decode(row)
        )
    }

    public func lookupRefreshToken(hash: [UInt8], now: Date) async throws -> RefreshLookup {
        guard
            let tenant = try await lookupTenant(
                "SELECT spotter_tenant_for_refresh_token($1) AS tenant_id", PostgresBytes(hash))
        else { return .invalid }
        return try await database.withTenant(tenant) { connection in
            let rows = try await connection.query(
                """
                SELECT s.tenant_id, s.account_id, s.session_id, s.expires_at, s.revoked_at,
                       r.used_at, r.expires_at AS token_expires_at, a.status
                FROM refresh_tokens r
                JOIN sessions s ON s.tenant_id = r.tenant_id AND s.session_id = r.session_id
                JOIN accounts a ON a.tenant_id = s.tenant_id AND a.account_id = s.account_id
                WHERE r.token_hash = $1
                """,
                [PostgresBytes(hash)]
            )
            guard let row = rows.single else { return .invalid }
            let principal = Principal(
                tenantID: TenantID(rawValue: try row.decode("tenant_id")),
                accountID: AccountID(rawValue: try row.decode("account_id")),
                sessionID: SessionID(rawValue: try row.decode("session_id"))
            )
            let revoked: Date? = try row.decode("revoked_at")
            let sessionEnd: Date = try row.decode("expires_at")
            let tokenEnd: Date = try row.decode("token_expires_at")
            let used: Date? = try row.decode("used_at")
            let status: String = try row.decode("status")
            guard revoked == nil, sessionEnd > now, status == AccountStatus.active.rawValue else { return .invalid }
            if used != nil { return .reused(principal) }
            guard tokenEnd > now else { return .invalid }
            return .current(principal, sessionExpiresAt: sessionEnd)
        }
    }

    public func rotateTokens(_ principal: Principal, oldRefreshHash: [UInt8], to tokens: SessionTokens, now: Date)
        async throws -> Bool
    {
        guard let session = principal.sessionID else { return false }
        return try await database.withTenant(principal.tenantID) { connection in
            let used = try await connection.query(
                "UPDATE refresh_tokens SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL",
                [PostgresBytes(oldRefreshHash), now]
            )
            guard used.affectedRows == 1 else { return false }
            try await connection.query(
                """
                UPDATE sessions SET access_token_hash = $2, access_expires_at = $3, last_used_at = $4
                WHERE session_id = $1 AND revoked_at IS NULL
                """,
                [session.rawValue, PostgresBytes(tokens.accessHash), tokens.accessExpiresAt, now]
            )
            try await Self.insertRefreshToken(principal.tenantID, session, tokens, connection)
            return true
        }
    }

    public func revokeSession(_ principal: Principal, _ session: SessionID, reason: String, now: Date) async throws
        -> Bool
    {
        try await database.withTenant(principal.tenantID) { connection in
            let rows = try await connection.query(
                """
                UPDATE sessions SET revoked_at = $3, revoked_reason = $4
                WHERE session_id = $1 AND account_id = $2 AND revoked_at IS NULL AND expires_at > $3
                """,
                [session.rawValue, principal.accountID.rawValue, now, reason]
            )
            return rows.affectedRows == 1
        }
    }

    public func revokeAllSessions(_ principal: Principal, reason: String, now: Date) async throws {
        try await database.withTenant(principal.tenantID) { connection in
            try await SessionSQL.revokeAll(account: principal.accountID, reason: reason, now: now, connection)
        }
    }

    public func sessions(_ principal: Principal, now: Date) async throws -> [SessionInfo] {
        try await database.withTenant(principal.tenantID) { connection in
            let rows = try await connection.query(
                """
                SELECT session_id, device_label, sign_in_address, created_at, last_used_at, expires_at
                FROM sessions
                WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > $2
                ORDER BY created_at DESC
                """,
                [principal.accountID.rawValue, now]
            )
            return try rows.map(SessionSQL.decodeInfo)
        }
    }

    public func accountTokenIsUsable(hash: [UInt8], purpose: AccountTokenPurpose, now: Date) async throws -> Bool {
        guard
            let tenant = try await tenant(ofToken: hash)
        else { return false }
        return try await database.withTenant(tenant) { connection in
            try await connection.query(
                """
                SELECT 1 FROM account_tokens
                WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3
                """,
                [PostgresBytes(hash), purpose.rawValue, now]
            ).single != nil
        }
    }

    public func consumeAccountToken(hash: [UInt8], purpose: AccountTokenPurpose, now: Date) async throws -> Principal? {
        guard
            let tenant = try await tenant(ofToken: hash)
        else { return nil }
        return try await database.withTenant(tenant) { connection in
            let rows = try await connection.query(
                """
                UPDATE account_tokens SET used_at = $3
                WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3
                RETURNING tenant_id, account_id
                """,
                [PostgresBytes(hash), purpose.rawValue, now]
            )
            guard let row = rows.single else { return nil }
            return Principal(
                tenantID: TenantID(rawValue: try row.decode("tenant_id")),
                accountID: AccountID(rawValue: try row.decode("account_id"))
            )
        }
    }

    public func issueAccountToken(
        _ principal: Principal, _ token: AccountToken, emails: [OutboxMessage]
    ) async throws {
        try await database.withTenant(principal.tenantID) { connection in
            if token.purpose == .changeEmail {
                // Only the newest address counts: a mistyped one, corrected, must not take the account.
                try await connection.query(
                    """
                    UPDATE account_tokens SET used_at = now()
                    WHERE account_id = $1 AND purpose = 'change_email' AND used_at IS NULL
                    """, [principal.accountID.rawValue])
            }
            try await Self.insertToken(principal, token, connection)
            for email in emails { try await OutboxSQL.enqueue(email, tenant: principal.tenantID, connection) }
        }
    }

    public func confirmEmailChange(
        hash: [UInt8], now: Date, notice: @Sendable (_ old: String, _ username: String, _ new: String) -> OutboxMessage
    ) async throws -> EmailChangeOutcome? {
        guard
            let tenant = try await tenant(ofToken: hash)
        else { return nil }
        return try await database.withTenant(tenant) { connection in
            guard
                let row = try await connection.query(
                    """
                    SELECT t.account_id, t.new_email, a.email, a.username,
                           spotter_tenant_for_login(t.new_email) IS NOT NULL AS taken
                    FROM account_tokens t JOIN accounts a ON a.account_id = t.account_id
                    WHERE t.token_hash = $1 AND t.purpose = 'change_email' AND t.used_at IS NULL AND t.expires_at > $2
                    FOR UPDATE
                    """,
                    [PostgresBytes(hash), now]
                ).single
            else { return nil }
            let account: UUID = try row.decode("account_id")
            let email: String = try row.decode("new_email")
            // Taken by another account meanwhile: the address stays, and the link is spent (it can
            // never work now, and the change must no longer show as waiting). A race still meets
            // the unique key.
            if try row.decode("taken", as: Bool.self) {
                try await connection.query(
                    "UPDATE account_tokens SET used_at = $2 WHERE token_hash = $1", [PostgresBytes(hash), now])
                return .taken(email: email)
            }
            let old: String = try row.decode("email")
            try await connection.query(
                "UPDATE accounts SET email = $2, email_verified_at = $3, updated_at = $3 WHERE account_id = $1",
                [account, email, now])
            // This link and every other one is spent: those to this address or another, to verify
            // the old one, and password resets sent to the old one (a mailbox given up, or lost).
            try await connection.query(
                "UPDATE account_tokens SET used_at = $2 WHERE account_id = $1 AND used_at IS NULL", [account, now])
            try await AuditSQL.appendOwner(
                "account.change_email", tenant: tenant, target: try row.decode("username"),
                reason: "changed by its owner", details: ["from": old, "to": email], connection)
            try await OutboxSQL.enqueue(notice(old, try row.decode("username"), email), tenant: tenant, connection)
            return .changed(Principal(tenantID: tenant, accountID: AccountID(rawValue: account)), email: email)
        }
    }

    public func emailChangeAddress(hash: [UInt8], now: Date) async throws -> String? {
        guard
            let tenant = try await tenant(ofToken: hash)
        else { return nil }
        return try await database.withTenant(tenant) { connection in
            try await connection.query(
                """
                SELECT new_email FROM account_tokens
                WHERE token_hash = $1 AND purpose = 'change_email' AND used_at IS NULL AND expires_at > $2
                """,
                [PostgresBytes(hash), now]
            ).single?.decode("new_email")
        }
    }

    public func accessTokenState(hash: [UInt8], now: Date) async throws -> AccessTokenState? {
        try await database.withoutTenantAutocommit { connection in
            try await connection.query(
                "SELECT spotter_access_token_state($1, $2) AS state", [PostgresBytes(hash), now]
            ).single.flatMap { try ($0.decode("state") as String?).flatMap(AccessTokenState.init(rawValue:)) }
        }
    }

    public func pendingEmailChange(_ principal: Principal, now: Date) async throws -> PendingEmailChange? {
        try await database.withTenant(principal.tenantID) { connection in
            try await connection.query(
                """
                SELECT new_email, created_at, expires_at FROM account_tokens
                WHERE account_id = $1 AND purpose = 'change_email' AND used_at IS NULL AND expires_at > $2
                ORDER BY created_at DESC LIMIT 1
                """,
                [principal.accountID.rawValue, now]
            ).single.map {
                PendingEmailChange(
                    email: try $0.decode("new_email"), sentAt: try $0.decode("created_at"),
                    expiresAt: try $0.decode("expires_at"))
            }
        }
    }

    public func cancelEmailChange(_ principal: Principal, now: Date) async throws -> Bool {
        try await database.withTenant(principal.tenantID) { connection in
            try await connection.query(
                """
                UPDATE account_tokens SET used_at = $2
                WHERE account_id = $1 AND purpose = 'change_email' AND used_at IS NULL AND expires_at > $2
                """,
                [principal.accountID.rawValue, now]
            ).affectedRows > 0
        }
    }

    public func markEmailVerified(_ principal: Principal, at: Date) async throws {
        try await database.withTenant(principal.tenantID) { connection in
            try await connection.query(
                """
                UPDATE accounts SET email_verified_at = coalesce(email_verified_at, $2), updated_at = $2
                WHERE account_id = $1
                """,
                [principal.accountID.rawValue, at]
            )
        }
    }

    public func changeUsername(
        _ principal: Principal, to: String, now: Date, check: @Sendable ([UsernameHold], String) throws -> Void
    ) async throws -> Bool {
        try await database.withTenant(principal.tenantID) { connection in
            // The account's row first: two renames of one account read its holds one after the other.
            let current: String =
                try await connection.query(
                    "SELECT username FROM accounts WHERE account_id = $1 FOR UPDATE", [principal.accountID.rawValue]
                ).single?.decode("username") ?? ""
            try check(
                try await connection.query("SELECT username, held_until FROM spotter_username_holds()").map {
                    UsernameHold(username: try $0.decode("username"), heldUntil: try $0.decode("held_until"))
                }, current)
            // The name replaced, read in the same statement: a rename meanwhile cannot be misstated.
            guard
                let from: String = try await connection.query(
                    """
                    UPDATE accounts a SET username = $2, updated_at = $3
                    FROM (SELECT username FROM accounts WHERE account_id = $1 FOR UPDATE) old
                    WHERE a.account_id = $1 AND old.username <> $2
                    RETURNING old.username
                    """,
                    [principal.accountID.rawValue, to, now]
                ).single?.decode("username")
            else { return false }
            try await AuditSQL.appendOwner(
                "account.rename", tenant: principal.tenantID, target: to, reason: "changed by its owner",
                details: ["from": from, "to": to], connection)
            return true
        }
    }

    public func eraseOwnAccount(_ principal: Principal) async throws -> String {
        try await database.withTenant(principal.tenantID) { connection in
            // The erasure writes the feeds of the clients it commented for: their counters first,
            // in the one order (0017_feed_lock_order.sql).
            try await FeedLocks.take(connection)
            return try await connection.query("SELECT spotter_erase_own_account() AS pseudonym").single!
                .decode("pseudonym")
        }
    }

    public func principal(forEmail email: String) async throws -> Principal? {
        guard let tenant = try await lookupTenant("SELECT spotter_tenant_for_email($1) AS tenant_id", email) else {
            return nil
        }
        return try await database.withTenant(tenant) { connection in
            let rows = try await connection.query(
                "SELECT account_id FROM accounts WHERE email = $1 AND status = 'active'",
                [email]
            )
            guard let row = rows.single else { return nil }
            return Principal(tenantID: tenant, accountID: AccountID(rawValue: try row.decode("account_id")))
        }
    }

    public func tokensIssued(_ principal: Principal, purpose: AccountTokenPurpose, since: Date) async throws -> Int {
        try await database.withTenant(principal.tenantID) { connection in
            try await connection.query(
                """
                SELECT count(*) AS issued FROM account_tokens
                WHERE account_id = $1 AND purpose = $2 AND created_at >= $3
                """,
                [principal.accountID.rawValue, purpose.rawValue, since]
            ).single?.decode("issued") ?? 0
        }
    }

    public func resetPassword(_ principal: Principal, passwordHash: String, now: Date) async throws {
        try await database.withTenant(principal.tenantID) { connection in
            try await Self.replacePassword(principal, passwordHash, now: now, connection)
            try await SessionSQL.revokeAll(account: principal.accountID, reason: "password reset", now: now, connection)
        }
    }

    public func passwordHash(_ principal: Principal) async throws -> String? {
        try await database.withTenant(principal.tenantID) { connection in
            try await connection.query(
                "SELECT password_hash FROM accounts WHERE account_id = $1", [principal.accountID.rawValue]
            ).single?.decode("password_hash")
        }
    }

    public func changePassword(_ principal: Principal, passwordHash: String, keeping session: SessionID, now: Date)
        async throws -> Int
    {
        try await database.withTenant(principal.tenantID) { connection in
            try await Self.replacePassword(principal, passwordHash, now: now, connection)
            return try await connection.query(
                """
                UPDATE sessions SET revoked_at = $2, revoked_reason = 'password changed'
                WHERE account_id = $1 AND revoked_at IS NULL AND session_id <> $3
                """,
                [principal.accountID.rawValue, now, session.rawValue]
            ).affectedRows
        }
    }

    /// The new hash, throttling cleared, and every unused reset link sent to the account ended.
    private static func replacePassword(
        _ principal: Principal, _ passwordHash: String, now: Date, _ connection: PostgresConnection
    ) async throws {
        try await connection.query(
            """
            UPDATE accounts SET password_hash = $2, failed_sign_ins = 0, locked_until = NULL, updated_at = $3
            WHERE account_id = $1
            """,
            [principal.accountID.rawValue, passwordHash, now]
        )
        try await connection.query("DELETE FROM sign_in_failures WHERE account_id = $1", [principal.accountID.rawValue])
        try await connection.query(
            """
            UPDATE account_tokens SET used_at = $2
            WHERE account_id = $1 AND purpose IN ('reset_password', 'change_email') AND used_at IS NULL
            """,
            [principal.accountID.rawValue, now]
        )
    }

    public func countAddressAttempt(
        _ address: String, _ decide: @Sendable (AddressFailures?) -> ThrottleDecision<AddressFailures>
    ) async throws -> ThrottleDecision<AddressFailures> {
        try await database.withoutTenant { connection in
            // An empty row first, so even an address's first parallel attempts queue on its lock.
            try await connection.query(
                """
                INSERT INTO sign_in_address_failures (address, failures, window_start) VALUES ($1, 0, '-infinity')
                ON CONFLICT (address) DO NOTHING
                """,
                [address]
            )
            let row = try await connection.query(
                "SELECT failures, window_start, blocked_until FROM sign_in_address_failures WHERE address = $1 FOR UPDATE",
                [address]
            ).single
            // The empty row (never a failure, never blocked) stands for no state at all.
            var previous: AddressFailures?
            if let row {
                let failures: Int = try row.decode("failures")
                let blocked: Date? = try row.decode("blocked_until")
                if failures > 0 || blocked != nil {
                    previous = AddressFailures(
                        failures: failures, windowStart: try row.decode("window_start"), blockedUntil: blocked)
                }
            }
            let decision = decide(previous)
            if case .proceed(let state) = decision {
                try await connection.query(
                    """
                    UPDATE sign_in_address_failures SET failures = $2, window_start = $3, blocked_until = $4
                    WHERE address = $1
                    """,
                    [address, state.failures, state.windowStart, state.blockedUntil]
                )
            }
            return decision
        }
    }

    public func takenFields(email: String, username: String) async throws -> [String] {
        try await database.withoutTenantAutocommit { connection in
            let row = try await connection.query(
                """
                SELECT spotter_tenant_for_login($1) IS NOT NULL AS email,
                       spotter_tenant_for_login($2) IS NOT NULL OR spotter_username_held($2) AS username
                """,
                [email, username]
            ).single
            return try [
                ("email", row?.decode("email", as: Bool.self)), ("username", row?.decode("username", as: Bool.self)),
            ]
            .compactMap { field, taken in taken == true ? field : nil }
        }
    }

    /// The tenant an e-mailed token (its hash) belongs to, found past row-level security.
    private func tenant(ofToken hash: [UInt8]) async throws -> TenantID? {
        try await lookupTenant("SELECT spotter_tenant_for_account_token($1) AS tenant_id", PostgresBytes(hash))
    }

    func lookupTenant(_ sql: String, _ key: some PostgresEncodable) async throws -> TenantID? {
        try await database.withoutTenant { connection in
            let row = try await connection.query(sql, [key]).single
            return try row?.decode("tenant_id", as: UUID?.self).map(TenantID.init(rawValue:))
        }
    }

    private static func insertToken(_ principal: Principal, _ token: AccountToken, _ connection: PostgresConnection)
        async throws
    {
        try await connection.query(
            """
            INSERT INTO account_tokens (tenant_id, token_hash, account_id, purpose, expires_at, new_email)
            VALUES ($1, $2, $3, $4, $5, $6)
            """,
            [
                principal.tenantID.rawValue, PostgresBytes(token.hash), principal.accountID.rawValue,
                token.purpose.rawValue, token.expiresAt, token.newEmail,
            ]
        )
    }

    private static func insertRefreshToken(
        _ tenant: TenantID,
        _ session: SessionID,
        _ tokens: SessionTokens,
        _ connection: PostgresConnection
    ) async throws {
        try await connection.query(
            """
            INSERT INTO refresh_tokens (tenant_id, token_hash, session_id, expires_at)
            VALUES ($1, $2, $3, $4)
            """,
            [tenant.rawValue, PostgresBytes(tokens.refreshHash), session.rawValue, tokens.refreshExpiresAt]
        )
    }
}
