import Logging
import Synchronization

/// A bounded pool of connections, shared by the server, the CLI and the tests.
///
/// A checkout waits at most `checkoutTimeout` for a free connection. A connection that has been
/// idle for longer than `healthCheckAfterIdle` is pinged before it is handed out, and a broken one
/// is replaced by a new one, so callers do not see connections the server dropped while idle.
public actor PostgresPool {
    /// Pool limits and health checking.
    public struct Options: Sendable {
        public var maxConnections: Int
        public var checkoutTimeout: Duration
        public var healthCheckAfterIdle: Duration
        /// Told of checkout waits and statement durations (metrics).
        public var observer: Observer?

        public init(
            maxConnections: Int = 10,
            checkoutTimeout: Duration = .seconds(5),
            healthCheckAfterIdle: Duration = .seconds(10),
            observer: Observer? = nil
        ) {
            self.maxConnections = maxConnections
            self.checkoutTimeout = checkoutTimeout
            self.healthCheckAfterIdle = healthCheckAfterIdle
            self.observer = observer
        }
    }

    /// What the pool reports as it works: how long each checkout waited for a connection, and how
    /// long each statement on its connections took.
    public struct Observer: Sendable {
        public var checkedOut: @Sendable (Duration) -> Void
        public var statementFinished: @Sendable (Duration) -> Void

        public init(
            checkedOut: @escaping @Sendable (Duration) -> Void,
            statementFinished: @escaping @Sendable (Duration) -> Void
        ) {
            self.checkedOut = checkedOut
            self.statementFinished = statementFinished
        }
    }

    /// The pool's connections and waiting checkouts at one moment.
    public struct Statistics: Sendable, Equatable {
        public var idle: Int
        public var inUse: Int
        public var waiting: Int
        public var maxConnections: Int
    }

    public func statistics() -> Statistics {
        Statistics(
            idle: idle.count, inUse: open - idle.count, waiting: waiters.count, maxConnections: options.maxConnections)
    }

    private struct Idle {
        var connection: PostgresConnection
        var since: ContinuousClock.Instant
    }

    private struct Waiter {
        var id: UInt64
        /// When the checkout gives up (`checkoutTimeout` after it began to wait).
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<PostgresConnection, any Error>
    }

    public nonisolated let configuration: PostgresConfiguration
    public nonisolated let options: Options
    private let logger: Logger
    private var idle: [Idle] = []
    /// Checkouts waiting for a connection, in the order they began to wait (so their deadlines
    /// are in order too).
    private var waiters: [Waiter] = []
    /// Fails waiting checkouts at their deadlines; running while any wait.
    private var reaper: Task<Void, Never>?
    private var open = 0
    private var nextWaiterID: UInt64 = 0
    private var closed = false

    public init(configuration: PostgresConfiguration, options: Options = Options(), logger: Logger) {
        self.configuration = configuration
        self.options = options
        self.logger = logger
    }

    /// Checks out a connection for the duration of `body` and returns it afterwards (inside
    /// `withReservedConnection`, takes the reserved one when it is free).
    @discardableResult
    public nonisolated func withConnection<T: Sendable>(
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        if let reservation = takeReservation() {
            defer { reservation.release() }
            let connection = reservation.connection
            return try await connection.withExecutorPreference {
                // A statement outside a transaction: end the one left open first.
                if reservation.takeOpenTransaction() != nil {
                    do {
                        try await connection.queryIgnoringCancellation("COMMIT", [])
                    } catch {
                        connection.markBroken()
                        throw error
                    }
                }
                return try await body(connection)
            }
        }
        let connection = try await timedCheckout()
        do {
            let value = try await connection.withExecutorPreference { try await body(connection) }
            await checkin(connection)
            return value
        } catch {
            await checkin(connection)
            throw error
        }
    }

    /// Runs `body` in a transaction that always ends: COMMIT when `body` returns, ROLLBACK when it
    /// throws or the task was cancelled meanwhile (then `CancellationError` is thrown).
    ///
    /// `opening` statements (such as setting the transaction's tenant) are sent with BEGIN in one
    /// round trip, before `body` runs. `closing`, when given, is sent in COMMIT's round trip just
    /// before it; once the commit has succeeded, `committed` gets its rows.
    ///
    /// A connection found broken at BEGIN, before any of `body` ran, is replaced and BEGIN retried
    /// once, so a restarted database costs the caller nothing.
    ///
    /// Inside `withReservedConnection`, on a transaction `beginInReservation` left open: `body` runs
    /// in it when its isolation and opening statements are these (no BEGIN is sent); otherwise it
    /// is committed in BEGIN's round trip.
    @discardableResult
    public nonisolated func withTransaction<T: Sendable>(
        isolation: PostgresIsolation = .readCommitted,
        opening: [(sql: String, parameters: [any PostgresEncodable])] = [],
        closing: (sql: String, parameters: [any PostgresEncodable])? = nil,
        committed: (PostgresRows) async -> Void = { _ in },
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            let reservation = takeReservation()
            let connection: PostgresConnection
            if let reservation {
                connection = reservation.connection
            } else {
                connection = try await timedCheckout()
            }
            // The reserved connection goes back to its reservation, any other to the pool.
            let checkin: (PostgresConnection) async -> Void = { connection in
                if let reservation { reservation.release() } else { await self.checkin(connection) }
            }
            // A transaction the call's first statement left open for it (`beginInReservation`).
            let open = reservation?.takeOpenTransaction()
            // BEGIN, the body and COMMIT all run on the connection's queue (no hop per statement).
            let outcome: TransactionAttempt<T> = try await connection.withExecutorPreference {
                do {
                    if let open, open.serves(isolation, opening) {
                        // Already begun, acting as `opening` would make it: nothing to send.
                    } else if open != nil {
                        try await connection.pipelineIgnoringCancellation(
                            [("COMMIT", []), (isolation.beginStatement, [])] + opening)
                    } else if opening.isEmpty {
                        try await connection.queryIgnoringCancellation(isolation.beginStatement, [])
                    } else {
                        try await connection.pipelineIgnoringCancellation([(isolation.beginStatement, [])] + opening)
                    }
                } catch let error as PostgresError where error.kind == .connectionLost && attempt == 1 {
                    connection.markBroken()
                    await checkin(connection)
                    return .retry
                } catch {
                    await checkin(connection)
                    throw error
                }
                do {
                    let value = try await body(connection)
                    if Task.isCancelled {
                        await rollback(connection)
                        await checkin(connection)
                        throw CancellationError()
                    }
                    if let closing {
                        let answers = try await connection.pipelineIgnoringCancellation([closing, ("COMMIT", [])])
                        await committed(answers[0])
                    } else {
                        try await connection.queryIgnoringCancellation("COMMIT", [])
                    }
                    await checkin(connection)
                    return .done(value)
                } catch {
                    await rollback(connection)
                    await checkin(connection)
                    throw error
                }
            }
            if case .done(let value) = outcome { return value }
        }
    }

    /// Closes idle connections and refuses new checkouts; connections in use close on return.
    public func shutdown() async {
        closed = true
        let connections = idle.map(\.connection)
        idle.removeAll()
        open -= connections.count
        for waiter in waiters {
            waiter.continuation.resume(throwing: PostgresError(kind: .poolClosed, message: "pool is shut down"))
        }
        waiters.removeAll()
        reaper?.cancel()
        for connection in connections { await connection.close() }
    }

    /// Connections open now, in use or idle.
    public var openConnections: Int { open }

    private nonisolated func rollback(_ connection: PostgresConnection) async {
        do {
            try await connection.queryIgnoringCancellation("ROLLBACK", [])
        } catch {
            // A connection whose transaction state is unknown must never be reused.
            connection.markBroken()
        }
    }

    /// `checkout()`, telling the observer how long it took.
    private nonisolated func timedCheckout() async throws -> PostgresConnection {
        guard let observer = options.observer else { return try await checkout() }
        let started = ContinuousClock.now
        let connection = try await checkout()
        observer.checkedOut(ContinuousClock.now - started)
        return connection
    }

    private func checkout() async throws -> PostgresConnection {
        guard !closed else { throw PostgresError(kind: .poolClosed, message: "pool is shut down") }
        while let candidate = idle.popLast() {
            if ContinuousClock.now - candidate.since < options.healthCheckAfterIdle, !candidate.connection.isBroken {
                return candidate.connection
            }
            if await candidate.connection.ping() { return candidate.connection }
            logger.info("replacing a broken database connection")
            open -= 1
            await candidate.connection.close()
        }
        if open < options.maxConnections {
            open += 1
            do {
                return try await PostgresConnection.connect(
                    configuration, statementObserver: options.observer?.statementFinished)
            } catch {
                open -= 1
                throw error
            }
        }
        return try await waitForConnection()
    }

    private func waitForConnection() async throws -> PostgresConnection {
        nextWaiterID += 1
        let id = nextWaiterID
        let deadline = ContinuousClock.now + options.checkoutTimeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiters.append(Waiter(id: id, deadline: deadline, continuation: continuation))
                if reaper == nil {
                    reaper = Task { await self.reap() }
                }
            }
        } onCancel: {
            Task { await self.failWaiter(id, with: CancellationError()) }
        }
    }

    /// Times out waiting checkouts, one task for all of them rather than a timer each (under load
    /// most checkouts wait): sleeps until the longest-waiting checkout's deadline, fails those past
    /// theirs, and ends when none wait.
    private func reap() async {
        while true {
            let now = ContinuousClock.now
            while let first = waiters.first, first.deadline <= now {
                waiters.removeFirst().continuation.resume(
                    throwing: PostgresError(
                        kind: .poolTimeout, message: "no database connection free within \(options.checkoutTimeout)"))
            }
            guard let next = waiters.first?.deadline, !closed else {
                reaper = nil
                return
            }
            try? await Task.sleep(until: next, clock: .continuous)
        }
    }

    private func failWaiter(_ id: UInt64, with error: any Error) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: error)
    }

    private func checkin(_ connection: PostgresConnection) async {
        if connection.isBroken || closed {
            open -= 1
            await connection.close()
            if !waiters.isEmpty, !closed { replaceForWaiter() }
            return
        }
        if !waiters.isEmpty {
            waiters.removeFirst().continuation.resume(returning: connection)
        } else {
            idle.append(Idle(connection: connection, since: .now))
        }
    }

    /// Opens a connection in place of a broken one for the longest-waiting checkout.
    private func replaceForWaiter() {
        open += 1
        Task {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration, statementObserver: self.options.observer?.statementFinished)
                await self.handOver(connection)
            } catch {
                self.failOldestWaiter(error)
            }
        }
    }

    private func handOver(_ connection: PostgresConnection) async {
        if waiters.isEmpty {
            idle.append(Idle(connection: connection, since: .now))
        } else {
            waiters.removeFirst().continuation.resume(returning: connection)
        }
    }

    private func failOldestWaiter(_ error: any Error) {
        open -= 1
        if !waiters.isEmpty { waiters.removeFirst().continuation.resume(throwing: error) }
    }
}

/// Transaction isolation levels.
public enum PostgresIsolation: Sendable {
    case readCommitted
    case repeatableRead
    case serializable

    var beginStatement: String {
        switch self {
        case .readCommitted: "BEGIN ISOLATION LEVEL READ COMMITTED"
        case .repeatableRead: "BEGIN ISOLATION LEVEL REPEATABLE READ"
        case .serializable: "BEGIN ISOLATION LEVEL SERIALIZABLE"
        }
    }
}

/// Whether a transaction ran, or must be retried on a fresh connection.
private enum TransactionAttempt<T: Sendable>: Sendable {
    case retry
    case done(T)
}
