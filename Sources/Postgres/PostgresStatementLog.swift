import Synchronization

/// The statements a task sends, in order, with their parameters as sent: for tests that keep the
/// benchmark's same-SQL proxy (`Benchmarks/same-sql/`) in step with what the server really sends.
///
///     let log = PostgresStatementLog()
///     try await PostgresStatementLog.$current.withValue(log) { try await store.call() }
///     log.statements  // every statement of the call, transaction control included
///
/// Statements sent together in one round trip appear between `startPipeline` and `endPipeline`.
///
/// Only the task that set it (and its child tasks) is recorded; when no log is set, recording
/// costs one task-local read per statement.
public final class PostgresStatementLog: Sendable {
    public struct Statement: Sendable, Equatable {
        public var sql: String
        public var parameters: [String?]
    }

    @TaskLocal public static var current: PostgresStatementLog?

    private let recorded = Mutex<[Statement]>([])

    public init() {}

    public var statements: [Statement] { recorded.withLock { $0 } }

    func record(_ sql: String, _ parameters: [String?]) {
        recorded.withLock { $0.append(Statement(sql: sql, parameters: parameters)) }
    }

    /// Statements sent in one round trip (`PostgresConnection.pipeline`) are recorded between the
    /// markers pgbench's scripts use for the same thing: `\startpipeline` and `\endpipeline`.
    func recordPipeline(_ statements: [(sql: String, parameters: [String?])]) {
        recorded.withLock { recorded in
            recorded.append(Statement(sql: Self.startPipeline, parameters: []))
            recorded += statements.map { Statement(sql: $0.sql, parameters: $0.parameters) }
            recorded.append(Statement(sql: Self.endPipeline, parameters: []))
        }
    }

    /// The statements as round trips: each pipeline's statements together, each other statement
    /// alone.
    public var roundTrips: [[String]] {
        var trips: [[String]] = []
        var inPipeline = false
        for statement in statements {
            switch statement.sql {
            case Self.startPipeline: (trips, inPipeline) = (trips + [[]], true)
            case Self.endPipeline: inPipeline = false
            case let sql where inPipeline: trips[trips.count - 1].append(sql)
            case let sql: trips.append([sql])
            }
        }
        return trips
    }

    public static let startPipeline = "\\startpipeline"
    public static let endPipeline = "\\endpipeline"
}
