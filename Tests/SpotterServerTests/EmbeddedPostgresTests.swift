import Foundation
import Logging
import Postgres
import SpotterServer
import SpotterTestSupport
import Testing

@Suite("Embedded PostgreSQL")
struct EmbeddedPostgresTests {
    @Test("the cluster is shared: the first user starts it, only the last one to leave stops it")
    func lastUserStops() async throws {
        let directory = URL(fileURLWithPath: "/tmp/spotter-embedded-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "test")
        // Two users of one data directory, as spotterd and spotterctl are. Starting and stopping wait
        // for initdb and pg_ctl: off the cooperative pool.
        let first = try EmbeddedPostgres(dataDirectory: directory, logger: logger)
        let second = try EmbeddedPostgres(dataDirectory: directory, logger: logger)
        #expect(try await blocking { try first.start() })
        #expect(try await blocking { try second.start() } == false)

        #expect(try await blocking { try first.release() } == false)  // the second still uses it
        #expect(first.isRunning)
        let connection = try await PostgresConnection.connect(
            PostgresConfiguration(connectionString: second.connectionString))
        #expect(try await connection.query("SELECT 1 AS one").single?.decode("one", as: Int.self) == 1)
        // Names sort byte by byte, but every alphabet's letters fold (this machine has C.UTF-8).
        let folded = try await connection.query("SELECT lower('ÉPAULES ЖИМ') AS folded").single
        #expect(try folded?.decode("folded", as: String.self) == "épaules жим")
        await connection.close()

        #expect(try await blocking { try second.release() })
        #expect(!second.isRunning)
        #expect(try await blocking { try second.release() } == false)  // leaving twice is harmless

        // A later user finds the cluster and its data again.
        let third = try EmbeddedPostgres(dataDirectory: directory, logger: logger)
        #expect(try await blocking { try third.start() })
        #expect(try await blocking { try third.release() })
    }
}
