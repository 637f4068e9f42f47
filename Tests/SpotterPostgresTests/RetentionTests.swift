import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

@Suite("Retention on PostgreSQL")
struct RetentionTests {
    @Test("old access-log rows, quiet address counts and long-expired challenges go; everything recent stays")
    func purgeOld() async throws {
        try await TestDatabase.with { database in
            let ada = try await database.authService().register(
                .init(email: "ada@example.com", username: "ada", password: "long enough ada", kind: .lifter))
            let tenant = ada.tenantID.rawValue
            let account = ada.accountID.rawValue
            try await database.asOwner { owner in
                for days in [400, 364, 0] {
                    try await owner.query(
                        """
                        INSERT INTO coach_access_log (tenant_id, coach_id, accessed_at, data, method)
                        VALUES ($1, gen_random_uuid(), now() - make_interval(days => $2), 'history', 'ListClientWorkouts')
                        """, [tenant, days])
                }
                try await owner.query(
                    """
                    INSERT INTO sign_in_address_failures (address, failures, window_start, blocked_until) VALUES
                        ('192.0.2.1', 3, now() - interval '2 days', NULL),
                        ('192.0.2.2', 60, now() - interval '2 days', now() + interval '1 hour'),
                        ('192.0.2.3', 1, now(), NULL)
                    """)
                for hours in [49, 1] {
                    try await owner.query(
                        """
                        INSERT INTO mfa_challenges (tenant_id, challenge_hash, account_id, source, address, expires_at)
                        VALUES ($1, decode(md5(random()::text), 'hex'), $2, 'address:a', 'a', now() - make_interval(hours => $3))
                        """, [tenant, account, hours])
                }
            }
            let purged = try await SpotterDatabase(pool: database.appPool).purgeOld(accessLogDays: 365)
            var expected = RetentionPurge()
            (expected.accessLogRows, expected.addresses, expected.challenges) = (1, 1, 1)
            #expect(purged == expected)
            #expect(try await database.count("SELECT count(*)::int FROM coach_access_log") == 2)
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM sign_in_address_failures WHERE address IN ('192.0.2.2', '192.0.2.3')")
                    == 2)
            #expect(try await database.count("SELECT count(*)::int FROM mfa_challenges") == 1)
            await #expect(throws: PostgresError.self) {
                try await SpotterDatabase(pool: database.appPool).purgeOld(accessLogDays: 0)
            }
        }
    }

    @Test(
        "sessions ended a month ago, tokens expired a day ago and e-mails sent a month ago go; the rest stays and still works"
    )
    func purgeCredentials() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            let ada = try await auth.register(
                .init(email: "ada@example.com", username: "ada", password: "long enough ada", kind: .lifter))
            let bob = try await auth.register(
                .init(email: "bob@example.com", username: "bob", password: "long enough bob", kind: .lifter))
            for label in ["expired", "revoked", "recently revoked"] {
                _ = try await auth.signIn(
                    login: "ada", password: "long enough ada", deviceLabel: label, address: "10.0.0.1")
            }
            let live = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "live", address: "10.0.0.1")
            // Two rotations: the first refresh token used and long expired, the second used and
            // expired an hour ago, the third current.
            let second = try await auth.refresh(refreshToken: live.refreshToken)
            let third = try await auth.refresh(refreshToken: second.refreshToken)
            _ = try await auth.signIn(
                login: "bob", password: "long enough bob", deviceLabel: "old", address: "10.0.0.2")
            try await auth.requestPasswordReset(email: "ada@example.com")
            try await database.asOwner { owner in
                try await owner.query(
                    """
                    UPDATE sessions SET expires_at = now() - interval '31 days', last_used_at = now() - interval '40 days'
                    WHERE device_label = 'expired'
                    """)
                try await owner.query(
                    """
                    UPDATE sessions SET revoked_at = now() - interval '31 days', last_used_at = now() - interval '32 days'
                    WHERE device_label = 'revoked'
                    """)
                try await owner.query(
                    """
                    UPDATE sessions SET revoked_at = now() - interval '29 days', last_used_at = now() - interval '30 days'
                    WHERE device_label = 'recently revoked'
                    """)
                // Bob's only session ended long ago: it goes, and his last activity stays.
                try await owner.query(
                    """
                    UPDATE sessions SET expires_at = now() - interval '200 days', last_used_at = now() - interval '290 days'
                    WHERE tenant_id = $1
                    """, [bob.tenantID.rawValue])
                for (token, hours) in [(live.refreshToken, 48), (second.refreshToken, 1)] {
                    try await owner.query(
                        "UPDATE refresh_tokens SET expires_at = now() - make_interval(hours => $2) WHERE token_hash = $1",
                        [PostgresBytes(Token.hash(token)), hours])
                }
                try await owner.query(
                    """
                    UPDATE account_tokens SET expires_at = now() - interval '2 days'
                    WHERE tenant_id = $1 AND purpose = 'verify_email'
                    """, [ada.tenantID.rawValue])
                try await owner.query(
                    """
                    UPDATE email_outbox SET status = 'sent', sent_at = now() - make_interval(days => days_ago)
                    FROM (VALUES ($1::uuid, 31), ($2::uuid, 29)) AS v (tenant, days_ago)
                    WHERE tenant_id = tenant AND kind = 'verify_email'
                    """, [ada.tenantID.rawValue, bob.tenantID.rawValue])
                try await owner.query(
                    """
                    UPDATE email_outbox SET status = 'failed', created_at = now() - interval '90 days'
                    WHERE kind = 'reset_password'
                    """)
            }
            // The function's owner reads only the columns that decide what goes: no hash, no body.
            let readable = try await database.asOwner { owner in
                try await owner.query(
                    """
                    SELECT c.table_name || '.' || c.column_name AS name FROM information_schema.columns c
                    WHERE c.table_schema = 'public'
                      AND c.table_name IN ('accounts', 'sessions', 'refresh_tokens', 'account_tokens', 'email_outbox')
                      AND has_column_privilege('spotter_retention', format('public.%I', c.table_name), c.column_name, 'SELECT')
                    ORDER BY 1
                    """
                ).map { try $0.decode("name", as: String.self) }
            }
            #expect(
                readable == [
                    "account_tokens.expires_at", "accounts.account_id", "accounts.ended_sessions_used_at",
                    "accounts.tenant_id", "email_outbox.sent_at", "email_outbox.status", "refresh_tokens.expires_at",
                    "sessions.account_id", "sessions.expires_at", "sessions.last_used_at", "sessions.revoked_at",
                    "sessions.tenant_id",
                ])
            let purge = SpotterDatabase(pool: database.appPool)
            var expected = RetentionPurge()
            (expected.sessions, expected.refreshTokens, expected.accountTokens, expected.emails) = (3, 1, 1, 1)
            #expect(try await purge.purgeOld(accessLogDays: 365) == expected)
            #expect(try await purge.purgeOld(accessLogDays: 365) == RetentionPurge())

            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM sessions WHERE device_label IN ('recently revoked', 'live')") == 2)
            #expect(try await database.count("SELECT count(*)::int FROM sessions") == 2)
            // The deleted sessions' refresh tokens went with them; the live one keeps its last two,
            // the recently revoked its one.
            #expect(try await database.count("SELECT count(*)::int FROM refresh_tokens") == 3)
            // Each account's last activity is still its sessions' last use: Bob's from the one deleted.
            let admin = PostgresAdminStore(pool: database.adminPool)
            let bobsLast = try #require(try await admin.accountDetail(bob.tenantID, now: Date())?.lastActivity)
            #expect(abs(bobsLast.timeIntervalSinceNow + 290 * 86_400) < 60)
            let adasLast = try #require(try await admin.accountDetail(ada.tenantID, now: Date())?.lastActivity)
            #expect(abs(adasLast.timeIntervalSinceNow) < 60)
            #expect(try await database.count("SELECT count(*)::int FROM account_tokens") == 2)
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM email_outbox WHERE tenant_id = $1", [ada.tenantID.rawValue])
                    == 1)
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM email_outbox WHERE tenant_id = $1", [bob.tenantID.rawValue])
                    == 1)

            // What stayed still works: the live session's access token; its purged first refresh
            // token is refused as unknown without ending the session; the second, used and
            // expired an hour ago, still reveals its reuse and ends it.
            let refused = SpotterError.unauthenticated("the refresh token is not valid; sign in again")
            #expect(try await auth.authenticate(accessToken: third.accessToken).sessionID == live.principal.sessionID)
            await #expect(throws: refused) { try await auth.refresh(refreshToken: live.refreshToken) }
            #expect(try await auth.authenticate(accessToken: third.accessToken).sessionID == live.principal.sessionID)
            await #expect(throws: refused) { try await auth.refresh(refreshToken: second.refreshToken) }
            await #expect(throws: SpotterError.self) { try await auth.authenticate(accessToken: third.accessToken) }
        }
    }
}
