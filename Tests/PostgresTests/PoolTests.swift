import Foundation
import Logging
import Postgres
import SpotterTestSupport
import Synchronization
import Testing

@Suite("PostgreSQL pool and transactions")
struct PoolTests {
    struct Boom: Error {}

    private func counter(_ connection: PostgresConnection) async throws -> Int {
        try await connection.query("SELECT count(*)::int AS n FROM items").single!.decode("n")
    }

    private func pool(_ database: TestDatabase, _ options: PostgresPool.Options = .init()) -> PostgresPool {
        PostgresPool(configuration: database.ownerConfiguration, options: options, logger: Logger(label: "test"))
    }

    /// Checks out `pool`'s only connection and holds it until `release` is called (however slow the
    /// machine): returns once it is held. `holder` ends when the connection is back.
    private func holdOnlyConnection(of pool: PostgresPool) async throws -> (
        release: @Sendable () -> Void, holder: Task<Void, any Error>
    ) {
        let holding = Mutex(false)
        let (released, release) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await pool.withConnection { _ in
                holding.withLock { $0 = true }
                for await _ in released {}
            }
        }
        while !holding.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        return ({ release.finish() }, holder)
    }

    /// Kills the server side of the pool's idle connection, as a database restart would; returns its pid.
    private func terminateIdleConnection(of pool: PostgresPool, in database: TestDatabase) async throws -> Int32 {
        let pid: Int32 = try await pool.withConnection { connection in
            try await connection.query("SELECT pg_backend_pid() AS pid").single!.decode("pid")
        }
        let killer = try await database.ownerConnection()
        try await killer.query("SELECT pg_terminate_backend($1)", [pid])
        await killer.close()
        try await Task.sleep(for: .milliseconds(100))
        return pid
    }

    @Test("withTransaction commits on return and rolls back on throw")
    func commitAndRollback() async throws {
        try await TestDatabase.with { database in
            let pool = pool(database)
            try await pool.withConnection { try await $0.execute("CREATE TABLE items (id int)") }
            try await pool.withTransaction { try await $0.query("INSERT INTO items VALUES ($1)", [1]) }
            await #expect(throws: Boom.self) {
                try await pool.withTransaction { connection in
                    try await connection.query("INSERT INTO items VALUES ($1)", [2])
                    throw Boom()
                }
            }
            #expect(try await pool.withConnection { try await counter($0) } == 1)
            await pool.shutdown()
        }
    }

    @Test("a cancelled task's transaction rolls back")
    func cancellationRollsBack() async throws {
        try await TestDatabase.with { database in
            // One connection: the transaction and the checks below share it.
            let pool = pool(database, .init(maxConnections: 1))
            try await pool.withConnection { try await $0.execute("CREATE TABLE items (id int)") }
            let inserted = Mutex(false)
            let task = Task {
                try await pool.withTransaction { connection in
                    try await connection.query("INSERT INTO items VALUES ($1)", [1])
                    inserted.withLock { $0 = true }
                    try await Task.sleep(for: .seconds(30))
                }
            }
            while !inserted.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(try await pool.withConnection { try await counter($0) } == 0)
            // The connection went back to the pool clean: no transaction left open.
            let open: Bool = try await pool.withConnection { connection in
                // now() is the transaction's start: it differs between two statements only outside a transaction.
                let first: Date = try await connection.query("SELECT now() AS t").single!.decode("t")
                try await Task.sleep(for: .milliseconds(5))
                let second: Date = try await connection.query("SELECT now() AS t").single!.decode("t")
                return first == second
            }
            #expect(open == false)
            await pool.shutdown()
        }
    }

    @Test("a checkout waits at most the checkout timeout")
    func checkoutTimesOut() async throws {
        try await TestDatabase.with { database in
            let pool = pool(database, .init(maxConnections: 1, checkoutTimeout: .milliseconds(200)))
            // The only connection is held until the timeout has been seen.
            let (release, holder) = try await holdOnlyConnection(of: pool)
            let error = await #expect(throws: PostgresError.self) {
                try await pool.withConnection { _ in }
            }
            #expect(error?.kind == .poolTimeout)
            release()
            try await holder.value
            try await pool.withConnection { _ in }  // free again
            #expect(await pool.openConnections == 1)
            await pool.shutdown()
        }
    }

    @Test("each waiting checkout times out at its own deadline, a later one too; one served is not failed")
    func waitersTimeOutInTurn() async throws {
        try await TestDatabase.with { database in
            let timeout = Duration.milliseconds(300)
            let pool = pool(database, .init(maxConnections: 1, checkoutTimeout: timeout))
            let (release, holder) = try await holdOnlyConnection(of: pool)
            /// How long a checkout waited before it failed, and how it failed.
            @Sendable func waitToFail() async -> (Duration, PostgresError.Kind?) {
                let started = ContinuousClock.now
                do {
                    try await pool.withConnection { _ in }
                    return (ContinuousClock.now - started, nil)
                } catch {
                    return (ContinuousClock.now - started, (error as? PostgresError)?.kind)
                }
            }
            // The second begins to wait half a timeout after the first: the first's deadline must
            // not end it.
            let first = Task { await waitToFail() }
            try await Task.sleep(for: .milliseconds(150))
            let second = Task { await waitToFail() }
            for (waited, kind) in [await first.value, await second.value] {
                #expect(kind == .poolTimeout)
                #expect(waited >= timeout, "failed after \(waited), before its deadline")
            }
            // None wait now; a checkout that waits later still times out (it would wait for ever
            // if nothing watched its deadline; then cancelled after 10 s, it fails the test).
            let later = Task { await waitToFail() }
            let watchdog = Task {
                try await Task.sleep(for: .seconds(10))
                later.cancel()
            }
            let (waited, kind) = await later.value
            watchdog.cancel()
            #expect(kind == .poolTimeout)
            #expect(waited >= timeout)
            release()
            try await holder.value
            await pool.shutdown()

            // One served within its timeout (a long one, however slow the machine) is handed the
            // connection, not an error, and leaves nothing waiting.
            let patient = self.pool(database, .init(maxConnections: 1, checkoutTimeout: .seconds(60)))
            let (free, busy) = try await holdOnlyConnection(of: patient)
            let served = Task { try await patient.withConnection { _ in } }
            while await patient.statistics().waiting == 0 { try await Task.sleep(for: .milliseconds(5)) }
            free()
            try await busy.value
            try await served.value
            #expect(await patient.statistics().waiting == 0)
            await patient.shutdown()
        }
    }

    @Test("never opens more connections than its bound")
    func boundedConnections() async throws {
        try await TestDatabase.with { database in
            // The bound is what is tested, not speed: at the start of a full run on two busy cores a
            // checkout waited more than 10 s once (CI of c356ce3), so the timeout leaves room.
            let pool = pool(database, .init(maxConnections: 3, checkoutTimeout: .seconds(60)))
            try await withThrowingTaskGroup { group in
                for _ in 0..<20 {
                    group.addTask { try await pool.withConnection { try await $0.query("SELECT pg_sleep(0.01)") } }
                }
                try await group.waitForAll()
            }
            #expect(await pool.openConnections <= 3)
            await pool.shutdown()
        }
    }

    @Test("a connection the server dropped is replaced transparently")
    func brokenConnectionIsReplaced() async throws {
        try await TestDatabase.with { database in
            let pool = pool(database, .init(maxConnections: 1, healthCheckAfterIdle: .zero))
            let pid = try await terminateIdleConnection(of: pool, in: database)
            let newPID: Int32 = try await pool.withTransaction { connection in
                try await connection.query("SELECT pg_backend_pid() AS pid").single!.decode("pid")
            }
            #expect(newPID != pid)
            await pool.shutdown()
        }
    }

    @Test("BEGIN on a dead connection is retried on a new one")
    func transactionSurvivesDroppedIdleConnection() async throws {
        try await TestDatabase.with { database in
            // No health check on checkout: the retry at BEGIN has to do the work.
            let pool = pool(database, .init(maxConnections: 1, healthCheckAfterIdle: .seconds(3600)))
            _ = try await terminateIdleConnection(of: pool, in: database)
            let value: Int = try await pool.withTransaction { connection in
                try await connection.query("SELECT 7 AS seven").single!.decode("seven")
            }
            #expect(value == 7)
            await pool.shutdown()
        }
    }

    @Test("the closing statement runs in COMMIT's round trip; its rows arrive after the commit, never after a rollback")
    func closingStatement() async throws {
        try await TestDatabase.with { database in
            let pool = pool(database)
            try await pool.withConnection { try await $0.execute("CREATE TABLE items (id int)") }
            let closing: (sql: String, parameters: [any PostgresEncodable]) = (
                "SELECT current_setting('spotter.note', true) AS note", []
            )
            let seen = Mutex<[String]>([])
            try await pool.withTransaction(
                closing: closing,
                committed: { rows in
                    let note: String = (try? rows.single?.decode("note")) ?? "?"
                    // Committed: another connection sees the row.
                    let count = (try? await pool.withConnection { try await counter($0) }) ?? -1
                    seen.withLock { $0.append("\(note) \(count)") }
                }
            ) { connection in
                try await connection.query("INSERT INTO items VALUES ($1)", [1])
                try await connection.query("SELECT set_config('spotter.note', 'noted', true)")
            }
            await #expect(throws: Boom.self) {
                try await pool.withTransaction(
                    closing: closing, committed: { _ in seen.withLock { $0.append("after a rollback") } }
                ) { connection in
                    try await connection.query("INSERT INTO items VALUES ($1)", [2])
                    throw Boom()
                }
            }
            #expect(seen.withLock { $0 } == ["noted 1"])
            await pool.shutdown()
        }
    }

    @Test("opening statements run in BEGIN's round trip, also after BEGIN is retried on a new connection")
    func openingStatements() async throws {
        try await TestDatabase.with { database in
            let pool = pool(database, .init(maxConnections: 1, healthCheckAfterIdle: .seconds(3600)))
            let opening: [(sql: String, parameters: [any PostgresEncodable])] = [
                ("SELECT set_config('spotter.test', $1, true)", ["first"])
            ]
            func setting() async throws -> String {
                try await pool.withTransaction(opening: opening) { connection in
                    try await connection.query("SELECT current_setting('spotter.test') AS value").single!.decode(
                        "value")
                }
            }
            #expect(try await setting() == "first")
            _ = try await terminateIdleConnection(of: pool, in: database)
            #expect(try await setting() == "first")
            // Local to the transaction: gone once it ends.
            let after: String? = try await pool.withConnection { connection in
                try await connection.query("SELECT current_setting('spotter.test', true) AS value").single!.decode(
                    "value")
            }
            #expect(after == nil || after == "")
            await pool.shutdown()
        }
    }

    private static func backend(_ connection: PostgresConnection) async throws -> Int32 {
        try await connection.query("SELECT pg_backend_pid() AS pid").single!.decode("pid")
    }

    @Test(
        "a reservation serves its task's statements and transactions from one connection; a second use at once, a child task and a task outliving the scope check out others"
    )
    func reservation() async throws {
        try await TestDatabase.with { database in
            let pool = pool(database, .init(maxConnections: 3))
            let (scopeEnded, endScope) = AsyncStream<Never>.makeStream()
            let (reserved, uses, pair, escaping) = try await pool.withReservedConnection {
                let reserved = try await pool.withConnection { try await Self.backend($0) }
                let uses = [
                    try await pool.withConnection { try await Self.backend($0) },
                    try await pool.withTransaction { try await Self.backend($0) },
                    try await pool.withTransaction(opening: [("SELECT 1", [])]) { try await Self.backend($0) },
                ]
                #expect(await pool.statistics().inUse == 1)
                // Nested: the reserved connection is busy, so the inner use checks out another.
                let pair = try await pool.withConnection { outer in
                    (try await Self.backend(outer), try await pool.withConnection { try await Self.backend($0) })
                }
                // A child task runs beside the scope's own work: it checks out its own.
                async let child = pool.withConnection { try await Self.backend($0) }
                #expect(try await child != reserved)
                // An unstructured task inherits the scope's task-locals and may outlive it.
                let escaping = Task {
                    for await _ in scopeEnded {}
                    return try await pool.withConnection { try await Self.backend($0) }
                }
                return (reserved, uses, pair, escaping)
            }
            endScope.finish()
            #expect(uses == [reserved, reserved, reserved])
            #expect(pair.0 == reserved && pair.1 != reserved)
            // After the scope the connection is the pool's again, handed out through a checkout.
            #expect(try await escaping.value != 0)
            let statistics = await pool.statistics()
            #expect(statistics.inUse == 0 && statistics.idle == 2)
            await pool.shutdown()
        }
    }

    @Test("a reserved connection the server dropped is replaced for the rest of the scope, then closed")
    func brokenReservation() async throws {
        try await TestDatabase.with { database in
            let pool = pool(database, .init(maxConnections: 2, healthCheckAfterIdle: .seconds(3600)))
            try await pool.withConnection { try await $0.execute("CREATE TABLE items (id int)") }
            let killer = try await database.ownerConnection()
            let (reserved, afterwards) = try await pool.withReservedConnection {
                let reserved = try await pool.withConnection { try await Self.backend($0) }
                try await killer.query("SELECT pg_terminate_backend($1)", [reserved])
                try await Task.sleep(for: .milliseconds(100))
                // BEGIN finds it dead and is retried on a new connection; later uses take that one's kind.
                try await pool.withTransaction { try await $0.query("INSERT INTO items VALUES ($1)", [1]) }
                return (reserved, try await pool.withConnection { try await Self.backend($0) })
            }
            await killer.close()
            #expect(afterwards != reserved)
            #expect(try await pool.withConnection { try await counter($0) } == 1)
            #expect(await pool.openConnections == 1)
            await pool.shutdown()
        }
    }

    @Test(
        "a call's first statement may open its transaction: the first transaction opened the same way runs in it with no BEGIN, any other use commits it first, and the scope's end commits one left open"
    )
    func transactionOpenedInReservation() async throws {
        try await TestDatabase.with { database in
            let pool = pool(database, .init(maxConnections: 2))
            try await pool.withConnection { try await $0.execute("CREATE TABLE items (id int)") }
            let acting: [(sql: String, parameters: [any PostgresEncodable])] = [
                ("SELECT set_config('spotter.test', $1, true)", ["a"])
            ]
            let opening: [(sql: String, parameters: [any PostgresEncodable])] = [
                ("SELECT txid_current()::bigint AS xid, set_config('spotter.test', 'a', true) AS test", [])
            ]
            func xid(_ rows: [PostgresRows]?) throws -> Int64 { try rows![0].single!.decode("xid") }
            func current(_ connection: PostgresConnection) async throws -> (xid: Int64, test: String?) {
                let row = try await connection.query(
                    "SELECT txid_current()::bigint AS xid, current_setting('spotter.test', true) AS test"
                ).single!
                return (try row.decode("xid"), try row.decode("test"))
            }

            // Outside a reservation nothing is sent.
            #expect(try await pool.beginInReservation(opening, standsFor: { _ in acting }) == nil)

            // The same opening: the transaction runs in the one already begun, and BEGIN is not sent again.
            let log = PostgresStatementLog()
            let (begun, inside) = try await PostgresStatementLog.$current.withValue(log) {
                try await pool.withReservedConnection {
                    let begun = try xid(try await pool.beginInReservation(opening, standsFor: { _ in acting }))
                    let inside = try await pool.withTransaction(opening: acting) { connection in
                        try await connection.query("INSERT INTO items VALUES (1)")
                        return try await current(connection)
                    }
                    return (begun, inside)
                }
            }
            #expect(inside.xid == begun && inside.test == "a")
            #expect(log.statements.filter { $0.sql.hasPrefix("BEGIN") }.count == 1)
            #expect(log.statements.filter { $0.sql == "COMMIT" }.count == 1)

            // Another opening (or isolation): committed, and a new transaction begun, in one round trip.
            let (first, other, serializable) = try await pool.withReservedConnection {
                let first = try xid(try await pool.beginInReservation(opening, standsFor: { _ in acting }))
                let other = try await pool.withTransaction(opening: [
                    ("SELECT set_config('spotter.test', 'b', true)", [])
                ]) {
                    try await current($0)
                }
                _ = try await pool.beginInReservation(opening, standsFor: { _ in acting })
                let serializable = try await pool.withTransaction(isolation: .serializable, opening: acting) {
                    try await current($0)
                }
                return (first, other, serializable)
            }
            #expect(other.xid != first && other.test == "b")
            #expect(serializable.xid != first && serializable.xid != other.xid && serializable.test == "a")

            // A statement outside a transaction commits it first; so does the scope's end, keeping its writes.
            let (opened, outside) = try await pool.withReservedConnection {
                let opened = try xid(
                    try await pool.beginInReservation(
                        [
                            (
                                "WITH x AS (INSERT INTO items VALUES (2) RETURNING 1) SELECT txid_current()::bigint AS xid FROM x",
                                []
                            )
                        ],
                        standsFor: { _ in nil }))
                return (opened, try await pool.withConnection { try await current($0) })
            }
            #expect(outside.xid != opened && (outside.test ?? "") == "")
            try await pool.withReservedConnection {
                _ = try await pool.beginInReservation(
                    [("INSERT INTO items VALUES (3)", [])], standsFor: { _ in nil })
            }
            // A failed statement leaves nothing open, and the error is the caller's.
            await #expect(throws: PostgresError.self) {
                try await pool.withReservedConnection {
                    _ = try await pool.beginInReservation(
                        [("INSERT INTO items VALUES (4)", []), ("SELECT 1 / 0", [])], standsFor: { _ in acting })
                }
            }
            let ids: [Int32] = try await pool.withConnection { connection in
                try await connection.query("SELECT id FROM items ORDER BY id").rows.map { try $0.decode("id") }
            }
            #expect(ids == [1, 2, 3])
            #expect(await pool.statistics().inUse == 0)
            await pool.shutdown()
        }
    }
}
