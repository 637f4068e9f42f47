import Foundation
import GRPCCore
import SpotterProto
import SpotterTestSupport
import Testing

/// Runs the built `spotterctl` binary against a test database.
@Suite("spotterctl")
struct SpotterCtlTests {
    private func json(_ result: Subprocess.Result) throws -> Any { try result.json() }

    private func auditCount(_ database: TestDatabase) async throws -> Int {
        try await database.count("SELECT count(*)::int FROM audit_log")
    }

    @Test("accounts create, list and show, with the audit row written")
    func createListShow() async throws {
        try await TestDatabase.with { database in
            let created = try await database.spotterctl(
                [
                    "accounts", "create", "--kind", "coach", "--email", "Coach@Example.com", "--username", "coachy",
                    "--verified", "--password-stdin", "--reason", "onboarding call", "--json",
                ],
                input: "a coach's password\n"
            )
            #expect(created.status == 0, "\(created.output)")
            let account = try #require(try json(created) as? [String: Any])
            #expect(account["username"] as? String == "coachy")
            #expect(account["email"] as? String == "coach@example.com")
            #expect(account["kind"] as? String == "coach")
            #expect(account["email_verified"] as? Bool == true)

            let listed = try await database.spotterctl(["accounts", "list", "--kind", "coach", "--json"])
            let rows = try #require(try json(listed) as? [[String: Any]])
            #expect(rows.map { $0["username"] as? String } == ["coachy"])
            let lifters = try await database.spotterctl(["accounts", "list", "--kind", "lifter", "--json"])
            #expect((try json(lifters) as? [Any])?.isEmpty == true)
            // `find` is `list` with the text given plainly.
            for command in [["accounts", "find", "COACH@example"], ["accounts", "list", "coachy"]] {
                let found = try #require(
                    try json(try await database.spotterctl(command + ["--json"])) as? [[String: Any]])
                #expect(found.map { $0["username"] as? String } == ["coachy"], "\(command)")
            }
            #expect(try await database.spotterctl(["accounts", "find", "nobody", "--json"]).output == "[\n\n]\n")

            let shown = try await database.spotterctl(["accounts", "show", "coach@example.com"])
            #expect(shown.status == 0)
            #expect(shown.output.contains("coachy"))
            #expect(shown.output.contains("sessions:"))

            let audit = try await database.spotterctl(["audit", "list", "--json"])
            let entries = try #require(try json(audit) as? [[String: Any]])
            #expect(entries.count == 1)
            #expect(entries.first?["action"] as? String == "account.create")
            #expect(entries.first?["reason"] as? String == "onboarding call")
            #expect(entries.first?["actor"] as? String == "test-operator")
            #expect(entries.first?["os_user"] as? String != nil)

            let table = try await database.spotterctl(["audit", "list", "--action", "account"])
            #expect(table.output.contains("account.create"))
            #expect(table.output.contains("onboarding call"))
        }
    }

    @Test("a failing command exits 1 with one line and leaves neither the change nor an audit row")
    func failuresChangeNothing() async throws {
        try await TestDatabase.with { database in
            let arguments = [
                "accounts", "create", "--kind", "lifter", "--email", "ada@example.com", "--username", "ada",
                "--password-stdin", "--reason", "test",
            ]
            #expect(try await database.spotterctl(arguments, input: "long enough password\n").status == 0)
            let before = try await auditCount(database)
            let duplicate = try await database.spotterctl(
                [
                    "accounts", "create", "--kind", "lifter", "--email", "other@example.com", "--username", "ADA",
                    "--password-stdin", "--reason", "test",
                ],
                input: "long enough password\n"
            )
            #expect(duplicate.status == 1)
            #expect(duplicate.output == "spotterctl: username: is already taken\n")
            #expect(try await auditCount(database) == before)
            #expect(try await database.count("SELECT count(*)::int FROM tenants") == 1)

            let weak = try await database.spotterctl(
                arguments.dropLast(2) + ["--reason", "x"], input: "password\n")
            #expect(weak.status == 1)
            #expect(weak.output.contains("password: is one of the most commonly used passwords"))

            let unknown = try await database.spotterctl(["accounts", "show", "nobody"])
            #expect(unknown.status == 1)
            #expect(unknown.output == "spotterctl: no account matches 'nobody'\n")

            let noReason = try await database.spotterctl(["accounts", "disable", "ada", "--yes"])
            #expect(noReason.status != 0)
            #expect(noReason.output.contains("--reason"))

            let unconfirmed = try await database.spotterctl(["accounts", "disable", "ada", "--reason", "x"])
            #expect(unconfirmed.status != 0)
            #expect(unconfirmed.output.contains("--yes"))
            #expect(try await database.count("SELECT count(*)::int FROM accounts WHERE status = 'disabled'") == 0)
            #expect(try await auditCount(database) == before)

            let unreachable = try await database.spotterctl(
                ["accounts", "list"],
                url: "host=/nonexistent-spotter port=1 user=x dbname=x"
            )
            #expect(unreachable.status == 1)
            #expect(unreachable.output.hasPrefix("spotterctl: database unreachable"))
        }
    }

    @Test(
        "disable revokes live sessions: a token that worked is refused by the running server; enable restores sign-in")
    func disableRevokesSessions() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let auth = Spotter_V1_AuthService.Client(wrapping: client)
                let accounts = Spotter_V1_AccountService.Client(wrapping: client)
                _ = try await auth.register(
                    .with {
                        $0.email = "ada@example.com"
                        $0.username = "ada"
                        $0.password = "correct horse battery"
                        $0.kind = .lifter
                    })
                let tokens = try await auth.signIn(
                    .with {
                        $0.login = "ada"
                        $0.password = "correct horse battery"
                    })
                let metadata: Metadata = ["authorization": "Bearer \(tokens.accessToken)"]
                _ = try await accounts.getProfile(.init(), metadata: metadata)

                let disabled = try await server.database.spotterctl(
                    ["accounts", "disable", "ada", "--reason", "chargeback", "--yes", "--json"]
                )
                #expect(disabled.status == 0, "\(disabled.output)")
                #expect((try json(disabled) as? [String: Any])?["sessions_revoked"] as? Int == 1, "a number")
                await #expect(throws: RPCError.self) { _ = try await accounts.getProfile(.init(), metadata: metadata) }
                await #expect(throws: RPCError.self) {
                    _ = try await auth.signIn(
                        .with {
                            $0.login = "ada"
                            $0.password = "correct horse battery"
                        })
                }

                let enabled = try await server.database.spotterctl(
                    ["accounts", "enable", "ada", "--reason", "resolved"])
                #expect(enabled.status == 0)
                _ = try await auth.signIn(
                    .with {
                        $0.login = "ada"
                        $0.password = "correct horse battery"
                    })
                let actions = try await server.database.count(
                    "SELECT count(*)::int FROM audit_log WHERE action IN ('account.disable', 'account.enable')"
                )
                #expect(actions == 2)
                // Enabling revokes nothing, and its audit row does not speak of sessions.
                #expect(
                    try await server.database.count(
                        "SELECT count(*)::int FROM audit_log WHERE action = 'account.enable' AND details = '{}'") == 1)
            }
        }
    }

    @Test("each migration applied writes an audit row naming the operator; a failing one leaves neither")
    func migrateAudited() async throws {
        try await TestDatabase.with { database in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID())")
            try FileManager.default.copyItem(at: TestDatabase.migrationsDirectory, to: directory)
            defer { try? FileManager.default.removeItem(at: directory) }
            try "CREATE TABLE migrate_marker (id int);".write(
                to: directory.appendingPathComponent("9998_marker.sql"), atomically: true, encoding: .utf8)
            try "CREATE TABLE half (id int); SELECT * FROM nowhere;".write(
                to: directory.appendingPathComponent("9999_broken.sql"), atomically: true, encoding: .utf8)
            let environment = ["SPOTTER_MIGRATIONS_DIR": directory.path]
            let blank = try await database.spotterctl(["db", "migrate", "--reason", " "], environment: environment)
            #expect(blank.status == 1 && blank.output == "spotterctl: reason: must not be blank\n")
            let failed = try await database.spotterctl(
                ["db", "migrate", "--reason", "release 1.5"], environment: environment)
            #expect(failed.status == 1, "\(failed.output)")
            let rows = try await database.ownerConnection()
            let audited = try await rows.query(
                """
                SELECT actor_kind, actor, reason, target, details ->> 'version' AS version FROM audit_log
                WHERE action = 'db.migrate'
                """)
            #expect(audited.count == 1)
            let row = try #require(audited.single)
            #expect(try row.decode("actor_kind", as: String.self) == "admin")
            #expect(try row.decode("actor", as: String.self) == "test-operator")
            #expect(try row.decode("reason", as: String.self) == "release 1.5")
            #expect(try row.decode("target", as: String.self) == "9998_marker")
            #expect(try row.decode("version", as: String.self) == "9998")
            let half = try await rows.query("SELECT to_regclass('half') IS NULL AS gone")
            #expect(try half.single?.decode("gone", as: Bool.self) == true)
            await rows.close()
            // Without --reason the row says the release's migrations were applied.
            try FileManager.default.removeItem(at: directory.appendingPathComponent("9999_broken.sql"))
            try "CREATE TABLE second_marker (id int);".write(
                to: directory.appendingPathComponent("9999_second.sql"), atomically: true, encoding: .utf8)
            let applied = try await database.spotterctl(["migrate", "apply"], environment: environment)
            #expect(applied.output == "applied 9999_second\n", "\(applied.output)")
            #expect(
                try await database.count(
                    """
                    SELECT count(*)::int FROM audit_log WHERE action = 'db.migrate' AND target = '9999_second'
                    AND reason = 'upgrade to the migrations of this release'
                    """) == 1)
        }
    }

    @Test("migrate reports the schema up to date and lists every migration as applied")
    func migrateStatus() async throws {
        try await TestDatabase.with { database in
            let apply = try await database.spotterctl(["migrate", "apply"])
            #expect(apply.status == 0)
            #expect(apply.output.contains("up to date"))
            let status = try await database.spotterctl(["migrate", "status", "--json"])
            let states = try #require(try json(status) as? [[String: Any]])
            #expect(!states.isEmpty)
            #expect(states.allSatisfy { $0["status"] as? String == "applied" })
        }
    }
}
