import GRPCCore
import GRPCProtobuf
import Logging
import SpotterCore
import SwiftProtobuf

/// Maps any error a handler throws to what the client sees. Domain errors keep their message;
/// anything else becomes INTERNAL with only the request id, and its details go to the log.
enum RPCErrorMapping {
    static func map(_ error: any Error, call: RequestContext?) -> any Error {
        switch error {
        case let error as SpotterError:
            return status(for: error)
        case let error as RPCError where error.code == .invalidArgument && error.message.hasPrefix("Can't deserialize"):
            // grpc-swift-protobuf names the Swift type ("Spotter_V1_LogWorkoutRequest"); a client
            // wants the reason in the protocol's words.
            return RPCError(code: .invalidArgument, message: unreadable(error.cause))
        case let error as RPCError:
            return error
        case let error as GoogleRPCStatus:
            return error
        case is CancellationError:
            return RPCError(code: .cancelled, message: "the call was cancelled")
        default:
            let logger = call?.logger ?? Logger(label: "spotter")
            logger.error("internal error", metadata: ["error": "\(String(reflecting: error))"])
            return RPCError(code: .internalError, message: "internal error (request id \(call?.requestID ?? ""))")
        }
    }

    /// Why a request message could not be read, in the protocol's words.
    static func unreadable(_ cause: (any Error)?) -> String {
        let why: String =
            switch cause as? BinaryDecodingError {
            case .invalidUTF8?: "a string field is not valid UTF-8"
            case .truncated?: "it ends in the middle of a field"
            case .malformedProtobuf?: "it is not well-formed protobuf"
            case .messageDepthLimit?: "its messages are nested too deeply"
            default: cause.map { "\($0)" } ?? "it is not well-formed protobuf"
            }
        return "the request is not a readable message of this method's request type: \(why)"
    }

    /// The `google.rpc.ErrorInfo` reason of a pull that must start over.
    static let syncResetReason = "SYNC_RESET_REQUIRED"
    /// The `google.rpc.ErrorInfo` reasons of a PERMISSION_DENIED an app acts on: a tier gate
    /// (metadata `tier`: the `Tier` value that unlocks it, as `TIER_PRO`), and a coach's read of a
    /// scope the client has not granted (metadata `scope`: `history`, `details`, …).
    static let tierRequiredReason = "TIER_REQUIRED"
    static let scopeNotGrantedReason = "SCOPE_NOT_GRANTED"
    /// The `google.rpc.ErrorInfo` reasons of an UNAUTHENTICATED for an access token that no longer
    /// works: refresh it, or sign in again.
    static let accessTokenExpiredReason = "ACCESS_TOKEN_EXPIRED"
    static let sessionEndedReason = "SESSION_ENDED"

    /// How many violations a refusal's message names, and how many its BadRequest details carry.
    static let maximumViolationsListed = 10
    static let maximumViolationDetails = 40

    static func status(for error: SpotterError) -> GoogleRPCStatus {
        switch error {
        case .notFound(let message):
            return GoogleRPCStatus(code: .notFound, message: message, details: [])
        case .alreadyExists(let field, let reason):
            return GoogleRPCStatus(
                code: .alreadyExists,
                message: "\(field): \(reason)",
                details: [.badRequest(violations: [.init(field: field, description: reason)])]
            )
        case .invalidArgument(let violations):
            // Both go in the trailers, which clients cap (gRPC's C core at 16 KiB): a workout of 100
            // bad sets named every one and reached the app as RESOURCE_EXHAUSTED, not as a refusal.
            let listed = violations.prefix(maximumViolationsListed)
            let more = violations.count - listed.count
            return GoogleRPCStatus(
                code: .invalidArgument,
                message: Array(listed).listed
                    + (more > 0 ? "; and \(more) more (the first \(maximumViolationDetails) are in the details)" : ""),
                details: [
                    .badRequest(
                        violations: violations.prefix(maximumViolationDetails).map {
                            .init(field: $0.field, description: String($0.reason.prefix(300)))
                        })
                ]
            )
        case .failedPrecondition(let message):
            return GoogleRPCStatus(code: .failedPrecondition, message: message, details: [])
        case .permissionDenied(let message):
            return GoogleRPCStatus(code: .permissionDenied, message: message, details: [])
        case .tierRequired(let message, let tier):
            // As the API's `Tier` enum names it.
            let name = "TIER_" + tier.rawValue.uppercased()
            return GoogleRPCStatus(
                code: .permissionDenied, message: message,
                details: [.errorInfo(reason: tierRequiredReason, domain: "spotter.dev", metadata: ["tier": name])])
        case .scopeNotGranted(let message, let scope):
            return GoogleRPCStatus(
                code: .permissionDenied, message: message,
                details: [
                    .errorInfo(
                        reason: scopeNotGrantedReason, domain: "spotter.dev", metadata: ["scope": scope.rawValue])
                ])
        case .unauthenticated(let message, let token):
            let reason = token.map { $0 == .expired ? accessTokenExpiredReason : sessionEndedReason }
            return GoogleRPCStatus(
                code: .unauthenticated, message: message,
                details: reason.map { [.errorInfo(reason: $0, domain: "spotter.dev", metadata: [:])] } ?? [])
        case .tooManyRequests(let message, let seconds):
            return GoogleRPCStatus(
                code: .resourceExhausted,
                message: message,
                details: [.retryInfo(delay: .seconds(seconds))]
            )
        case .unavailable(let message):
            return GoogleRPCStatus(code: .unavailable, message: message, details: [])
        case .syncReset(let message):
            return GoogleRPCStatus(
                code: .failedPrecondition,
                message: message,
                details: [.errorInfo(reason: syncResetReason, domain: "spotter.dev", metadata: [:])]
            )
        }
    }
}
