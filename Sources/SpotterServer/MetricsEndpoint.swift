import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// Serves `GET /metrics` (Prometheus text format) over plain HTTP/1.1 on `host:port`: meant for
/// loopback or a private network, like every Prometheus exporter. Anything else is 404.
struct MetricsEndpoint: Service {
    let host: String
    let port: Int
    let metrics: ServerMetrics
    let logger: Logger
    /// Told the bound port once listening (the tests bind port 0).
    let bound: @Sendable (Int) -> Void

    func run() async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        bound(server.channel.localAddress?.port ?? port)
        logger.notice(
            "metrics endpoint listening",
            metadata: ["address": "http://\(host):\(server.channel.localAddress?.port ?? port)/metrics"])
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask { try? await answer(connection) }
                    }
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
    }

    /// Answers each request on one connection until the client closes it.
    private func answer(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async throws {
        try await connection.executeThenClose { inbound, outbound in
            var request: HTTPRequestHead?
            for try await part in inbound {
                switch part {
                case .head(let head):
                    request = head
                case .body:
                    continue
                case .end:
                    guard let head = request else { continue }
                    let found = head.method == .GET && head.uri.split(separator: "?").first == "/metrics"
                    let body = found ? await metrics.scrape() : Array("not found: GET /metrics\n".utf8)
                    var headers = HTTPHeaders()
                    headers.add(
                        name: "Content-Type", value: found ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain")
                    headers.add(name: "Content-Length", value: "\(body.count)")
                    try await outbound.write(
                        .head(
                            HTTPResponseHead(version: head.version, status: found ? .ok : .notFound, headers: headers)))
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
                    try await outbound.write(.end(nil))
                    request = nil
                }
            }
        }
    }
}
