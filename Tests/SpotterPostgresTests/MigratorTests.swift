import Foundation
import Logging
import Postgres
import SpotterPostgres
import SpotterTestSupport
import Testing

@Suite("Migrator")
struct MigratorTests {
    private let logger = Logger(label: "test")

    private func emptyDatabase(_ body: (PostgresConfiguration) async throws -> Void) async throws {
        let server = try TestDatabase.serverConfiguration()
        let name = "spotter_migrate_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try await PostgresConnection.connect(server)
        try await admin.execute("CREATE DATABASE \(name)")
        do {
            try await body(server.with(database: name))
        } catch {
            _ = try? await admin.execute("DROP DATABASE \(name) WITH (FORCE)")
            throw error
        }
        _ = try? await admin.execute("DROP DATABASE \(name) WITH (FORCE)")
        await admin.close()
    }

    private let first = Migration(version: 1, name: "one", sql: "CREATE TABLE one (id int)")
    private let second = Migration(
        version: 2, name: "two", sql: "CREATE TABLE two (id int); INSERT INTO two VALUES (2)")

    @Test("applies pending migrations in order, records checksums, and applies nothing twice")
    func appliesInOrderOnce() async throws {
        try await emptyDatabase { configuration in
            let connection = try await PostgresConnection.connect(configuration)
            let applied = try await Migrator(migrations: [second, first], logger: logger).migrate(connection)
            #expect(applied.map(\.version) == [1, 2])
            #expect(try await Migrator(migrations: [first, second], logger: logger).migrate(connection).isEmpty)
            let rows = try await connection.query("SELECT version, checksum FROM spotter_migrations ORDER BY version")
            #expect(try rows.map { try $0.decode("checksum", as: String.self) } == [first.checksum, second.checksum])
            await connection.close()
        }
    }

    @Test("a failing migration leaves nothing behind and stops the run")
    func failingMigrationRollsBack() async throws {
        try await emptyDatabase { configuration in
            let connection = try await PostgresConnection.connect(configuration)
            let broken = Migration(version: 2, name: "broken", sql: "CREATE TABLE half (id int); SELECT * FROM nowhere")
            await #expect(throws: PostgresError.self) {
                try await Migrator(migrations: [first, broken], logger: logger).migrate(connection)
            }
            let half = try await connection.query("SELECT to_regclass('half') IS NULL AS gone")
            #expect(try half.single?.decode("gone", as: Bool.self) == true)
            let states = try await Migrator(migrations: [first, broken], logger: logger).status(connection)
            #expect(states.map(\.status) == [.applied, .pending])
            await connection.close()
        }
    }

    @Test("an applied migration whose file changed is refused")
    func changedFileIsRefused() async throws {
        try await emptyDatabase { configuration in
            let connection = try await PostgresConnection.connect(configuration)
            try await Migrator(migrations: [first], logger: logger).migrate(connection)
            let edited = Migration(version: 1, name: "one", sql: "CREATE TABLE one (id bigint)")
            await #expect(throws: MigrationError.checksumMismatch(version: 1, name: "one")) {
                try await Migrator(migrations: [edited, second], logger: logger).migrate(connection)
            }
            let two = try await connection.query("SELECT to_regclass('two') IS NULL AS absent")
            #expect(try two.single?.decode("absent", as: Bool.self) == true)
            await connection.close()
        }
    }

    @Test(
        "an applied migration missing among the files is refused; one newer than every file (a newer release's) is served on"
    )
    func missingFileIsRefused() async throws {
        try await emptyDatabase { configuration in
            let connection = try await PostgresConnection.connect(configuration)
            try await Migrator(migrations: [first, second], logger: logger).migrate(connection)
            // An older release against the newer schema: nothing to apply, no refusal (deploy/README).
            #expect(try await Migrator(migrations: [first], logger: logger).migrate(connection).isEmpty)
            // A gap: migration 2 is applied, the files jump from 1 to 3.
            let third = Migration(version: 3, name: "three", sql: "CREATE TABLE three (id int)")
            await #expect(throws: MigrationError.missingFile(version: 2, name: "two")) {
                try await Migrator(migrations: [first, third], logger: logger).migrate(connection)
            }
            await connection.close()
        }
    }

    @Test("two processes migrating at once apply each migration exactly once")
    func concurrentMigrationsSerialize() async throws {
        try await emptyDatabase { configuration in
            let slow = Migration(version: 1, name: "slow", sql: "SELECT pg_sleep(0.3); CREATE TABLE slow (id int)")
            let migrator = Migrator(migrations: [slow, second], logger: logger)
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        let connection = try await PostgresConnection.connect(configuration)
                        let applied = try await migrator.migrate(connection)
                        await connection.close()
                        return applied.count
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(counts.sorted() == [0, 0, 2])
        }
    }

    @Test("the repository's migration files load in order with their names")
    func loadsRepositoryMigrations() throws {
        let migrations = try Migrator.load(from: TestDatabase.migrationsDirectory)
        #expect(migrations.first?.version == 1)
        #expect(migrations.map(\.version) == migrations.map(\.version).sorted())
    }

    @Test("0018 repairs stored offset time zones: whole hours to their tz name with the same meaning, the rest to UTC")
    func timeZoneRepair() async throws {
        // The migrations create cluster-wide roles: let the shared template database make them
        // first, so that this run does not race another test's `CREATE ROLE`.
        try await TestDatabase.with { _ in }
        try await emptyDatabase { configuration in
            let connection = try await PostgresConnection.connect(configuration)
            let all = try Migrator.load(from: TestDatabase.repositoryRoot.appendingPathComponent("Migrations"))
            try await Migrator(migrations: all.filter { $0.version < 18 }, logger: logger).migrate(connection)
            let zones = [
                "GMT+5": "Etc/GMT-5", "gmt-3": "Etc/GMT+3", "UTC+14": "Etc/GMT-14", "GMT+0": "Etc/GMT",
                "UTC+02:00": "Etc/GMT-2", "GMT+0530": "UTC", "GMT+15": "UTC", "Mars/Olympus": "UTC",
                "Europe/Berlin": "Europe/Berlin", "Etc/GMT+5": "Etc/GMT+5",
            ]
            for (index, zone) in zones.keys.sorted().enumerated() {
                try await connection.query(
                    "INSERT INTO tenants (tenant_id, kind, display_name, time_zone) VALUES ($1, 'lifter', $2, $3)",
                    [UUID(), "t\(index)", zone])
            }
            try await Migrator(migrations: all, logger: logger).migrate(connection)
            let rows = try await connection.query("SELECT display_name, time_zone, version FROM tenants")
            let stored = Dictionary(
                uniqueKeysWithValues: try rows.map { (try $0.decode("display_name", as: String.self), $0) })
            for (index, zone) in zones.keys.sorted().enumerated() {
                let row = try #require(stored["t\(index)"])
                #expect(try row.decode("time_zone", as: String.self) == zones[zone], "\(zone)")
                let changed = zones[zone] != zone
                #expect(try row.decode("version", as: Int64.self) == (changed ? 2 : 1), "\(zone)")
            }
            await connection.close()
        }
    }

    @Test("deploy/roles.sql creates every role a migration creates, and grants each to the owner login")
    func rolesScriptKeepsUp() throws {
        let root = TestDatabase.repositoryRoot
        let migrations = try Migrator.load(from: root.appendingPathComponent("Migrations"))
        let created = Set(migrations.flatMap { $0.sql.matches(of: /CREATE ROLE (\w+)/).map { String($0.1) } })
        let script = try String(contentsOf: root.appendingPathComponent("deploy/roles.sql"), encoding: .utf8)
        let scripted = Set(script.matches(of: /CREATE ROLE (\w+) NOLOGIN/).map { String($0.1) })
        let granted = try #require(script.firstMatch(of: /GRANT ([\w, ]+) TO spotter_owner/)).1
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(!created.isEmpty)
        #expect(
            created.subtracting(scripted).isEmpty, "roles.sql does not create \(created.subtracting(scripted).sorted())"
        )
        #expect(
            created.subtracting(granted).isEmpty, "roles.sql does not grant \(created.subtracting(granted).sorted())")
    }

    @Test(
        "every foreign key's columns lead an index, so deleting a parent row probes its children instead of reading their table; the exceptions lead with tenant_id"
    )
    func foreignKeysIndexed() async throws {
        // Keys whose parent row is deleted only with its tenant (templates and programs are
        // soft-deleted; an account goes with its tenant): the check reads that tenant's rows alone.
        let tenantLed: Set = [
            "account_tokens_tenant_id_account_id_fkey", "mfa_challenges_tenant_id_account_id_fkey",
            "program_days_tenant_id_template_id_fkey", "assignments_tenant_id_template_id_fkey",
            "assignments_tenant_id_program_id_fkey",
        ]
        try await TestDatabase.with { database in
            try await database.asOwner { owner in
                let keys = try await owner.query(
                    """
                    SELECT c.conname AS name,
                           EXISTS (SELECT FROM pg_index i WHERE i.indrelid = c.conrelid AND i.indpred IS NULL
                                   AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
                                   AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey) AS indexed,
                           EXISTS (SELECT FROM pg_index i JOIN pg_attribute a
                                       ON a.attrelid = i.indrelid AND a.attnum = (i.indkey::int2[])[0]
                                   WHERE i.indrelid = c.conrelid AND i.indpred IS NULL AND a.attname = 'tenant_id'
                                   AND a.attnum = ANY (c.conkey)) AS tenant_led
                    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace AND n.nspname = 'public'
                    WHERE c.contype = 'f'
                    """
                ).map {
                    (
                        try $0.decode("name", as: String.self), try $0.decode("indexed", as: Bool.self),
                        try $0.decode("tenant_led", as: Bool.self)
                    )
                }
                #expect(keys.count > 40)
                for (name, indexed, led) in keys {
                    if tenantLed.contains(name) {
                        #expect(led, "\(name) has no index led by tenant_id")
                    } else {
                        #expect(indexed, "no index starts with the columns of \(name)")
                    }
                }
                #expect(tenantLed.isSubset(of: Set(keys.map(\.0))), "an exception is no longer a foreign key")
            }
        }
    }

    @Test(
        "deploy/citus.md keeps up: it distributes every tenant table and names every other one, and every key without tenant_id is one of its listed exceptions"
    )
    func citusPlanKeepsUp() async throws {
        let plan = try String(
            contentsOf: TestDatabase.repositoryRoot.appendingPathComponent("deploy/citus.md"), encoding: .utf8)
        let distributed = Set(plan.matches(of: /create_distributed_table\('(\w+)'/).map { String($0.1) })
        let reference = Set(plan.matches(of: /create_reference_table\('(\w+)'/).map { String($0.1) })
        let named = Set(plan.matches(of: /`(\w+)`/).map { String($0.1) })
        try await TestDatabase.with { database in
            try await database.asOwner { owner in
                let tables = try await owner.query(
                    """
                    SELECT c.relname AS name,
                           EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id') AS tenant,
                           (SELECT a.attname FROM pg_constraint p JOIN pg_attribute a
                                ON a.attrelid = p.conrelid AND a.attnum = p.conkey[1]
                            WHERE p.conrelid = c.oid AND p.contype = 'p') AS first_key
                    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
                    WHERE c.relkind = 'r'
                    """
                ).map {
                    (
                        try $0.decode("name", as: String.self), try $0.decode("tenant", as: Bool.self),
                        try $0.decode("first_key", as: String?.self)
                    )
                }
                let tenantTables = Set(tables.filter(\.1).map(\.0))
                #expect(
                    distributed == tenantTables,
                    "distributed but not a tenant table: \(distributed.subtracting(tenantTables).sorted()); not distributed: \(tenantTables.subtracting(distributed).sorted())"
                )
                for (name, tenant, firstKey) in tables {
                    if tenant {
                        #expect(firstKey == "tenant_id", "\(name) leads its primary key with \(firstKey ?? "nothing")")
                    } else {
                        #expect(
                            reference.contains(name) || named.contains(name), "citus.md does not say where \(name) goes"
                        )
                    }
                }
                // Foreign keys and unique indexes of tenant tables that leave tenant_id out.
                let keys = try await owner.query(
                    """
                    SELECT c.conname AS name FROM pg_constraint c
                    JOIN pg_class r ON r.oid = c.conrelid JOIN pg_namespace n ON n.oid = r.relnamespace AND n.nspname = 'public'
                    WHERE c.contype = 'f'
                      AND EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = r.oid AND a.attname = 'tenant_id')
                      AND NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = r.oid AND a.attname = 'tenant_id'
                                      AND a.attnum = ANY (c.conkey))
                    UNION ALL
                    SELECT ic.relname FROM pg_index i
                    JOIN pg_class ic ON ic.oid = i.indexrelid
                    JOIN pg_class r ON r.oid = i.indrelid JOIN pg_namespace n ON n.oid = r.relnamespace AND n.nspname = 'public'
                    WHERE i.indisunique AND NOT i.indisprimary
                      AND EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = r.oid AND a.attname = 'tenant_id')
                      AND NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = r.oid AND a.attname = 'tenant_id'
                                      AND a.attnum = ANY (i.indkey::int2[]))
                    """
                ).map { try $0.decode("name", as: String.self) }
                #expect(!keys.isEmpty)
                for key in keys {
                    #expect(named.contains(key), "citus.md does not list \(key), which leaves tenant_id out")
                }
            }
        }
    }
}
