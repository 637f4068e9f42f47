import Foundation
import Postgres
import SpotterCore

/// Two-factor sign-in on PostgreSQL: the sealed secret, recovery code hashes and sign-in challenges,
/// all under row-level security (a challenge's tenant is found through a SECURITY DEFINER lookup).
extension PostgresAuthStore {
    public func username(_ principal: Principal) async throws -> String {
        try await emailStatus(principal).username
    }

    public func emailStatus(_ principal: Principal) async throws -> EmailStatus {
        try await database.withTenant(principal.tenantID) { connection in
            guard
                let row = try await connection.query(
                    "SELECT email, username, email_verified_at IS NOT NULL AS verified FROM accounts WHERE account_id = $1",
                    [principal.accountID.rawValue]
                ).single
            else { throw SpotterError.notFound("the account is gone") }
            return EmailStatus(
                email: try row.decode("email"), verified: try row.decode("verified"),
                username: try row.decode("username"))
        }
    }

    public func twoFactor(_ principal: Principal) async throws -> TwoFactorRecord? {
        try await database.withTenant(principal.tenantID) { connection in
            try await connection.query(
                "SELECT key_id, sealed_secret, enabled_at FROM account_mfa WHERE account_id = $1",
                [principal.accountID.rawValue]
            ).single.map { row in
                TwoFactorRecord(
                    secret: MfaKeyring.Sealed(
                        keyID: try row.decode("key_id"),
                        bytes: try row.decode("sealed_secret", as: PostgresBytes.self).bytes),
                    enabledAt: try row.decode("enabled_at"))
            }
        }
    }

    public func beginTwoFactor(_ principal: Principal, secret: MfaKeyring.Sealed) async throws -> Bool {
        try await database.withTenant(principal.tenantID) { connection in
            try await connection.query(
                """
                INSERT INTO account_mfa (tenant_id, account_id, key_id, sealed_secret)
                VALUES ($1, $2, $3, $4)
                ON CONFLICT (tenant_id, account_id) DO UPDATE
                SET key_id = excluded.key_id, sealed_secret = excluded.sealed_secret, created_at = now()
                WHERE account_mfa.enabled_at IS NULL
                RETURNING account_id
                """,
                [principal.tenantID.rawValue, principal.accountID.rawValue, secret.keyID, PostgresBytes(secret.bytes)]
            ).single != nil
        }
    }

    public func enableTwoFactor(
        _ principal: Principal, secret: MfaKeyring.Sealed, step: Int64, recoveryCodeHashes: [[UInt8]], now: Date
    ) async throws -> Bool {
        try await database.withTenant(principal.tenantID) { connection in
            guard
                try await connection.query(
                    """
                    UPDATE account_mfa SET enabled_at = $2, last_step = $3, failures = 0, locked_until = NULL
                    WHERE account_id = $1 AND enabled_at IS NULL AND key_id = $4 AND sealed_secret = $5
                    RETURNING account_id
                    """,
                    [principal.accountID.rawValue, now, step, secret.keyID, PostgresBytes(secret.bytes)]
                ).single != nil
            else { return false }
            try await TwoFactorSQL.replaceRecoveryCodes(principal, hashes: recoveryCodeHashes, connection)
            return true
        }
    }

    public func replaceRecoveryCodes(_ principal: Principal, hashes: [[UInt8]]) async throws -> Bool {
        try await database.withTenant(principal.tenantID) { connection in
            // The enabled row, locked: turning two-factor off meanwhile waits, then finds no codes to keep.
            guard
                try await connection.query(
                    "SELECT FROM account_mfa WHERE account_id = $1 AND enabled_at IS NOT NULL FOR UPDATE",
                    [principal.accountID.rawValue]
                ).single != nil
            else { return false }
            try await TwoFactorSQL.replaceRecoveryCodes(principal, hashes: hashes, connection)
            return true
        }
    }

    public func disableTwoFactor(_ principal: Principal) async throws {
        try await database.withTenant(principal.tenantID) { connection in
            try await TwoFactorSQL.forget(account: principal.accountID, connection)
        }
    }

    public func countSecondFactorAttempt(
        _ principal: Principal, _ decide: @Sendable (AccountFailures) -> ThrottleDecision<AccountFailures>
    ) async throws -> ThrottleDecision<AccountFailures> {
        try await database.withTenant(principal.tenantID) { connection in
            guard
                let row = try await connection.query(
                    "SELECT failures, locked_until FROM account_mfa WHERE account_id = $1 FOR UPDATE",
                    [principal.accountID.rawValue]
                ).single
            else { throw SpotterError.failedPrecondition("two-factor sign-in is not on") }
            let decision = decide(
                AccountFailures(failures: try row.decode("failures"), lockedUntil: try row.decode("locked_until")))
            if case .proceed(let state) = decision {
                try await connection.query(
                    "UPDATE account_mfa SET failures = $2, locked_until = $3 WHERE account_id = $1",
                    [principal.accountID.rawValue, state.failures, state.lockedUntil]
                )
            }
            return decision
        }
    }

    public func acceptTwoFactorStep(_ principal: Principal, step: Int64) async throws -> Bool {
        try await database.withTenant(principal.tenantID) { connection in
            try await connection.query(
                """
                UPDATE account_mfa SET last_step = $2, failures = 0, locked_until = NULL
                WHERE account_id = $1 AND enabled_at IS NOT NULL AND last_step < $2
                RETURNING account_id
                """,
                [principal.accountID.rawValue, step]
            ).single != nil
        }
    }

    public func useRecoveryCode(_ principal: Principal, hash: [UInt8], now: Date) async throws -> Bool {
        try await database.withTenant(principal.tenantID) { connection in
            guard
                try await connection.query(
                    """
                    UPDATE mfa_recovery_codes SET used_at = $3
                    WHERE account_id = $1 AND code_hash = $2 AND used_at IS NULL
                    RETURNING account_id
                    """,
                    [principal.accountID.rawValue, PostgresBytes(hash), now]
                ).single != nil
            else { return false }
            try await connection.query(
                "UPDATE account_mfa SET failures = 0, locked_until = NULL WHERE account_id = $1",
                [principal.accountID.rawValue])
            return true
        }
    }

    public func createSignInChallenge(_ principal: Principal, _ challenge: SignInChallenge) async throws {
        try await database.withTenant(principal.tenantID) { connection in
            // Challenges of the account that can no longer be used go first.
            try await connection.query(
                "DELETE FROM mfa_challenges WHERE account_id = $1 AND (expires_at < now() OR used_at IS NOT NULL)",
                [principal.accountID.rawValue])
            try await connection.query(
                """
                INSERT INTO mfa_challenges (tenant_id, challenge_hash, account_id, source, address, device_label,
                                            expires_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                """,
                [
                    principal.tenantID.rawValue, PostgresBytes(challenge.hash), principal.accountID.rawValue,
                    challenge.source.key, challenge.address, challenge.deviceLabel, challenge.expiresAt,
                ]
            )
        }
    }

    public func takeSignInChallenge(hash: [UInt8], now: Date, maxAttempts: Int) async throws
        -> (Principal, SignInChallenge)?
    {
        guard
            let tenant = try await lookupTenant(
                "SELECT spotter_tenant_for_mfa_challenge($1) AS tenant_id", PostgresBytes(hash))
        else { return nil }
        return try await database.withTenant(tenant) { connection in
            guard
                let row = try await connection.query(
                    """
                    UPDATE mfa_challenges SET attempts = attempts + 1
                    WHERE challenge_hash = $1 AND used_at IS NULL AND expires_at > $2 AND attempts < $3
                    RETURNING account_id, source, address, device_label, expires_at
                    """,
                    [PostgresBytes(hash), now, maxAttempts]
                ).single,
                let source = SignInSource(key: try row.decode("source"))
            else { return nil }
            return (
                Principal(tenantID: tenant, accountID: AccountID(rawValue: try row.decode("account_id"))),
                SignInChallenge(
                    hash: hash, source: source, address: try row.decode("address"),
                    deviceLabel: try row.decode("device_label"), expiresAt: try row.decode("expires_at"))
            )
        }
    }

    public func finishSignInChallenge(_ principal: Principal, hash: [UInt8], now: Date) async throws {
        try await database.withTenant(principal.tenantID) { connection in
            try await connection.query(
                "UPDATE mfa_challenges SET used_at = $2 WHERE challenge_hash = $1",
                [PostgresBytes(hash), now]
            )
        }
    }
}

/// Two-factor statements shared by the application and `spotterctl`.
enum TwoFactorSQL {
    /// Deletes the account's recovery codes and stores these hashes instead.
    static func replaceRecoveryCodes(_ principal: Principal, hashes: [[UInt8]], _ connection: PostgresConnection)
        async throws
    {
        try await connection.query(
            "DELETE FROM mfa_recovery_codes WHERE account_id = $1", [principal.accountID.rawValue])
        for hash in hashes {
            try await connection.query(
                "INSERT INTO mfa_recovery_codes (tenant_id, account_id, code_hash) VALUES ($1, $2, $3)",
                [principal.tenantID.rawValue, principal.accountID.rawValue, PostgresBytes(hash)]
            )
        }
    }

    /// Forgets an account's secret, recovery codes and open sign-in challenges.
    static func forget(account: AccountID, _ connection: PostgresConnection) async throws {
        for table in ["mfa_challenges", "mfa_recovery_codes", "account_mfa"] {
            try await connection.query("DELETE FROM \(table) WHERE account_id = $1", [account.rawValue])
        }
    }
}
