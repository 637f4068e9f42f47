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
    /// A logger with `request_id` (and `tenant` once known) metadata.
    public var logger: Logger

    @TaskLocal public static var current: RequestContext?

    /// The signed-in principal of the current call.
    static func principal() throws -> Principal {
        guard let principal = current?.principal else {
            throw SpotterError.unauthenticated("this call needs an access token")
        }
        return principal
    }
}
