import Foundation
import Postgres
import SpotterSetup
import SpotterTestSupport
import Testing

@Suite("The login spotterd works as on an external database")
struct WorkingLoginTests {
    @Test(
        "deploy/roles.sql's spotter_server passes; the owner, a superuser, or a login that may switch to spotter_admin is named for what it could do"
    )
    func workingLoginProblems() async throws {
        try await TestDatabase.with { database in
            let roles = ["spotter_app", "spotter_mailer"]
            let suffix = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
            let server = "spotter_test_server_\(suffix)"
            let wider = "spotter_test_wider_\(suffix)"
            let tables = "spotter_test_tables_\(suffix)"
            let owning = "spotter_test_owning_\(suffix)"
            // As deploy/roles.sql makes it, and one granted spotterctl's role too.
            try await database.asOwner { owner in
                try await owner.query("CREATE ROLE \(server) LOGIN NOINHERIT")
                try await owner.query("GRANT spotter_app, spotter_mailer TO \(server)")
                try await owner.query("CREATE ROLE \(wider) LOGIN NOINHERIT")
                try await owner.query("GRANT spotter_app, spotter_mailer, spotter_admin TO \(wider)")
                // A login that may act as a role owning a table of the schema (not the schema).
                try await owner.query("CREATE ROLE \(tables) NOLOGIN")
                try await owner.query("CREATE TABLE public.\(tables) (id integer)")
                try await owner.query("ALTER TABLE public.\(tables) OWNER TO \(tables)")
                try await owner.query("CREATE ROLE \(owning) LOGIN NOINHERIT")
                try await owner.query("GRANT spotter_app, spotter_mailer, \(tables) TO \(owning)")
            }
            func login(_ name: String) -> PostgresConfiguration {
                var configuration = database.ownerConfiguration
                configuration.connectionString += " user=\(name)"
                return configuration
            }
            do {
                let script = try String(
                    contentsOf: TestDatabase.repositoryRoot.appendingPathComponent("deploy/roles.sql"), encoding: .utf8)
                #expect(script.contains("CREATE ROLE spotter_server LOGIN NOINHERIT"))
                #expect(script.contains("GRANT spotter_app, spotter_mailer TO spotter_server;"))
                #expect(try await DatabaseSetup.workingLoginProblem(login(server), roles: roles) == nil)
                #expect(
                    try await DatabaseSetup.workingLoginProblem(login(wider), roles: roles)
                        == "\(wider) may also switch to spotter_admin, beyond spotter_app and spotter_mailer")
                #expect(
                    try await DatabaseSetup.workingLoginProblem(database.ownerConfiguration, roles: roles)
                        == "postgres is a superuser or bypasses row-level security")
                #expect(
                    try await DatabaseSetup.workingLoginProblem(login(owning), roles: roles)
                        == "\(owning) owns the schema or its tables, or may act as their owner")
                // What the login can do once it is in: its own role reset, nothing at all.
                let connection = try await PostgresConnection.connect(login(server).with(role: "spotter_app"))
                defer { Task { await connection.close() } }
                _ = try await connection.query("RESET ROLE")
                let denied = await #expect(throws: PostgresError.self) {
                    _ = try await connection.query("SELECT count(*) FROM accounts")
                }
                #expect(denied?.sqlState == PostgresError.Code.insufficientPrivilege)
            } catch {
                Issue.record(error)
            }
            try await database.asOwner { owner in
                try await owner.query("DROP ROLE \(server)")
                try await owner.query("DROP ROLE \(wider)")
                try await owner.query("DROP TABLE public.\(tables)")
                try await owner.query("DROP ROLE \(owning)")
                try await owner.query("DROP ROLE \(tables)")
            }
        }
    }
}
