import Foundation
import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.SessionService`: guided sessions, and following one live.
public struct SessionHandler: Spotter_V1_SessionService.SimpleServiceProtocol {
    private let sessions: GuidedSessionService
    private let hub: SyncWatchHub
    private let tokens: AccessTokenCheck
    private let now: @Sendable () -> Date

    /// A WatchSession stream checks its access token again every `sessionCheckInterval`, as Watch does.
    public init(
        sessions: GuidedSessionService, hub: SyncWatchHub, auth: AuthService,
        sessionCheckInterval: Duration = .seconds(60), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.sessions = sessions
        self.hub = hub
        self.tokens = AccessTokenCheck(auth: auth, interval: sessionCheckInterval)
        self.now = now
    }

    public func startSession(request: Spotter_V1_StartGuidedSessionRequest, context: ServerContext) async throws
        -> Spotter_V1_GuidedSession
    {
        let start: GuidedSessionStart
        switch request.from {
        case .templateID(let id): start = .template(id)
        case .programDay(true): start = .programDay
        case .emptyName(let name): start = .empty(name: name)
        case .programDay(false), nil:
            throw SpotterError.invalid("from", "is required: a template_id, program_day or empty_name")
        }
        return try await answer { try await sessions.start($0, id: request.sessionID, start) }
    }

    public func getSession(request: Spotter_V1_GuidedSessionRequest, context: ServerContext) async throws
        -> Spotter_V1_GuidedSession
    {
        try await answer { try await sessions.get($0, id: request.sessionID) }
    }

    public func listGuidedSessions(request: Spotter_V1_ListGuidedSessionsRequest, context: ServerContext)
        async throws -> Spotter_V1_ListGuidedSessionsResponse
    {
        let (principal, tenant) = try RequestContext.tenant()
        let list = try await sessions.list(principal, limit: Int(request.limit))
        let at = now()
        return .with { $0.sessions = list.map { Spotter_V1_GuidedSession($0, unit: tenant.unit, at: at) } }
    }

    public func startSet(request: Spotter_V1_GuidedSetRequest, context: ServerContext) async throws
        -> Spotter_V1_GuidedSession
    {
        try await answer {
            try await sessions.startSet(
                $0, id: request.sessionID, exercise: Int(request.exerciseIndex), set: Int(request.setIndex))
        }
    }

    public func recordSet(request: Spotter_V1_RecordGuidedSetRequest, context: ServerContext) async throws
        -> Spotter_V1_GuidedSession
    {
        try await answer {
            try await sessions.recordSet(
                $0, id: request.sessionID, exercise: Int(request.exerciseIndex), set: Int(request.setIndex),
                try SetDraft(request.actual, "actual"))
        }
    }

    public func skipSet(request: Spotter_V1_GuidedSetRequest, context: ServerContext) async throws
        -> Spotter_V1_GuidedSession
    {
        try await answer {
            try await sessions.skipSet(
                $0, id: request.sessionID, exercise: Int(request.exerciseIndex), set: Int(request.setIndex))
        }
    }

    public func skipExercise(request: Spotter_V1_SkipGuidedExerciseRequest, context: ServerContext) async throws
        -> Spotter_V1_GuidedSession
    {
        try await answer {
            try await sessions.skipExercise($0, id: request.sessionID, exercise: Int(request.exerciseIndex))
        }
    }

    public func addExercise(request: Spotter_V1_AddGuidedExerciseRequest, context: ServerContext) async throws
        -> Spotter_V1_GuidedSession
    {
        try await answer {
            try await sessions.addExercise(
                $0, id: request.sessionID, exerciseID: request.exerciseID,
                sets: request.sets.enumerated().map { index, set throws(SpotterError) in
                    try SetDraft(set, "sets[\(index)]")
                },
                expectedVersion: request.hasExpectedVersion ? request.expectedVersion : nil)
        }
    }

    public func addSet(request: Spotter_V1_AddGuidedSetRequest, context: ServerContext) async throws
        -> Spotter_V1_GuidedSession
    {
        try await answer {
            try await sessions.addSet(
                $0, id: request.sessionID, exercise: Int(request.exerciseIndex),
                request.hasPlanned ? try SetDraft(request.planned, "planned") : nil,
                expectedVersion: request.hasExpectedVersion ? request.expectedVersion : nil)
        }
    }

    public func pauseSession(request: Spotter_V1_GuidedSessionRequest, context: ServerContext) async throws
        -> Spotter_V1_GuidedSession
    {
        try await answer { try await sessions.pause($0, id: request.sessionID) }
    }

    public func resumeSession(request: Spotter_V1_GuidedSessionRequest, context: ServerContext) async throws
        -> Spotter_V1_GuidedSession
    {
        try await answer { try await sessions.resume($0, id: request.sessionID) }
    }

    public func completeSession(request: Spotter_V1_GuidedSessionRequest, context: ServerContext) async throws
        -> Spotter_V1_CompleteGuidedSessionResponse
    {
        let (principal, tenant) = try RequestContext.tenant()
        let (session, workout) = try await sessions.complete(principal, id: request.sessionID)
        let at = now()
        return .with {
            $0.session = Spotter_V1_GuidedSession(session, unit: tenant.unit, at: at)
            $0.workout = Spotter_V1_Workout(workout, unit: tenant.unit)
        }
    }

    public func abandonSession(request: Spotter_V1_GuidedSessionRequest, context: ServerContext) async throws
        -> Spotter_V1_GuidedSession
    {
        try await answer { try await sessions.abandon($0, id: request.sessionID) }
    }

    /// Takes the caller, checks access and subscribes while the interceptor still holds the call,
    /// so refusals are mapped as for any call; the stream then runs with the same call context.
    public func watchSession(request: ServerRequest<Spotter_V1_WatchGuidedSessionRequest>, context: ServerContext)
        async throws -> StreamingServerResponse<Spotter_V1_GuidedSession>
    {
        let follow = try await Following.start(request.message, sessions: sessions, hub: hub)
        let call = RequestContext.current
        let token = RequestInterceptor.bearerToken(in: request.metadata)
        return StreamingServerResponse { writer in
            do {
                try await RequestContext.$current.withValue(call) {
                    try await stream(follow, token: token, to: writer, cancellation: context.cancellation)
                }
            } catch let error as SpotterError {
                throw RPCErrorMapping.map(error, call: call)
            }
            return [:]
        }
    }

    /// The same stream for a caller of the simple API (the router takes the method above).
    public func watchSession(
        request: Spotter_V1_WatchGuidedSessionRequest, response: RPCWriter<Spotter_V1_GuidedSession>,
        context: ServerContext
    ) async throws {
        let follow = try await Following.start(request, sessions: sessions, hub: hub)
        try await stream(follow, token: nil, to: response, cancellation: context.cancellation)
    }

    /// Writes the session, then again whenever its version moves, until it is closed, access is
    /// lost, the token stops being valid or the caller goes away.
    private func stream(
        _ follow: Following, token: String?, to writer: RPCWriter<Spotter_V1_GuidedSession>,
        cancellation: ServerContext.RPCCancellationHandle
    ) async throws {
        let (principal, tenant) = try RequestContext.tenant()
        let unit = tenant.unit
        try await writer.write(Spotter_V1_GuidedSession(follow.first, unit: unit, at: now()))
        guard follow.first.status.isOpen else { return }
        try await withThrowingTaskGroup { group in
            group.addTask { try await cancellation.cancelled }
            group.addTask {
                var version = follow.first.version
                for await _ in follow.events {
                    guard let session = try await follow.read(principal) else {
                        throw SpotterError.permissionDenied("the session is no longer shared with you")
                    }
                    guard session.version != version else { continue }
                    version = session.version
                    try await writer.write(Spotter_V1_GuidedSession(session, unit: unit, at: now()))
                    if !session.status.isOpen { return }
                }
            }
            if follow.byCoach {
                group.addTask {
                    while true {
                        try await Task.sleep(for: Following.accessCheck)
                        guard try await follow.read(principal) != nil else {
                            throw SpotterError.permissionDenied("the session is no longer shared with you")
                        }
                    }
                }
            }
            if let token { group.addTask { try await tokens.run(token, stream: "WatchSession") } }
            _ = try await group.next()
            group.cancelAll()
        }
    }

    /// The calls every unary method makes: the caller, the call, the answer at the server's time.
    private func answer(_ body: (Principal) async throws -> GuidedSession) async throws -> Spotter_V1_GuidedSession {
        let (principal, tenant) = try RequestContext.tenant()
        return Spotter_V1_GuidedSession(try await body(principal), unit: tenant.unit, at: now())
    }
}

/// A WatchSession stream's subject: the session as first read, how to read it again, and the
/// owner's change events.
private struct Following: Sendable {
    let first: GuidedSession
    let events: AsyncStream<SyncWatchHub.Event>
    /// A coach's watch: access is checked again every `accessCheck` as well as at each change,
    /// since taking the scope back (or ending the coaching) is no change of the session.
    var byCoach = false
    let read: @Sendable (Principal) async throws -> GuidedSession?

    static let accessCheck: Duration = .seconds(5)

    static func start(
        _ request: Spotter_V1_WatchGuidedSessionRequest, sessions: GuidedSessionService, hub: SyncWatchHub
    )
        async throws -> Following
    {
        let principal = try RequestContext.principal()
        if request.clientID.isEmpty {
            let first = try await sessions.get(principal, id: request.sessionID)
            let events = try hub.subscribe(principal.tenantID)
            return Following(first: first, events: events) { principal in
                try await sessions.get(principal, id: first.id.description)
            }
        }
        // A coach: the details scope is checked (and the access logged) once here; later reads go
        // through row-level security, which stops them the moment the client takes the scope back.
        let first = try await sessions.clientSession(principal, client: request.clientID, id: request.sessionID)
        guard let client = TenantID(request.clientID) else { throw SpotterError.invalid("client_id", "must be a UUID") }
        let events = try hub.subscribe(client)
        return Following(first: first, events: events, byCoach: true) { principal in
            try await sessions.followClientSession(principal, client: client, id: first.id)
        }
    }
}
