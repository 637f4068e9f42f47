import Logging
import SpotterCore

/// What the interceptor learned about the current call, visible to its handler.
public struct RequestContext: Sendable {
    /// A short id in every log line of the call and in internal-error messages.
    public var requestID: String
    /// The signed-in caller; `nil` only for the public methods.
    public var principal: Principal?
    /// The client's address without its port, for throttling.
    public var clientAddress: String
    /// The method's full name (`spotter.v1.WorkoutService/LogWorkout`).
    var method: String = ""
    /// The client's W3C trace context (`traceparent`), when it sent a well-formed one.
    var trace: (traceID: String, parentID: String)?
    /// The server's logger, without the call's metadata.
    var serverLogger: Logger

    init(requestID: String, principal: Principal?, clientAddress: String, logger: Logger) {
        self.requestID = requestID
        self.principal = principal
        self.clientAddress = clientAddress
        self.serverLogger = logger
    }

    /// A logger with the call's metadata: `request_id`, `method`, `address`, `trace_id` and
    /// `parent_span_id` when the client sent them, and `tenant` once the token is checked. Built
    /// when asked for, so a call that logs nothing (every call, at `SPOTTER_LOG_LEVEL=warning`)
    /// builds none of it.
    public var logger: Logger {
        var logger = serverLogger
        logger[metadataKey: "request_id"] = .string(requestID)
        if !method.isEmpty { logger[metadataKey: "method"] = .string(method) }
        logger[metadataKey: "address"] = .string(clientAddress)
        if let trace {
            logger[metadataKey: "trace_id"] = .string(trace.traceID)
            logger[metadataKey: "parent_span_id"] = .string(trace.parentID)
        }
        if let principal { logger[metadataKey: "tenant"] = "\(principal.tenantID)" }
        return logger
    }

    /// Whether a line at `level` would be written: ask before building `logger` for it.
    func logs(at level: Logger.Level) -> Bool {
        serverLogger.logLevel <= level
    }

    @TaskLocal public static var current: RequestContext?

    /// The signed-in principal of the current call.
    static func principal() throws -> Principal {
        guard let principal = current?.principal else {
            throw SpotterError.unauthenticated("this call needs an access token")
        }
        return principal
    }
}
