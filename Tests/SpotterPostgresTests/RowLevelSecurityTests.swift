import Foundation
import Logging
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

@Suite("Row-level security")
struct RowLevelSecurityTests {
    /// Two tenants with an account and a session each, inserted past RLS as the owner.
    private func seed(_ database: TestDatabase) async throws -> (TenantID, TenantID) {
        let a = TenantID.random()
        let b = TenantID.random()
        let owner = try await database.ownerConnection()
        for (tenant, name) in [(a, "alice"), (b, "bob")] {
            let account = UUID()
            try await owner.query(
                "INSERT INTO tenants (tenant_id, kind, display_name) VALUES ($1, 'lifter', $2)",
                [tenant.rawValue, name]
            )
            try await owner.query(
                "INSERT INTO accounts (tenant_id, account_id, email, username, password_hash) VALUES ($1, $2, $3, $4, 'x')",
                [tenant.rawValue, account, "\(name)@example.com", name]
            )
            try await owner.query(
                """
                INSERT INTO sessions (tenant_id, session_id, account_id, access_token_hash, access_expires_at, expires_at)
                VALUES ($1, $2, $3, $4, now() + interval '1 hour', now() + interval '1 day')
                """,
                [tenant.rawValue, UUID(), account, PostgresBytes(Array(name.utf8))]
            )
        }
        await owner.close()
        return (a, b)
    }

    private func count(_ table: String, _ connection: PostgresConnection) async throws -> Int {
        try await connection.query("SELECT count(*)::int AS n FROM \(table)").single!.decode("n")
    }

    @Test("a transaction with no tenant set sees no tenant rows")
    func noTenantSeesNothing() async throws {
        try await TestDatabase.with { database in
            _ = try await seed(database)
            try await database.appPool.withTransaction { connection in
                for table in ["tenants", "accounts", "sessions", "refresh_tokens", "account_tokens", "email_outbox"] {
                    let visible = try await count(table, connection)
                    #expect(visible == 0, "\(table)")
                }
            }
        }
    }

    @Test("tenant A's context cannot read or change tenant B's rows, even without a WHERE clause")
    func tenantCannotTouchAnother() async throws {
        try await TestDatabase.with { database in
            let (a, b) = try await seed(database)
            let spotter = SpotterDatabase(pool: database.appPool)
            try await spotter.withTenant(a) { connection in
                #expect(try await count("tenants", connection) == 1)
                #expect(try await count("accounts", connection) == 1)
                let names = try await connection.query("SELECT username FROM accounts")
                #expect(try names.map { try $0.decode("username", as: String.self) } == ["alice"])
                // A statement that "forgot" its WHERE clause touches only the acting tenant.
                let updated = try await connection.query("UPDATE accounts SET status = 'disabled'")
                #expect(updated.affectedRows == 1)
                let deleted = try await connection.query("DELETE FROM sessions")
                #expect(deleted.affectedRows == 1)
                let targeted = try await connection.query(
                    "UPDATE tenants SET display_name = 'pwned' WHERE tenant_id = $1",
                    [b.rawValue]
                )
                #expect(targeted.affectedRows == 0)
            }
            let owner = try await database.ownerConnection()
            let bob = try await owner.query(
                "SELECT a.status, t.display_name, (SELECT count(*)::int FROM sessions s WHERE s.tenant_id = t.tenant_id) AS sessions FROM accounts a JOIN tenants t USING (tenant_id) WHERE tenant_id = $1",
                [b.rawValue]
            ).single!
            #expect(try bob.decode("status", as: String.self) == "active")
            #expect(try bob.decode("display_name", as: String.self) == "bob")
            #expect(try bob.decode("sessions", as: Int.self) == 1)
            await owner.close()
        }
    }

    @Test("a row for another tenant cannot be inserted")
    func cannotInsertForAnotherTenant() async throws {
        try await TestDatabase.with { database in
            let (a, b) = try await seed(database)
            let spotter = SpotterDatabase(pool: database.appPool)
            let error = await #expect(throws: PostgresError.self) {
                try await spotter.withTenant(a) { connection in
                    try await connection.query(
                        "INSERT INTO email_outbox (tenant_id, message_id, kind, recipient, subject, body) VALUES ($1, $2, 'x', 'x', 'x', 'x')",
                        [b.rawValue, UUID()]
                    )
                }
            }
            #expect(error?.sqlState == PostgresError.Code.insufficientPrivilege)
        }
    }

    @Test("the tenant setting ends with its transaction, so a pooled connection never carries it over")
    func settingIsTransactionLocal() async throws {
        try await TestDatabase.with { database in
            let (a, _) = try await seed(database)
            let pool = PostgresPool(
                configuration: database.ownerConfiguration.with(role: "spotter_app"),
                options: .init(maxConnections: 1),
                logger: Logger(label: "test")
            )
            let inside = try await SpotterDatabase(pool: pool).withTenant(a) { try await count("accounts", $0) }
            #expect(inside == 1)
            let after = try await pool.withTransaction { try await count("accounts", $0) }
            #expect(after == 0)
            await pool.shutdown()
        }
    }

    @Test("the application role owns nothing, is not superuser, has no BYPASSRLS, and RLS is forced everywhere")
    func applicationRoleIsUnprivileged() async throws {
        try await TestDatabase.with { database in
            let owner = try await database.ownerConnection()
            let roles = try await owner.query(
                "SELECT rolname, rolsuper, rolbypassrls FROM pg_roles WHERE rolname LIKE 'spotter_%' ORDER BY rolname"
            )
            // spotter_app, spotter_admin, spotter_auth, spotter_mailer, spotter_retention, spotter_sync.
            #expect(roles.count == 6)
            for role in roles {
                #expect(try role.decode("rolsuper", as: Bool.self) == false)
                #expect(try role.decode("rolbypassrls", as: Bool.self) == false)
            }
            let owned = try await owner.query(
                "SELECT count(*)::int AS n FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE r.rolname IN ('spotter_app', 'spotter_admin', 'spotter_mailer', 'spotter_retention', 'spotter_sync')"
            )
            #expect(try owned.single?.decode("n", as: Int.self) == 0)
            let unforced = try await owner.query(
                """
                SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
                WHERE a.attname = 'tenant_id' AND c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace
                  AND NOT (c.relrowsecurity AND c.relforcerowsecurity) AND c.relname <> 'audit_log'
                """
            )
            #expect(
                unforced.isEmpty,
                "tables with tenant_id but without forced RLS: \(unforced.map { try? $0.decode("relname", as: String.self) })"
            )
            await owner.close()
        }
    }

    @Test("the audit log is append-only for the application and admin roles")
    func auditLogIsAppendOnly() async throws {
        try await TestDatabase.with { database in
            for pool in [database.appPool, database.adminPool] {
                try await pool.withTransaction { connection in
                    try await connection.query(
                        "INSERT INTO audit_log (actor_kind, actor, action) VALUES ('system', 'test', 'test.append')"
                    )
                }
                for statement in ["UPDATE audit_log SET reason = 'x'", "DELETE FROM audit_log", "TRUNCATE audit_log"] {
                    let error = await #expect(throws: PostgresError.self) {
                        try await pool.withTransaction { try await $0.query(statement) }
                    }
                    #expect(error?.sqlState == PostgresError.Code.insufficientPrivilege, "\(statement)")
                }
            }
        }
    }
}
