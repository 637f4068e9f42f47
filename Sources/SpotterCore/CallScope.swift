/// What one RPC keeps at hand from its authentication to its answer: the database layer keeps one
/// connection for the call (`PostgresPool.withReservedConnection`), so the token's lookup and the
/// call's own statements share it.
public protocol CallScope: Sendable {
    /// Runs `body` as one call.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T
}

/// A scope that keeps nothing: each piece of the call takes what it needs when it needs it.
public struct NoCallScope: CallScope {
    public init() {}

    public func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await body()
    }
}
