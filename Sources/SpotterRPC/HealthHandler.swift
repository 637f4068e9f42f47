import GRPCCore
import SpotterProto
import Synchronization

/// Whether the server can serve right now (it cannot while PostgreSQL is unreachable), with a
/// stream of changes for `Health/Watch`.
public final class ServingState: Sendable {
    private struct State {
        var serving = false
        var watchers: [Int: AsyncStream<Bool>.Continuation] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    public init() {}

    public var isServing: Bool { state.withLock { $0.serving } }

    /// Records the current status and tells every watcher when it changed.
    public func set(serving: Bool) {
        let watchers: [AsyncStream<Bool>.Continuation] = state.withLock { state in
            guard state.serving != serving else { return [] }
            state.serving = serving
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.yield(serving) }
    }

    /// The current status at once, then every change, until `stop` is called or the consumer stops.
    public func watch() -> (updates: AsyncStream<Bool>, stop: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.watchers[id] = continuation
            continuation.yield(state.serving)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) }
        }
        return (stream, { continuation.finish() })
    }
}

/// `grpc.health.v1.Health` over a `ServingState`, for the whole server ("") and each service.
public struct HealthHandler: Grpc_Health_V1_Health.ServiceProtocol {
    private let state: ServingState
    private let services: Set<String>

    public init(state: ServingState, services: Set<String>) {
        self.state = state
        self.services = services.union([""])
    }

    public func check(
        request: ServerRequest<Grpc_Health_V1_HealthCheckRequest>,
        context: ServerContext
    ) async throws -> ServerResponse<Grpc_Health_V1_HealthCheckResponse> {
        guard services.contains(request.message.service) else {
            throw RPCError(code: .notFound, message: "unknown service '\(request.message.service)'")
        }
        return ServerResponse(message: .with { $0.status = state.isServing ? .serving : .notServing })
    }

    public func watch(
        request: ServerRequest<Grpc_Health_V1_HealthCheckRequest>,
        context: ServerContext
    ) async throws -> StreamingServerResponse<Grpc_Health_V1_HealthCheckResponse> {
        let known = services.contains(request.message.service)
        let (updates, stop) = state.watch()
        return StreamingServerResponse { writer in
            // gRPC signals a client going away, a deadline or server shutdown through the RPC
            // cancellation handle, not by cancelling this task: end the stream then.
            try await withRPCCancellationHandler {
                guard known else {
                    stop()
                    try await writer.write(.with { $0.status = .serviceUnknown })
                    try await context.cancellation.cancelled
                    return [:]
                }
                for await serving in updates {
                    try await writer.write(.with { $0.status = serving ? .serving : .notServing })
                }
                return [:]
            } onCancelRPC: {
                stop()
            }
        }
    }
}
