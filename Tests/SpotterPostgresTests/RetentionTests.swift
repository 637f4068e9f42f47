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
            #expect(purged == RetentionPurge(accessLogRows: 1, addresses: 1, challenges: 1))
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
}
