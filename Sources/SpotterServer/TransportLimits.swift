import GRPCNIOTransportHTTP2
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOSSL
import NIOTLS
import SpotterRPC

extension TransportLimits {
    /// The transport configuration with these limits. Keepalive stays at gRPC's values, stated here:
    /// the server pings a connection quiet for 2 hours and drops it after 20 s without an answer; a
    /// client may ping at most every 5 minutes while it has no call open (more often is abuse, and
    /// the connection is closed).
    /// TLS as the transport sets it up (TLS 1.2 or newer, ALPN h2), but with only forward-secret
    /// AEAD cipher suites for TLS 1.2: the library's defaults also offer CBC with SHA-1. TLS 1.3's
    /// suites are all AEAD.
    static func tlsContext(certificate: String, key: String) throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["grpc-exp", "h2"]
        tls.cipherSuiteValues = [
            .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
            .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
            .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        ]
        return try NIOSSLContext(configuration: tls)
    }

    /// The transport's configuration; `tls` replaces the TLS handler the library puts on each
    /// connection (it has no setting for cipher suites).
    func config(logger: Logger, tls: NIOSSLContext) -> HTTP2ServerTransport.Posix.Config {
        var config = HTTP2ServerTransport.Posix.Config.defaults
        config.http2.maxConcurrentStreams = maxConcurrentStreams
        config.connection.maxIdleTime = maxIdleTime
        config.connection.keepalive = .init(
            time: .seconds(2 * 60 * 60), timeout: .seconds(20),
            clientBehavior: .init(minPingIntervalWithoutCalls: .seconds(5 * 60), allowWithoutCalls: false))
        config.rpc.maxRequestPayloadSize = maxRequestBytes
        let handshake = TimeAmount(handshakeTimeout)
        let idleClose = TimeAmount(maxIdleTime + idleCloseGrace)
        let connections = ConnectionCounter(total: maxConnections, perAddress: maxConnectionsPerAddress)
        config.channelDebuggingCallbacks.onAcceptTCPConnection = { channel in
            channel.eventLoop.makeCompletedFuture {
                guard connections.admit(channel) else {
                    logger.notice(
                        "connection refused: too many open",
                        metadata: ["address": "\(channel.remoteAddress?.ipAddress ?? "?")"])
                    channel.close(promise: nil)
                    return
                }
                let pipeline = channel.pipeline.syncOperations
                let library = try pipeline.handler(type: NIOSSLServerHandler.self)
                let ours = NIOSSLServerHandler(context: tls)
                try pipeline.addHandler(ours, position: .before(library))
                pipeline.removeHandler(library, promise: nil)
                // The idle timer only runs once HTTP/2 has started; before that only this bounds a
                // socket that never finishes (or never starts) its TLS handshake.
                let deadline = HandshakeDeadline(timeout: handshake)
                try pipeline.addHandler(deadline, position: .after(ours))
                // Right behind TLS too: it must see the handshake's completion, which the
                // transport's protocol negotiation handler further on does not pass along.
                let closer = IdleConnectionCloser(after: idleClose)
                try pipeline.addHandler(closer, position: .after(deadline))
                try pipeline.addHandler(InboundBufferCompactor(), position: .after(closer))
            }
        }
        let limit = maxRequestBytes
        let deadline = callDeadline
        config.channelDebuggingCallbacks.onAcceptHTTP2Stream = { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(
                    RequestSizeGuard(limit: limit, deadline: deadline, logger: logger), position: .first)
                // A stream's channel shares its connection's event loop.
                if let closer = try? stream.parent?.pipeline.syncOperations.handler(type: IdleConnectionCloser.self) {
                    closer.streamOpened()
                    stream.closeFuture.assumeIsolated().whenComplete { _ in closer.streamClosed() }
                }
            }
        }
        return config
    }
}

/// Counts open connections, in all and per client address.
private final class ConnectionCounter: Sendable {
    private let total: Int
    private let perAddress: Int
    private let open = NIOLockedValueBox((total: 0, byAddress: [String: Int]()))

    init(total: Int, perAddress: Int) {
        self.total = total
        self.perAddress = perAddress
    }

    /// Counts `channel` in until it closes; `false` (counting nothing) when a limit is reached.
    func admit(_ channel: any Channel) -> Bool {
        let address = channel.remoteAddress?.ipAddress ?? ""
        let admitted = open.withLockedValue { open in
            guard open.total < total, open.byAddress[address, default: 0] < perAddress else { return false }
            open.total += 1
            open.byAddress[address, default: 0] += 1
            return true
        }
        if admitted {
            channel.closeFuture.whenComplete { _ in
                self.open.withLockedValue { open in
                    open.total -= 1
                    let left = open.byAddress[address, default: 1] - 1
                    open.byAddress[address] = left > 0 ? left : nil
                }
            }
        }
        return admitted
    }
}

/// Answers a request whose message is larger than the limit with RESOURCE_EXHAUSTED naming the
/// limit, as soon as the message's 5-byte gRPC length prefix arrives, before its bytes are
/// buffered. (The library would reset the stream, which clients report as CANCELLED.) The request's
/// HEADERS are held back until the prefix is known, so a refused request never starts an RPC; a
/// request whose prefix has not come within the call deadline is answered DEADLINE_EXCEEDED.
/// Every Spotter call sends one request message, so the first prefix is the one that counts.
private final class RequestSizeGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let limit: Int
    private let deadline: Duration
    private let logger: Logger
    private var prefix: [UInt8] = []
    /// Frames read before the prefix was complete, passed on in order once it is.
    private var held: [NIOAny] = []
    private var refused = false
    private var timer: Scheduled<Void>?

    init(limit: Int, deadline: Duration, logger: Logger) {
        self.limit = limit
        self.deadline = deadline
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: TimeAmount(deadline)) {
            let (guardHandler, context) = loopBound.value
            guard !guardHandler.refused else { return }
            guardHandler.answer(
                context: context, status: 4,
                message: "no request message within the server's limit of \(guardHandler.deadline.components.seconds) s"
            )
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data {
                prefix +=
                    buffer.getBytes(at: buffer.readerIndex, length: min(5 - prefix.count, buffer.readableBytes)) ?? []
            }
            held.append(data)
            if prefix.count == 5 || frame.endStream {
                let length = prefix.count == 5 ? prefix[1...4].reduce(0) { $0 << 8 | Int($1) } : 0
                length > limit ? refuse(context: context, length: length) : pass(context: context)
            }
        case .headers(let frame) where frame.endStream:
            // A request without a message: nothing to measure.
            held.append(data)
            pass(context: context)
        default:
            // The request's HEADERS, and anything else, wait for the prefix in order.
            held.append(data)
        }
    }

    /// Passes on what was held and leaves the pipeline. (A removed handler's context forwards
    /// nothing, so everything goes first.)
    private func pass(context: ChannelHandlerContext) {
        for frame in held { context.fireChannelRead(frame) }
        held = []
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func refuse(context: ChannelHandlerContext, length: Int) {
        logger.notice("request refused: message too large", metadata: ["bytes": "\(length)", "limit": "\(limit)"])
        answer(
            context: context, status: 8,
            message: "request message of \(length) bytes is larger than the limit of \(limit) bytes")
    }

    /// Ends the stream with `status` (a gRPC status code) and `message`, without starting the RPC.
    private func answer(context: ChannelHandlerContext, status: Int, message: String) {
        refused = true
        held = []
        timer?.cancel()
        let trailers: HPACKHeaders = [
            ":status": "200", "content-type": "application/grpc", "grpc-status": "\(status)", "grpc-message": message,
        ]
        context.write(wrapOutboundOut(.headers(.init(headers: trailers, endStream: true))), promise: nil)
        // Tells the client to stop sending the rest; the status is in the trailers before it.
        context.writeAndFlush(wrapOutboundOut(.rstStream(.noError)), promise: nil)
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
        // Passed on first: once this handler is removed its context forwards nothing.
        context.fireUserInboundEventTriggered(event)
        if case .handshakeCompleted = event as? TLSUserEvent {
            deadline?.cancel()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}

/// Passes each decrypted read on in a buffer of its own size. NIOSSL decrypts into one 32 kB buffer
/// per connection and passes that buffer on; the HTTP/2 frame decoder keeps the last buffer it was
/// given (also once it has read all of it), so NIOSSL's next read found its buffer shared and
/// allocated another 32 kB. Every connection, idle ones included, held two. Copying the bytes of a
/// read (a request's few hundred, usually) costs less than that: with 1,000 connections each
/// holding a Watch stream, about 26 kB less per connection (Benchmarks/README.md, "Connections
/// and memory").
final class InboundBufferCompactor: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        var copy = context.channel.allocator.buffer(capacity: buffer.readableBytes)
        copy.writeImmutableBuffer(buffer)
        context.fireChannelRead(wrapInboundOut(copy))
    }
}

/// Closes a connection that has had no open stream for `after` (the idle time plus a grace period)
/// since its TLS handshake or its last stream.
/// The transport's own idle handling sends GOAWAY and a ping and closes only when the ping is
/// answered; this is the bound for a client that never answers. Streams are counted by the
/// transport's stream initializer (`streamOpened`/`streamClosed`, on the connection's event loop).
private final class IdleConnectionCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let after: TimeAmount
    private var openStreams = 0
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(after: TimeAmount) {
        self.after = after
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// The clock starts once TLS is up (before that, `HandshakeDeadline` bounds the connection): a
    /// slow handshake must not eat into the idle time.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent, openStreams == 0 { startTimer() }
        context.fireUserInboundEventTriggered(event)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        self.context = nil
    }

    func streamOpened() {
        openStreams += 1
        timer?.cancel()
        timer = nil
    }

    func streamClosed() {
        openStreams -= 1
        if openStreams == 0 { startTimer() }
    }

    private func startTimer() {
        guard let channel = context?.channel else { return }
        timer?.cancel()
        timer = channel.eventLoop.scheduleTask(in: after) { channel.close(promise: nil) }
    }
}
