import Foundation
import Logging
import Postgres
import SpotterRPC
import Testing

@testable import SpotterServer

@Suite("Database health")
struct DatabaseHealthMonitorTests {
    @Test(
        "a database that hangs (it accepts the connection, then answers nothing) is unreachable once the ping's time is up"
    )
    func hungDatabaseIsNotServing() async throws {
        // A socket that is listened on but never read: libpq connects, then waits for ever.
        let silent = try ListeningSocket()
        defer { silent.close() }
        let pool = PostgresPool(
            configuration: PostgresConfiguration(
                connectionString: "host=127.0.0.1 port=\(silent.port) user=nobody dbname=nothing"),
            logger: Logger(label: "test"))
        let state = ServingState()
        state.set(serving: true)
        var monitor = DatabaseHealthMonitor(
            pool: pool, state: state, interval: .seconds(60), logger: Logger(label: "test"))
        monitor.timeout = .milliseconds(300)
        let started = ContinuousClock.now
        await monitor.checkNow()
        // It said SERVING for as long as the database hung (a SIGSTOPped PostgreSQL, 32 s and on).
        #expect(!state.isServing)
        #expect(ContinuousClock.now - started < .seconds(5))
        // The hung ping is not joined by another: the next check answers at once.
        let again = ContinuousClock.now
        await monitor.checkNow()
        #expect(!state.isServing && ContinuousClock.now - again < .seconds(1))
    }
}
