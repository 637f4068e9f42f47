import Foundation
import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.SyncService`: devices, push, pull and the Watch stream.
///
/// Written against the service protocol rather than the simple one: a streaming response runs
/// after the interceptor has returned, so Watch must take the principal and its hub subscription
/// (which may be refused) while the call is still inside it.
public struct SyncHandler: Spotter_V1_SyncService.ServiceProtocol {
    private let sync: SyncService
    private let hub: SyncWatchHub
    private let auth: AuthService
    private let sessionCheckInterval: Duration
    private let now: @Sendable () -> Date

    /// A Watch stream checks its access token again every `sessionCheckInterval` and ends
    /// `UNAUTHENTICATED` once the token has expired, its session was revoked or the account was
    /// disabled.
    public init(
        sync: SyncService,
        hub: SyncWatchHub,
        auth: AuthService,
        sessionCheckInterval: Duration = .seconds(60),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.sync = sync
        self.hub = hub
        self.auth = auth
        self.sessionCheckInterval = sessionCheckInterval
        self.now = now
    }

    public func registerDevice(request: ServerRequest<Spotter_V1_RegisterDeviceRequest>, context: ServerContext)
        async throws -> ServerResponse<Spotter_V1_Device>
    {
        let device = try await sync.registerDevice(try RequestContext.principal(), label: request.message.label)
        return ServerResponse(message: Spotter_V1_Device(device))
    }

    public func listDevices(request: ServerRequest<Spotter_V1_ListDevicesRequest>, context: ServerContext)
        async throws -> ServerResponse<Spotter_V1_ListDevicesResponse>
    {
        let devices = try await sync.devices(try RequestContext.principal())
        return ServerResponse(message: .with { $0.devices = devices.map(Spotter_V1_Device.init) })
    }

    public func removeDevice(request: ServerRequest<Spotter_V1_RemoveDeviceRequest>, context: ServerContext)
        async throws -> ServerResponse<Spotter_V1_RemoveDeviceResponse>
    {
        try await sync.removeDevice(try RequestContext.principal(), deviceID: request.message.deviceID)
        return ServerResponse(message: Spotter_V1_RemoveDeviceResponse())
    }

    public func push(request: ServerRequest<Spotter_V1_PushRequest>, context: ServerContext) async throws
        -> ServerResponse<Spotter_V1_PushResponse>
    {
        let principal = try RequestContext.principal()
        let mutations = try request.message.mutations.enumerated().map { index, mutation in
            try Mutation(mutation, path: "mutations[\(index)].")
        }
        let results = try await sync.push(principal, deviceID: request.message.deviceID, mutations)
        return ServerResponse(
            message: .with { $0.results = results.map(Spotter_V1_MutationResult.init) })
    }

    public func pull(request: ServerRequest<Spotter_V1_PullRequest>, context: ServerContext) async throws
        -> ServerResponse<Spotter_V1_PullResponse>
    {
        let (principal, tenant) = try RequestContext.tenant()
        let page = try await sync.pull(
            principal, cursor: request.message.cursor, pageSize: Int(request.message.pageSize),
            deviceID: request.message.deviceID)
        let now = now()
        return ServerResponse(
            message: .with {
                $0.changes = page.changes.map { Spotter_V1_SyncChange($0, unit: tenant.unit, now: now) }
                $0.cursor = page.cursor.token
                $0.more = page.hasMore
                if let last = page.lastMutationID { $0.lastMutationID = last }
            })
    }

    public func watch(request: ServerRequest<Spotter_V1_WatchRequest>, context: ServerContext) async throws
        -> StreamingServerResponse<Spotter_V1_WatchEvent>
    {
        let events = try hub.subscribe(try RequestContext.principal().tenantID)
        let cancellation = context.cancellation
        let token = RequestInterceptor.bearerToken(in: request.metadata)
        let call = RequestContext.current
        return StreamingServerResponse { writer in
            // gRPC signals a client that went away through the cancellation handle, not by
            // cancelling this task: whichever comes first, the RPC's cancellation, the hub ending
            // the stream (the server stops) or the session ending, ends all three. Ending the
            // iteration removes the stream from the hub.
            try await withThrowingTaskGroup { group in
                group.addTask { try await cancellation.cancelled }
                group.addTask {
                    for await event in events {
                        try await writer.write(.with { $0.reason = event.proto() })
                    }
                }
                group.addTask {
                    do {
                        try await checkSession(token)
                    } catch let error as SpotterError {
                        // The interceptor has returned: map the error here, as it would have.
                        throw RPCErrorMapping.map(error, call: call)
                    }
                }
                _ = try await group.next()
                group.cancelAll()
            }
            return [:]
        }
    }

    private func checkSession(_ token: String) async throws {
        try await AccessTokenCheck(auth: auth, interval: sessionCheckInterval).run(token, stream: "Watch")
    }
}
