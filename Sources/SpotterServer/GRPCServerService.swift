import GRPCCore
import GRPCNIOTransportHTTP2
import ServiceLifecycle
import SpotterRPC

/// Runs a `GRPCServer` as a lifecycle service: graceful shutdown stops accepting calls and lets
/// running ones finish.
struct GRPCServerService: Service {
    let server: GRPCServer<HTTP2ServerTransport.Posix>
    /// The interceptor's: set before the transport quiesces, so running calls finish.
    let shutdown: ShutdownSignal

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await server.serve()
        } onGracefulShutdown: {
            // Before the transport quiesces: its cancellation of running calls is then not obeyed.
            shutdown.set()
            server.beginGracefulShutdown()
        }
    }
}
