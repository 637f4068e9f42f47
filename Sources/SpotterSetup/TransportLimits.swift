/// The HTTP/2 server transport's limits, set explicitly rather than left to the library's defaults
/// (which hold an idle connection for ever and advertise no stream limit).
public struct TransportLimits: Sendable, Equatable {
    /// Streams one connection may have open at once; the server advertises it in SETTINGS.
    public var maxConcurrentStreams = 100
    /// A connection with no open stream for this long is told GOAWAY. (grpc-swift-nio-transport then
    /// pings and closes once the client answers.)
    public var maxIdleTime: Duration = .seconds(300)
    /// A connection still open with no stream this long after `maxIdleTime` is closed without
    /// waiting any more: a client that never answers the GOAWAY's ping does not keep its socket.
    public var idleCloseGrace: Duration = .seconds(30)
    /// A connection that has not finished its TLS handshake this long after it was accepted is closed.
    public var handshakeTimeout: Duration = .seconds(10)
    /// How long a call may take: its request message must arrive within it (or the call is
    /// answered DEADLINE_EXCEEDED without starting), and its handler must answer within it
    /// (`RequestInterceptor`'s deadline).
    public var callDeadline: Duration = .seconds(30)
    /// The largest request message; a larger one is answered RESOURCE_EXHAUSTED naming the limit,
    /// as soon as its length prefix arrives (before its bytes are buffered).
    public var maxRequestBytes = 4 * 1024 * 1024
    /// Connections open at once, in all and from one client address; one more is closed as soon as
    /// it is accepted, before any TLS work.
    public var maxConnections = 4096
    public var maxConnectionsPerAddress = 256
    /// The largest header list (names and values plus 32 bytes per field, as HTTP/2 counts it) a
    /// request may send. The transport advertises and enforces this value (swift-nio-http2's
    /// default) and has no setting for it; a larger list is a connection error (GOAWAY).
    public static let maxHeaderListBytes = 16_384

    public init() {}
}
