import Synchronization

/// One connection kept for one call: `withReservedConnection` and the transaction a call's first
/// statement may leave open for the call's own (`beginInReservation`).
extension PostgresPool {
    /// Checks out one connection for the whole of `body` (one RPC): `withConnection` and
    /// `withTransaction` called inside it use that connection whenever it is free, instead of
    /// checking one out and returning it each time, and `body` runs on the connection's queue. A
    /// call's authentication and its transaction then share one checkout and one thread, which saves
    /// the thread switches between Swift's cooperative pool and a connection's queue that a second
    /// checkout costs. Only the task that reserved it uses it: its child tasks and the tasks it
    /// starts (which may outlive `body`, and may run beside it) check out their own as usual.
    ///
    /// A transaction `beginInReservation` left open and no `withTransaction` took is committed when
    /// `body` ends. Inside another reservation of this pool, `body` just runs.
    @discardableResult
    public nonisolated func withReservedConnection<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        if let reservation = Self.reservation, reservation.pool === self { return try await body() }
        return try await withConnection { connection in
            let reservation = Reservation(pool: self, connection: connection, owner: Self.currentTask())
            let result: Result<T, any Error>
            do {
                result = .success(try await Self.$reservation.withValue(reservation) { try await body() })
            } catch {
                result = .failure(error)
            }
            if !reservation.end() {
                // A task still using it after the scope (it cannot be a child task) keeps a
                // connection that the pool must not hand out again.
                connection.markBroken()
            } else if reservation.takeOpenTransaction() != nil {
                do {
                    try await connection.queryIgnoringCancellation("COMMIT", [])
                } catch {
                    connection.markBroken()
                }
            }
            return try result.get()
        }
    }

    /// Inside `withReservedConnection`, by the task that made it: sends BEGIN and `statements` in
    /// one round trip and leaves the transaction open for the call. The first `withTransaction` of
    /// the call whose isolation is `isolation` and whose opening statements are those
    /// `standsFor(rows)` gives then runs in this transaction, without a round trip of its own (any
    /// other use of the connection commits it first). This is how a call's authentication opens
    /// the call's transaction acting as the tenant it found.
    ///
    /// Returns the statements' rows, or `nil`, having sent nothing, when there is no such
    /// reservation, its connection is busy or broken, or the connection was lost on the way (the
    /// caller then does its work the usual way, on another connection).
    public nonisolated func beginInReservation(
        isolation: PostgresIsolation = .readCommitted,
        _ statements: [(sql: String, parameters: [any PostgresEncodable])],
        standsFor opening: ([PostgresRows]) -> [(sql: String, parameters: [any PostgresEncodable])]?
    ) async throws -> [PostgresRows]? {
        guard let reservation = takeReservation() else { return nil }
        defer { reservation.release() }
        let connection = reservation.connection
        return try await connection.withExecutorPreference {
            let earlier: [(sql: String, parameters: [any PostgresEncodable])] =
                reservation.takeOpenTransaction() == nil ? [] : [("COMMIT", [])]
            let answers: [PostgresRows]
            do {
                answers = try await connection.pipeline(earlier + [(isolation.beginStatement, [])] + statements)
            } catch let error as PostgresError where error.kind == .connectionLost {
                connection.markBroken()
                return nil
            } catch {
                // A failed statement leaves the transaction aborted (or none open): end it.
                do {
                    try await connection.queryIgnoringCancellation("ROLLBACK", [])
                } catch {
                    connection.markBroken()
                }
                throw error
            }
            let rows = Array(answers.suffix(statements.count))
            reservation.setOpenTransaction(
                OpenTransaction(isolation: isolation, opening: opening(rows).map(Self.signature)))
            return rows
        }
    }

    /// The connection of the surrounding `withReservedConnection`, marked in use, when it belongs to
    /// this pool, this task made the reservation, and the connection is free and not broken.
    nonisolated func takeReservation() -> Reservation? {
        guard let reservation = Self.reservation, reservation.pool === self, reservation.owner == Self.currentTask(),
            !reservation.connection.isBroken, reservation.take()
        else { return nil }
        return reservation
    }

    /// The running task's identity (a task's task-locals are inherited by the tasks it starts; this
    /// is not).
    private static func currentTask() -> Int? {
        withUnsafeCurrentTask { $0?.hashValue }
    }

    /// Statements as text with their parameters' text, to compare.
    static func signature(_ statements: [(sql: String, parameters: [any PostgresEncodable])]) -> [String] {
        statements.map { statement in
            ([statement.sql] + statement.parameters.map { $0.postgresText ?? "\u{0}NULL" }).joined(separator: "\u{0}")
        }
    }

    @TaskLocal static var reservation: Reservation?

    /// A transaction `beginInReservation` left open: its isolation and the opening statements
    /// (`signature`) it stands for (`nil`: none, so no `withTransaction` runs in it).
    struct OpenTransaction: Sendable {
        var isolation: PostgresIsolation
        var opening: [String]?

        /// Whether a transaction with this isolation and these opening statements can run in it.
        func serves(_ isolation: PostgresIsolation, _ opening: [(sql: String, parameters: [any PostgresEncodable])])
            -> Bool
        {
            self.isolation == isolation && self.opening == PostgresPool.signature(opening)
        }
    }

    /// One connection kept for a scope: free, in use by one task, or ended (never handed out again),
    /// and the transaction left open on it, if any.
    final class Reservation: Sendable {
        let pool: PostgresPool
        let connection: PostgresConnection
        let owner: Int?
        private let state = Atomic<Int>(State.free)
        private let open = Mutex<OpenTransaction?>(nil)

        private enum State {
            static let free = 0
            static let inUse = 1
            static let ended = 2
        }

        init(pool: PostgresPool, connection: PostgresConnection, owner: Int?) {
            self.pool = pool
            self.connection = connection
            self.owner = owner
        }

        func take() -> Bool {
            state.compareExchange(expected: State.free, desired: State.inUse, ordering: .acquiring).exchanged
        }

        func release() {
            state.store(State.free, ordering: .releasing)
        }

        /// Ends the reservation; `false` when a task is using the connection at that moment.
        func end() -> Bool {
            state.exchange(State.ended, ordering: .acquiringAndReleasing) != State.inUse
        }

        /// The transaction left open on the connection, which the caller now ends or runs in.
        func takeOpenTransaction() -> OpenTransaction? {
            open.withLock { open in
                defer { open = nil }
                return open
            }
        }

        func setOpenTransaction(_ transaction: OpenTransaction) {
            open.withLock { $0 = transaction }
        }
    }
}
