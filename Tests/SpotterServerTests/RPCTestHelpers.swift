import GRPCCore
import SpotterProto

/// The error `body` failed with; `nil` when it succeeded, `.unknown` for a non-RPC error.
func rpcError(_ body: () async throws -> Void) async -> RPCError? {
    do {
        try await body()
        return nil
    } catch let error as RPCError {
        return error
    } catch {
        return RPCError(code: .unknown, message: "\(error)")
    }
}

/// The status code `body` failed with; `nil` when it succeeded, `.unknown` for a non-RPC error.
func rpcCode(_ body: () async throws -> Void) async -> RPCError.Code? {
    await rpcError(body)?.code
}

/// Registers lifter `name` over the API, signs in, and returns call metadata carrying the access
/// token.
func signUpLifter(
    _ client: GRPCClient<some ClientTransport>,
    _ name: String,
    timeZone: String = "",
    kind: Spotter_V1_TenantKind = .lifter
) async throws -> Metadata {
    let auth = Spotter_V1_AuthService.Client(wrapping: client)
    _ = try await auth.register(
        .with {
            $0.email = "\(name)@example.com"
            $0.username = name
            $0.password = "long enough \(name)"
            $0.kind = kind
            $0.timeZone = timeZone
        })
    let tokens = try await auth.signIn(
        .with {
            $0.login = name
            $0.password = "long enough \(name)"
        })
    return ["authorization": "Bearer \(tokens.accessToken)"]
}
