import GRPCCore
import GRPCNIOTransportHTTP2
import ServiceLifecycle

/// Runs a `GRPCServer` as a lifecycle service: graceful shutdown stops accepting calls and lets
/// running ones finish.
struct GRPCServerService: Service {
    let server: GRPCServer<HTTP2ServerTransport.Posix>

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await server.serve()
        } onGracefulShutdown: {
            server.beginGracefulShutdown()
        }
    }
}
