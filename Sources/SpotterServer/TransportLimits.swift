import GRPCNIOTransportHTTP2
import NIOCore
import NIOSSL
import NIOTLS

/// The HTTP/2 server transport's limits, set explicitly rather than left to the library's defaults
/// (which hold an idle connection for ever and advertise no stream limit).
public struct TransportLimits: Sendable, Equatable {
    /// Streams one connection may have open at once; the server advertises it in SETTINGS.
    public var maxConcurrentStreams = 100
    /// A connection with no open stream for this long is told GOAWAY. (grpc-swift-nio-transport then
    /// pings and closes once the client answers; a client that never answers keeps its socket.)
    public var maxIdleTime: Duration = .seconds(300)
    /// A connection that has not finished its TLS handshake this long after it was accepted is closed.
    public var handshakeTimeout: Duration = .seconds(10)
    /// The largest request message; a larger one ends its stream.
    public var maxRequestBytes = 4 * 1024 * 1024

    public init() {}

    /// The transport configuration with these limits. Keepalive stays at gRPC's values, stated here:
    /// the server pings a connection quiet for 2 hours and drops it after 20 s without an answer; a
    /// client may ping at most every 5 minutes while it has no call open (more often is abuse, and
    /// the connection is closed).
    var config: HTTP2ServerTransport.Posix.Config {
        var config = HTTP2ServerTransport.Posix.Config.defaults
        config.http2.maxConcurrentStreams = maxConcurrentStreams
        config.connection.maxIdleTime = maxIdleTime
        config.connection.keepalive = .init(
            time: .seconds(2 * 60 * 60), timeout: .seconds(20),
            clientBehavior: .init(minPingIntervalWithoutCalls: .seconds(5 * 60), allowWithoutCalls: false))
        config.rpc.maxRequestPayloadSize = maxRequestBytes
        let handshake = TimeAmount.nanoseconds(
            handshakeTimeout.components.seconds * 1_000_000_000
                + handshakeTimeout.components.attoseconds / 1_000_000_000)
        config.channelDebuggingCallbacks.onAcceptTCPConnection = { channel in
            // The idle timer only runs once HTTP/2 has started; before that only this bounds a socket
            // that never finishes (or never starts) its TLS handshake.
            channel.eventLoop.makeCompletedFuture {
                let tls = try channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)
                try channel.pipeline.syncOperations.addHandler(
                    HandshakeDeadline(timeout: handshake), position: .after(tls))
            }
        }
        return config
    }
}

/// Closes a connection whose TLS handshake has not completed `timeout` after it was accepted; leaves
/// the pipeline once it has.
private final class HandshakeDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent {
            deadline?.cancel()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }
}
