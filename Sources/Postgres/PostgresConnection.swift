import CLibPQ
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One libpq connection.
///
/// libpq calls block, so every call runs on this connection's own serial dispatch queue: never on
/// a NIO event loop and never on Swift concurrency's cooperative threads. The `PGconn` handle lives
/// only inside this type. A connection is used by one task at a time (the pool guarantees it).
public final class PostgresConnection: @unchecked Sendable {
    /// Why the server or the connection failed: used by the pool to drop broken connections.
    public var isBroken: Bool { broken.load(ordering: .acquiring) }

    private let queue: DispatchQueue
    /// Runs a transaction's code on `queue` too, so its libpq calls need no thread hop.
    let executor: QueueExecutor
    // Touched only on `queue`.
    private var handle: OpaquePointer?
    private var statementNames: [String: String] = [:]
    private let broken = Atomic<Bool>(false)
    /// Told how long each statement took (`query`), for metrics; `nil` measures nothing.
    private let statementObserver: (@Sendable (Duration) -> Void)?
    private static let statementCacheLimit = 512
    private static let serial = Atomic<UInt64>(0)

    private init(handle: OpaquePointer, queue: DispatchQueue, statementObserver: (@Sendable (Duration) -> Void)?) {
        self.handle = handle
        self.queue = queue
        self.statementObserver = statementObserver
        self.executor = QueueExecutor(queue: queue)
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Opens a connection and prepares its session (UTC, ISO dates, no JIT, role, statement timeout).
    /// `statementObserver` is told how long each parameterized statement took.
    public static func connect(
        _ configuration: PostgresConfiguration, statementObserver: (@Sendable (Duration) -> Void)? = nil
    ) async throws -> PostgresConnection {
        let id = serial.add(1, ordering: .relaxed).newValue
        let queue = DispatchQueue(label: "spotter.postgres.connection.\(id)")
        queue.setSpecific(key: QueueExecutor.key, value: id)
        let connection: PostgresConnection = try await run(on: queue) {
            let keywords = ["dbname", "application_name", "connect_timeout"]
            let values = [configuration.connectionString, configuration.applicationName, "10"]
            // expand_dbname = 1: the dbname value is itself parsed as a full connection string.
            let handle = withCStrings(keywords) { keywordPointers in
                withCStrings(values) { valuePointers in
                    PQconnectdbParams(keywordPointers, valuePointers, 1)
                }
            }
            guard let handle else {
                throw PostgresError(kind: .connection, message: "out of memory opening a connection")
            }
            guard PQstatus(handle) == CONNECTION_OK else {
                let message = String(cString: PQerrorMessage(handle)).trimmingTrailingWhitespace()
                PQfinish(handle)
                throw PostgresError(kind: .connection, message: message)
            }
            // Server notices (such as "does not exist, skipping") are not errors; keep them off stderr.
            PQsetNoticeProcessor(handle, { _, _ in }, nil)
            return PostgresConnection(handle: handle, queue: queue, statementObserver: statementObserver)
        }
        // JIT off: PostgreSQL compiles a statement's expressions when the planner's cost estimate
        // passes `jit_above_cost`, and row-level security's subplans inflate the estimates of short
        // statements. A coach's client list (200 clients) was estimated at 765,000 and spent 1.1 s
        // compiling for 8 ms of work.
        var setup = "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'iso_8601'; SET jit = off;"
        if let timeout = configuration.statementTimeout {
            setup += " SET statement_timeout = \(timeout.wholeMilliseconds);"
        }
        do {
            try await connection.execute(setup)
            if let role = configuration.role {
                try await connection.setRole(role)
            }
        } catch {
            await connection.close()
            throw error
        }
        return connection
    }

    /// Runs a parameterized statement through a prepared statement cached on this connection.
    ///
    /// Throws `CancellationError` without starting when the task is already cancelled.
    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresEncodable] = []) async throws -> PostgresRows {
        try Task.checkCancellation()
        return try await queryIgnoringCancellation(sql, parameters)
    }

    /// Runs statements without parameters through the simple query protocol (several may be
    /// separated by semicolons), as migrations and transaction control do. Returns the last result.
    @discardableResult
    public func execute(_ sql: String) async throws -> PostgresRows {
        PostgresStatementLog.current?.record(sql, [])
        return try await onQueue { handle in
            let result = PQexec(handle, sql)
            return try self.consume(result, handle: handle)
        }
    }

    /// Checks that the server answers.
    public func ping() async -> Bool {
        guard !isBroken else { return false }
        do {
            try await execute("SELECT 1")
            return true
        } catch {
            return false
        }
    }

    /// Closes the connection; later calls fail.
    public func close() async {
        broken.store(true, ordering: .releasing)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                if let handle = self.handle { PQfinish(handle) }
                self.handle = nil
                continuation.resume()
            }
        }
    }

    /// Marks the connection unusable so its pool replaces it.
    package func markBroken() {
        broken.store(true, ordering: .releasing)
    }

    /// The server's version number, such as 150018.
    public func serverVersion() async throws -> Int {
        try await onQueue { handle in Int(PQserverVersion(handle)) }
    }

    /// Subscribes this session to `channel` (`LISTEN`); read what arrives with `notifications(timeout:)`.
    public func listen(_ channel: String) async throws {
        try await onQueue { handle in
            guard let quoted = PQescapeIdentifier(handle, channel, channel.utf8.count) else {
                throw PostgresError(kind: .server, message: "cannot quote channel name")
            }
            defer { PQfreemem(quoted) }
            _ = try self.consume(PQexec(handle, "LISTEN " + String(cString: quoted)), handle: handle)
        }
    }

    /// The notifications that arrive within `timeout` (none when it passes quietly). Blocks this
    /// connection's queue while it waits, so use a connection that does nothing else. Throws
    /// `connectionLost` when the server goes away.
    public func notifications(timeout: Duration) async throws -> [PostgresNotification] {
        let milliseconds = Int32(clamping: timeout.wholeMilliseconds)
        return try await onQueue { handle in
            var arrived = Self.drainNotifications(handle)
            guard arrived.isEmpty else { return arrived }
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            guard descriptor.fd >= 0 else { throw self.lost(handle) }
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0, errno != EINTR { throw self.lost(handle) }
            if ready > 0, PQconsumeInput(handle) == 0 || PQstatus(handle) != CONNECTION_OK {
                throw self.lost(handle)
            }
            arrived = Self.drainNotifications(handle)
            return arrived
        }
    }

    private static func drainNotifications(_ handle: OpaquePointer) -> [PostgresNotification] {
        var arrived: [PostgresNotification] = []
        while let notification = PQnotifies(handle) {
            arrived.append(
                PostgresNotification(
                    channel: String(cString: notification.pointee.relname),
                    payload: String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return arrived
    }

    private func lost(_ handle: OpaquePointer) -> PostgresError {
        broken.store(true, ordering: .releasing)
        let message = String(cString: PQerrorMessage(handle)).trimmingTrailingWhitespace()
        return PostgresError(kind: .connectionLost, message: message.isEmpty ? "connection lost" : message)
    }

    @discardableResult
    func queryIgnoringCancellation(
        _ sql: String, _ parameters: [any PostgresEncodable]
    ) async throws -> PostgresRows {
        let values = try PostgresParameters(parameters)
        PostgresStatementLog.current?.record(sql, values.texts)
        let started = statementObserver == nil ? nil : ContinuousClock.now
        defer { if let started { statementObserver?(ContinuousClock.now - started) } }
        return try await onQueue { handle in
            let result: OpaquePointer?
            if let name = try self.preparedName(for: sql, parameterCount: values.count, handle: handle) {
                result = values.withPointers { pointers in
                    PQexecPrepared(handle, name, Int32(values.count), pointers, nil, nil, 0)
                }
            } else {
                result = values.withPointers { pointers in
                    PQexecParams(handle, sql, Int32(values.count), nil, pointers, nil, nil, 0)
                }
            }
            return try self.consume(result, handle: handle)
        }
    }

    /// Runs `statements` in one round trip (libpq's pipeline mode): each is sent as
    /// `query` would send it, then one Sync, and their rows come back in order. When one fails,
    /// the later ones are not run and its error is thrown. Outside a transaction the statements
    /// form one implicit transaction, undone as a whole by a failure; inside one, a failure
    /// aborts it as after any failed statement.
    ///
    /// Throws `CancellationError` without starting when the task is already cancelled.
    @discardableResult
    public func pipeline(_ statements: [(sql: String, parameters: [any PostgresEncodable])]) async throws
        -> [PostgresRows]
    {
        try Task.checkCancellation()
        return try await pipelineIgnoringCancellation(statements)
    }

    /// How PostgreSQL plans a prepared statement (its `plan_cache_mode`).
    public enum Planning: String, Sendable {
        /// The statement's generic plan, made once for any values: for statements whose plan does not
        /// depend on their parameters' values, but whose plan for given values PostgreSQL estimates
        /// cheaper than the generic one, so that it would plan them afresh on every execution.
        case generic = "force_generic_plan"
        /// A plan for the values given, made on every execution: for statements whose best plan
        /// depends on the values (all of one tenant's rows: an index for a tenant with a few, the
        /// table for one with most of them), where a generic plan made from the statistics'
        /// average tenant can read a whole table for a tenant with a handful of rows.
        case custom = "force_custom_plan"

        /// The statement that sets `plan_cache_mode` to `mode` for the rest of the transaction.
        static func setting(_ mode: String) -> String {
            "SELECT set_config('plan_cache_mode', '\(mode)', true)"
        }

        /// This planning's `setting`, and the one that puts PostgreSQL's default back.
        var setting: String { Self.setting(rawValue) }
        static let automatic = setting("auto")
    }

    /// Runs `statements` in one round trip (`pipeline`) planned as `planning` says, then sets
    /// `plan_cache_mode` back to `auto` (PostgreSQL's default) for the rest of the transaction; returns
    /// the statements' rows. Use it inside a transaction (the setting is local to it).
    public func pipeline(_ statements: [(sql: String, parameters: [any PostgresEncodable])], planning: Planning)
        async throws -> [PostgresRows]
    {
        let answers = try await pipeline([(planning.setting, [])] + statements + [(Planning.automatic, [])])
        return Array(answers.dropFirst().prefix(statements.count))
    }

    /// Runs `body` with this connection's statements planned as `planning` says, then sets
    /// `plan_cache_mode` back to `auto` for the rest of the transaction (also when `body` throws, as
    /// far as the transaction allows). Use it inside a transaction (the setting is local to it): for
    /// a call's many statements whose plans depend on the tenant, where `pipeline(_:planning:)`
    /// cannot send them in one round trip.
    public func planned<T>(_ planning: Planning, _ body: () async throws -> T) async throws -> T {
        try await query(planning.setting)
        let result: T
        do {
            result = try await body()
        } catch {
            _ = try? await query(Planning.automatic)
            throw error
        }
        try await query(Planning.automatic)
        return result
    }

    @discardableResult
    func pipelineIgnoringCancellation(_ statements: [(sql: String, parameters: [any PostgresEncodable])])
        async throws -> [PostgresRows]
    {
        let sent = try statements.map { statement in
            (sql: statement.sql, values: try PostgresParameters(statement.parameters))
        }
        if let log = PostgresStatementLog.current {
            log.recordPipeline(sent.map { ($0.sql, $0.values.texts) })
        }
        let started = statementObserver == nil ? nil : ContinuousClock.now
        defer { if let started { statementObserver?(ContinuousClock.now - started) } }
        return try await onQueue { handle in
            // Statements new to this connection are prepared first, outside the pipeline.
            let names = try sent.map {
                try self.preparedName(for: $0.sql, parameterCount: $0.values.count, handle: handle)
            }
            guard PQenterPipelineMode(handle) == 1 else { throw self.lost(handle) }
            // Anything left half-sent or half-read makes the connection unusable: the pool drops it.
            var clean = false
            defer {
                if !clean { self.broken.store(true, ordering: .releasing) }
                PQexitPipelineMode(handle)
            }
            for (statement, name) in zip(sent, names) {
                let queued = statement.values.withPointers { pointers in
                    if let name {
                        PQsendQueryPrepared(handle, name, Int32(statement.values.count), pointers, nil, nil, 0)
                    } else {
                        PQsendQueryParams(
                            handle, statement.sql, Int32(statement.values.count), nil, pointers, nil, nil, 0)
                    }
                }
                guard queued == 1 else { throw self.lost(handle) }
            }
            guard PQpipelineSync(handle) == 1, PQflush(handle) == 0 else { throw self.lost(handle) }
            var answers: [PostgresRows] = []
            var failure: PostgresError?
            for _ in sent {
                guard let result = PQgetResult(handle) else { throw self.lost(handle) }
                switch PQresultStatus(result) {
                case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
                    answers.append(self.rows(from: result))
                    PQclear(result)
                case PGRES_PIPELINE_ABORTED:
                    PQclear(result)
                default:
                    failure = failure ?? self.error(from: result, handle: handle)
                    PQclear(result)
                }
                // Each statement's results end with a null result.
                guard PQgetResult(handle) == nil else { throw self.lost(handle) }
            }
            guard let sync = PQgetResult(handle) else { throw self.lost(handle) }
            let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
            PQclear(sync)
            guard synced else { throw self.lost(handle) }
            clean = true
            if let failure { throw failure }
            return answers
        }
    }

    private func setRole(_ role: String) async throws {
        try await onQueue { handle in
            guard let quoted = PQescapeIdentifier(handle, role, role.utf8.count) else {
                throw PostgresError(kind: .server, message: "cannot quote role name")
            }
            defer { PQfreemem(quoted) }
            let result = PQexec(handle, "SET ROLE " + String(cString: quoted))
            _ = try self.consume(result, handle: handle)
        }
    }

    /// The cached statement name for `sql`, preparing it on first use; `nil` once the cache is full.
    private func preparedName(for sql: String, parameterCount: Int, handle: OpaquePointer) throws -> String? {
        if let name = statementNames[sql] { return name }
        guard statementNames.count < Self.statementCacheLimit else { return nil }
        let name = "s\(statementNames.count)"
        let result = PQprepare(handle, name, sql, Int32(parameterCount), nil)
        _ = try consume(result, handle: handle)
        statementNames[sql] = name
        return name
    }

    /// Turns a libpq result into rows or an error, and frees it.
    private func consume(_ result: OpaquePointer?, handle: OpaquePointer) throws -> PostgresRows {
        defer { PQclear(result) }
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        switch status {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY, PGRES_SINGLE_TUPLE:
            return rows(from: result!)
        default:
            throw error(from: result, handle: handle)
        }
    }

    private func rows(from result: OpaquePointer) -> PostgresRows {
        let columnCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        let names = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        let index = ColumnIndex(names: names)
        var bytes: [UInt8] = []
        var ranges: [Range<Int>?] = []
        ranges.reserveCapacity(rowCount * columnCount)
        for row in 0..<Int32(rowCount) {
            for column in 0..<Int32(columnCount) {
                if PQgetisnull(result, row, column) == 1 {
                    ranges.append(nil)
                } else {
                    let length = Int(PQgetlength(result, row, column))
                    let start = bytes.count
                    PQgetvalue(result, row, column).withMemoryRebound(to: UInt8.self, capacity: length) {
                        bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
                    }
                    ranges.append(start..<start + length)
                }
            }
        }
        let values = ResultValues(bytes: bytes, ranges: ranges)
        let rows = (0..<rowCount).map { PostgresRow(columnIndex: index, values: values, first: $0 * columnCount) }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return PostgresRows(columns: names, rows: rows, affectedRows: affected)
    }

    private func error(from result: OpaquePointer?, handle: OpaquePointer) -> PostgresError {
        if PQstatus(handle) != CONNECTION_OK { return lost(handle) }
        guard let result else {
            return PostgresError(kind: .server, message: String(cString: PQerrorMessage(handle)))
        }
        func field(_ code: Character) -> String? {
            guard let pointer = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: pointer)
        }
        // Field codes from postgres_ext.h: S severity, C sqlstate, M message, D detail, H hint,
        // n constraint name, c column name, t table name.
        let sqlState = field("C")
        if sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03" {
            broken.store(true, ordering: .releasing)  // admin shutdown / crash shutdown / cannot connect now
        }
        return PostgresError(
            kind: .server,
            message: field("M") ?? String(cString: PQerrorMessage(handle)).trimmingTrailingWhitespace(),
            sqlState: sqlState,
            detail: field("D"),
            hint: field("H"),
            constraint: field("n"),
            column: field("c"),
            table: field("t")
        )
    }

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable (OpaquePointer) throws -> T) async throws -> T {
        try await Self.run(on: queue) {
            guard let handle = self.handle else {
                throw PostgresError(kind: .connectionLost, message: "connection is closed")
            }
            return try body(handle)
        }
    }

    /// Runs `body` with this connection's queue as the task's executor: the code between statements
    /// and the blocking libpq calls then share the queue's thread, and a statement costs no hop to
    /// another thread and back.
    public func withExecutorPreference<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(executor) { try await body() }
    }

    private static func run<T: Sendable>(
        on queue: DispatchQueue,
        _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        // Already on the queue (the task runs on `QueueExecutor`): call libpq right here.
        if let current = DispatchQueue.getSpecific(key: QueueExecutor.key),
            current == queue.getSpecific(key: QueueExecutor.key)
        {
            return try body()
        }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded down.
    public var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}

/// A `NOTIFY` received by a connection that listens.
public struct PostgresNotification: Sendable, Equatable {
    public var channel: String
    public var payload: String

    public init(channel: String, payload: String) {
        self.channel = channel
        self.payload = payload
    }
}

/// A task executor over a connection's serial queue.
final class QueueExecutor: TaskExecutor {
    /// Marks a connection's queue with the connection's serial number.
    static let key = DispatchSpecificKey<UInt64>()
    private let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

extension String {
    fileprivate func trimmingTrailingWhitespace() -> String {
        var text = self
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}

private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let pointers = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    return body(pointers.map { UnsafePointer($0) } + [nil])
}
