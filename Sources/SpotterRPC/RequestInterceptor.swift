import CoreMetrics
import Foundation
import GRPCCore
import Logging
import SpotterCore
import SpotterProto
import SwiftProtobuf
import Synchronization

/// Runs around every call: gives it a request id and a logger, authenticates the bearer token of
/// every method that is not public, bounds the handler's work by a deadline, maps errors for the
/// client, and logs the outcome.
public struct RequestInterceptor: ServerInterceptor {

    /// Methods callable without an access token (full names: `spotter.v1.AuthService/SignIn`).
    public static let publicMethods: Set<String> = [
        "spotter.v1.AuthService/Register",
        "spotter.v1.AuthService/VerifyEmail",
        "spotter.v1.AuthService/SignIn",
        "spotter.v1.AuthService/CompleteSignIn",
        "spotter.v1.AuthService/Refresh",
        "spotter.v1.AuthService/RequestPasswordReset",
        "spotter.v1.AuthService/CompletePasswordReset",
        "grpc.health.v1.Health/Check",
        "grpc.health.v1.Health/Watch",
        // Reflection describes the API, as the .proto files in the repository do; no data.
        "grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        "grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
    ]

    private let auth: AuthService
    private let logger: Logger
    private let deadline: Duration
    private let trustedProxies: TrustedProxies
    private let callMetrics: CallMetrics
    private let callScope: any CallScope
    /// Told when the server begins its graceful shutdown (`ShutdownSignal`).
    private let shutdown: ShutdownSignal?

    /// `deadline` is how long a call's handler may run (from reading its request to its answer, or
    /// for a streaming call to its first message) before the call ends DEADLINE_EXCEEDED
    /// (`TransportLimits.callDeadline`). `metrics` receives, per call: `spotter_rpc_calls_total{method,code}`,
    /// `spotter_rpc_duration_seconds{method}` (a histogram), `spotter_rpc_in_flight`, and for the
    /// sign-in calls `spotter_sign_in_attempts_total{result}` (ok, failed, throttled). `callScope` runs
    /// each call that carries a token and `keepsOneConnection`, from the token's lookup to the answer
    /// (the database's: one connection for the call).
    public init(
        auth: AuthService, logger: Logger, deadline: Duration,
        trustedProxies: TrustedProxies = .none, metrics: any MetricsFactory = NOOPMetricsHandler.instance,
        callScope: any CallScope = NoCallScope(), shutdown: ShutdownSignal? = nil
    ) {
        self.shutdown = shutdown
        self.auth = auth
        self.logger = logger
        self.deadline = deadline
        self.trustedProxies = trustedProxies
        self.callMetrics = CallMetrics(factory: metrics)
        self.callScope = callScope
    }

    /// The methods that stream requests or answers (`Watch`, `ExportAccount`, `ImportWorkouts`, …),
    /// from the services' file descriptors.
    static let streamingMethods: Set<String> = methods { $0.clientStreaming || $0.serverStreaming }

    /// The services' methods that `include` accepts, from their file descriptors.
    static func methods(where include: (Google_Protobuf_MethodDescriptorProto) -> Bool) -> Set<String> {
        guard let bytes = Data(base64Encoded: SpotterFileDescriptors.base64Set),
            let set = try? Google_Protobuf_FileDescriptorSet(serializedBytes: bytes)
        else { return [] }
        var methods: Set<String> = []
        for file in set.file {
            let prefix = file.package.isEmpty ? "" : file.package + "."
            for service in file.service {
                for method in service.method where include(method) {
                    methods.insert(prefix + service.name + "/" + method.name)
                }
            }
        }
        return methods
    }

    /// Unary calls that spend most of their time away from the database. A PNG share card waits for
    /// rsvg-convert (two render at a time, about 0.1–0.2 s each) after its reads; kept one connection
    /// each, a burst of them held the whole pool, and every other call waited behind them (with 100
    /// cards asked for at once, a `GetWorkout` waited 4 s). A run's footsteps are validated and
    /// analysed before its first statement (with their decoding, about 12 ms of CPU for 30 minutes,
    /// 100 ms for a marathon), which the token check's transaction spent idle: with 8 runs in
    /// flight, 4.9 of the pool's connections sat idle in a transaction on average. They check out a
    /// connection for each piece of database work instead.
    static let callsAwayFromTheDatabase: Set<String> = [
        "spotter.v1.ShareService/GetWorkoutCard", "spotter.v1.ShareService/GetProgressChart",
        "spotter.v1.RunService/LogRun",
    ]

    /// Whether a call of `method` with a token keeps one database connection from the token's
    /// lookup to its answer (`callScope`): a unary call does, unless it spends most of its time
    /// away from the database; a streaming call would hold it for as long as the stream lasts.
    static func keepsOneConnection(_ method: String) -> Bool {
        !streamingMethods.contains(method) && !callsAwayFromTheDatabase.contains(method)
    }

    /// Calls that may run longer than the usual deadline: an import of ten years of workouts takes
    /// seconds, and the largest file accepted (64 MiB) up to about a minute on a small server.
    static let longCalls: [String: Duration] = ["spotter.v1.TransferService/ImportWorkouts": .seconds(300)]

    /// How long `method`'s handler may run.
    static func deadline(for method: String, default deadline: Duration) -> Duration {
        max(deadline, longCalls[method] ?? deadline)
    }

    public func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingServerRequest<Input>,
        context: ServerContext,
        next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
    ) async throws -> StreamingServerResponse<Output> {
        let method = context.descriptor.fullyQualifiedMethod
        let started = ContinuousClock.now
        var requestContext = RequestContext(
            requestID: Self.newRequestID(),
            principal: nil,
            clientAddress: trustedProxies.clientAddress(
                peer: Self.address(of: context.remotePeer),
                forwardedFor: Array(request.metadata[stringValues: "x-forwarded-for"])),
            logger: logger
        )
        requestContext.method = method
        requestContext.trace = request.metadata[stringValues: "traceparent"].first(where: { _ in true }).flatMap(
            Self.traceContext)
        callMetrics.inFlight.increment()
        // Who the call was, for the log line of a call that then fails (a probe of another
        // tenant's ids is logged with the tenant that made it).
        let signedIn = Mutex<Principal?>(nil)
        do {
            let authenticated = !Self.publicMethods.contains(method)
            let token = authenticated ? Self.bearerToken(in: request.metadata) : ""
            if authenticated, token.isEmpty {
                throw SpotterError.unauthenticated("missing metadata 'authorization: Bearer <access token>'")
            }
            let scope: any CallScope =
                authenticated && Self.keepsOneConnection(method) ? callScope : NoCallScope()
            let readsFirst = authenticated && !Self.streamingMethods.contains(method)
            let unauthenticated = requestContext
            // `withDeadline` waits for its tasks before it returns, so `next` does not outlive this call.
            let (response, call) = try await withoutActuallyEscaping(next) { next in
                try await Self.withDeadline(Self.deadline(for: method, default: deadline), quiescing: shutdown) {
                    let request = readsFirst ? try await Self.received(request) : request
                    return try await scope.run {
                        var call = unauthenticated
                        if authenticated {
                            let principal = try await auth.authenticate(accessToken: token)
                            call.principal = principal
                            signedIn.withLock { $0 = principal }
                        }
                        let response = try await RequestContext.$current.withValue(call) {
                            try await next(Self.refusingZeroBytes(request), context)
                        }
                        return (response, call)
                    }
                }
            }
            return Self.recordingCompletion(
                of: response, CallRecord(call: call, started: started, metrics: callMetrics))
        } catch {
            requestContext.principal = signedIn.withLock { $0 }
            let mapped = RPCErrorMapping.map(error, call: requestContext)
            CallRecord(call: requestContext, started: started, metrics: callMetrics)
                .completed(code: Self.code(of: mapped))
            throw mapped
        }
    }

    /// What is recorded when a call ends: one `call completed` line at info with the duration and
    /// status code, and the call's metrics.
    struct CallRecord: Sendable {
        let call: RequestContext
        let started: ContinuousClock.Instant
        let metrics: CallMetrics

        func completed(code: String) {
            let elapsed = ContinuousClock.now - started
            if call.logs(at: .info) {
                call.logger.info(
                    "call completed",
                    metadata: ["ms": "\(RequestInterceptor.milliseconds(elapsed))", "code": "\(code)"])
            }
            metrics.completed(method: call.method, code: code, elapsed: elapsed)
        }
    }

    /// `response`, recording its completion (`CallRecord`) when its last message has been written
    /// (at once for a call refused before it began).
    static func recordingCompletion<Output: Sendable>(
        of response: StreamingServerResponse<Output>, _ record: CallRecord
    )
        -> StreamingServerResponse<Output>
    {
        var response = response
        switch response.accepted {
        case .success(var contents):
            let producer = contents.producer
            contents.producer = { writer in
                do {
                    let trailers = try await producer(writer)
                    record.completed(code: "ok")
                    return trailers
                } catch {
                    record.completed(code: code(of: error))
                    throw error
                }
            }
            response.accepted = .success(contents)
        case .failure(let error):
            record.completed(code: "\(error.code)")
        }
        return response
    }

    /// `body`'s result, unless `limit` passes first (then DEADLINE_EXCEEDED) or gRPC cancels the
    /// call (the client's deadline passed, it reset the stream, or the server is shutting down;
    /// then UNAVAILABLE): either way `body`'s task is cancelled and this throws once it has
    /// stopped. Database work stops at its next statement (and a running statement at the
    /// connection's `statement_timeout`); a wait for the request message, a pool connection or a
    /// password-hashing slot stops at once.
    ///
    /// One task runs `body`; the deadline is an entry in `CallDeadlines` and gRPC's cancellation a callback
    /// (`withRPCCancellationHandler`, on the RPC's cancellation handle that the transport sets for
    /// the call), so a call costs one task rather than three (`body`, a sleeping deadline task and
    /// a task waiting for cancellation, each started, woken and finished on every call).
    static func withDeadline<Result: Sendable>(
        _ limit: Duration, quiescing: ShutdownSignal? = nil, _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let task = Task { try await body() }
        let stopped = Mutex<DeadlineStop?>(nil)
        let stop: @Sendable (DeadlineStop) -> Void = { reason in
            let first = stopped.withLock { stopped in
                guard stopped == nil else { return false }
                stopped = reason
                return true
            }
            if first { task.cancel() }
        }
        let deadline = CallDeadlines.shared.add(after: limit) { stop(.deadlinePassed) }
        defer { CallDeadlines.shared.cancel(deadline) }
        let result = await withTaskCancellationHandler {
            await withRPCCancellationHandler {
                await task.result
            } onCancelRPC: {
                // A server that is shutting down cancels every running call (the transport's
                // quiescing); those finish instead, within their deadline, as the deploy notes
                // promise. Any other cancellation is the client's.
                if !(quiescing?.isSet ?? false) { stop(.cancelledByClient) }
            }
        } onCancel: {
            task.cancel()
        }
        switch stopped.withLock({ $0 }) {
        case nil:
            return try result.get()
        case .deadlinePassed:
            throw RPCError(
                code: .deadlineExceeded,
                message: "the call took longer than the server's limit of \(limit.components.seconds) s")
        case .cancelledByClient:
            // The client reset the stream, its own deadline passed (it no longer listens, and
            // reports DEADLINE_EXCEEDED itself), or the server is shutting down: a client that
            // still listens may retry elsewhere.
            throw RPCError(code: .unavailable, message: "the call was cancelled before it finished; retry")
        }
    }

    /// The trace id and parent span id of a W3C `traceparent` value
    /// (`00-<32 hex>-<16 hex>-<2 hex>`, ids not all zeros); `nil` for anything else, which is ignored.
    static func traceContext(_ value: String) -> (traceID: String, parentID: String)? {
        let parts = value.trimmingWhitespaces().split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].count == 2, parts[0] != "ff", parts[1].count == 32, parts[2].count == 16,
            parts[3].count == 2, parts[0] != "00" || parts.count == 4
        else { return nil }
        let hex = Set("0123456789abcdef")
        guard parts.prefix(4).allSatisfy({ $0.allSatisfy(hex.contains) }),
            parts[1].contains(where: { $0 != "0" }), parts[2].contains(where: { $0 != "0" })
        else { return nil }
        return (String(parts[1]), String(parts[2]))
    }

    /// `request` whose messages fail with `invalidArgument` when a string field holds a NUL.
    static func refusingZeroBytes<Input: Sendable>(_ request: StreamingServerRequest<Input>)
        -> StreamingServerRequest<Input>
    {
        var request = request
        request.messages = RPCAsyncSequence(
            wrapping: request.messages.map { message in
                if let message = message as? any SwiftProtobuf.Message { try ZeroByteCheck.check(message) }
                return message
            })
        return request
    }

    /// `request` with its messages already received and decoded (a unary call's one, and the end
    /// of its stream; or the first two, which its handler refuses). A unary call with a token reads
    /// its request first: for one that keeps one connection the token's check opens the call's
    /// transaction, which would otherwise wait idle while a slow network delivers the body (a
    /// run's footsteps or a push of 100 workouts are hundreds of kilobytes) and while it is
    /// decoded. The others read first too, so every unary call answers a bad request alike.
    static func received<Input: Sendable>(_ request: StreamingServerRequest<Input>) async throws
        -> StreamingServerRequest<Input>
    {
        var messages: [Input] = []
        for try await message in request.messages {
            messages.append(message)
            if messages.count == 2 { break }
        }
        var request = request
        request.messages = RPCAsyncSequence(wrapping: ReceivedMessages(messages: messages))
        return request
    }

    /// The token of `authorization: Bearer <token>`, or "" when there is none.
    static func bearerToken(in metadata: Metadata) -> String {
        for value in metadata[stringValues: "authorization"] {
            let parts = value.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                let token = parts[1].drop(while: \.isWhitespace)
                return String(
                    token[
                        ..<(token.lastIndex(where: { !$0.isWhitespace }).map(token.index(after:)) ?? token.startIndex)])
            }
        }
        return ""
    }

    /// `ipv4:127.0.0.1:5000` → `127.0.0.1`; `ipv6:[::1]:5000` → `::1`. Read as UTF-8 bytes (every
    /// character it looks for is ASCII): with `Character` comparisons it took 1.8 µs a call, 0.6 % of
    /// spotterd's CPU per history page; now 0.65 µs.
    static func address(of peer: String) -> String {
        var text = Substring(peer)
        for prefix in ["ipv4:", "ipv6:", "unix:"] where text.utf8.starts(with: prefix.utf8) {
            text = Substring(text.utf8.dropFirst(prefix.utf8.count))
        }
        let bytes = text.utf8
        if bytes.first == UInt8(ascii: "["), let end = bytes.firstIndex(of: UInt8(ascii: "]")) {
            return String(text[bytes.index(after: bytes.startIndex)..<end])
        }
        var colons = 0
        var lastColon = bytes.endIndex
        for index in bytes.indices where bytes[index] == UInt8(ascii: ":") {
            colons += 1
            lastColon = index
        }
        return String(colons == 1 ? text[..<lastColon] : text)
    }

    /// Twelve random lower-case hex digits.
    static func newRequestID() -> String {
        let digits: StaticString = "0123456789abcdef"
        var random = UInt64.random(in: 0..<(1 << 48))
        return String(unsafeUninitializedCapacity: 12) { text in
            digits.withUTF8Buffer { digits in
                for index in (0..<12).reversed() {
                    text[index] = digits[Int(random & 0x0f)]
                    random >>= 4
                }
            }
            return 12
        }
    }

    /// Milliseconds to the microsecond: `12.345`.
    static func milliseconds(_ elapsed: Duration) -> String {
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        let fraction = String(micros % 1000)
        return "\(micros / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    private static func code(of error: any Error) -> String {
        if let error = error as? any RPCErrorConvertible { return "\(error.rpcErrorCode)" }
        if let error = error as? RPCError { return "\(error.code)" }
        return "unknown"
    }
}

/// The instruments of the call metrics (`RequestInterceptor`), made once per method and outcome and
/// kept: asking the factory for one on every call had Prometheus check the name and look it up in
/// its registry under a lock, a few times per call.
final class CallMetrics: Sendable {
    let inFlight: Meter
    private let factory: any MetricsFactory
    private let instruments = Mutex<[String: MethodInstruments]>([:])
    private let signIns = Mutex<[String: Counter]>([:])

    /// A method's duration histogram and its calls counted by status code.
    private struct MethodInstruments {
        let duration: CoreMetrics.Timer
        var calls: [String: Counter] = [:]
    }

    init(factory: any MetricsFactory) {
        self.factory = factory
        inFlight = Meter(label: "spotter_rpc_in_flight", factory: factory)
    }

    /// Records a call of `method` that ended with `code` after `elapsed`.
    func completed(method: String, code: String, elapsed: Duration) {
        inFlight.decrement()
        let (calls, duration) = instruments.withLock { instruments in
            var entry =
                instruments[method]
                ?? MethodInstruments(
                    duration: CoreMetrics.Timer(
                        label: "spotter_rpc_duration_seconds", dimensions: [("method", method)], factory: factory))
            let calls =
                entry.calls[code]
                ?? Counter(
                    label: "spotter_rpc_calls_total", dimensions: [("method", method), ("code", code)],
                    factory: factory)
            if entry.calls[code] == nil {
                entry.calls[code] = calls
                instruments[method] = entry
            }
            return (calls, entry.duration)
        }
        calls.increment()
        duration.recordInterval(elapsed)
        if method.hasSuffix("AuthService/SignIn") || method.hasSuffix("AuthService/CompleteSignIn") {
            let result =
                switch code {
                case "ok": "ok"
                case "resourceExhausted": "throttled"
                default: "failed"
                }
            signIns.withLock { counters in
                let counter =
                    counters[result]
                    ?? Counter(
                        label: "spotter_sign_in_attempts_total", dimensions: [("result", result)], factory: factory)
                counters[result] = counter
                return counter
            }
            .increment()
        }
    }
}

extension CoreMetrics.Timer {
    /// Records `duration`, to the nanosecond.
    public func recordInterval(_ duration: Duration) {
        recordNanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }
}

/// Why `RequestInterceptor.withDeadline` cancelled the call's task.
private enum DeadlineStop: Sendable {
    case deadlinePassed
    case cancelledByClient
}

/// Messages already received, replayed to the handler (`RequestInterceptor.received`).
struct ReceivedMessages<Element: Sendable>: AsyncSequence, Sendable {
    let messages: [Element]

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: IndexingIterator<[Element]>

        mutating func next() async throws(any Error) -> Element? {
            remaining.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(remaining: messages.makeIterator())
    }
}

/// Set once the server begins its graceful shutdown (`GRPCServerService`). The transport then
/// cancels every running call (its quiescing); the interceptor lets those finish instead, within
/// their deadline, and only a client's cancellation stops a call.
public final class ShutdownSignal: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public var isSet: Bool { flag.load(ordering: .relaxed) }

    public func set() { flag.store(true, ordering: .relaxed) }
}
