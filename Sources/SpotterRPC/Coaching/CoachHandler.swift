import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.CoachService`: the coach's side — invites, clients, reads within scopes,
/// assignments and comments.
public struct CoachHandler: Spotter_V1_CoachService.SimpleServiceProtocol {
    private let coaching: CoachingService

    public init(coaching: CoachingService) {
        self.coaching = coaching
    }

    public func createInvite(request: Spotter_V1_CreateInviteRequest, context: ServerContext) async throws
        -> Spotter_V1_Invite
    {
        Spotter_V1_Invite(
            try await coaching.createInvite(
                try RequestContext.principal(), note: request.note, validDays: Int(request.validDays)))
    }

    public func listInvites(request: Spotter_V1_ListInvitesRequest, context: ServerContext) async throws
        -> Spotter_V1_ListInvitesResponse
    {
        let invites = try await coaching.invites(try RequestContext.principal())
        return .with { $0.invites = invites.map(Spotter_V1_Invite.init) }
    }

    public func revokeInvite(request: Spotter_V1_RevokeInviteRequest, context: ServerContext) async throws
        -> Spotter_V1_RevokeInviteResponse
    {
        try await coaching.revokeInvite(try RequestContext.principal(), id: request.inviteID)
        return Spotter_V1_RevokeInviteResponse()
    }

    public func inviteClient(request: Spotter_V1_InviteClientRequest, context: ServerContext) async throws
        -> Spotter_V1_CoachLink
    {
        Spotter_V1_CoachLink(
            try await coaching.inviteClient(try RequestContext.principal(), username: request.username))
    }

    public func respondToClient(request: Spotter_V1_RespondToClientRequest, context: ServerContext) async throws
        -> Spotter_V1_CoachLink
    {
        let principal = try RequestContext.principal()
        _ = try await coaching.requireKind(.coach, principal)
        return Spotter_V1_CoachLink(
            try await coaching.respond(principal, other: request.clientID, accept: request.accept, scopes: []))
    }

    public func endClient(request: Spotter_V1_EndClientRequest, context: ServerContext) async throws
        -> Spotter_V1_CoachLink
    {
        let principal = try RequestContext.principal()
        _ = try await coaching.requireKind(.coach, principal)
        return Spotter_V1_CoachLink(try await coaching.endLink(principal, other: request.clientID))
    }

    public func listClients(request: Spotter_V1_ListClientsRequest, context: ServerContext) async throws
        -> Spotter_V1_ListClientsResponse
    {
        let clients = try await coaching.clients(
            try RequestContext.principal(), inactiveDays: Int(request.inactiveDays))
        return .with {
            $0.clients = clients.map { client in
                .with {
                    $0.link = Spotter_V1_CoachLink(client.link)
                    if let last = client.lastWorkoutAt { $0.lastWorkoutAt = Spotter_V1_Timestamp(last) }
                    if let count = client.workoutsThisWeek { $0.workoutsThisWeek = Int32(count) }
                    if let planned = client.plannedThisWeek { $0.plannedThisWeek = Int32(planned) }
                    if let done = client.plannedDoneThisWeek { $0.plannedDoneThisWeek = Int32(done) }
                    $0.inactive = client.inactive
                    $0.newRecordExercise = client.newRecordExercise ?? ""
                    if let weeks = client.streakWeeks { $0.streakWeeks = Int32(weeks) }
                    $0.beyondTierLimit = client.beyondTierLimit
                }
            }
        }
    }

    public func listClientWorkouts(request: Spotter_V1_ListClientWorkoutsRequest, context: ServerContext)
        async throws -> Spotter_V1_ListWorkoutsResponse
    {
        let (principal, tenant) = try RequestContext.tenant()
        let page = try await coaching.clientHistory(
            principal, client: request.clientID, from: request.hasFrom ? request.from.date("from") : nil,
            to: request.hasTo ? request.to.date("to") : nil, text: request.query, pageSize: Int(request.page.pageSize),
            pageToken: request.page.pageToken)
        return Spotter_V1_ListWorkoutsResponse(page, unit: tenant.unit)
    }

    public func getClientWorkout(request: Spotter_V1_GetClientWorkoutRequest, context: ServerContext) async throws
        -> Spotter_V1_Workout
    {
        let (principal, tenant) = try RequestContext.tenant()
        let workout = try await coaching.clientWorkout(
            principal, client: request.clientID, workoutID: request.workoutID)
        return Spotter_V1_Workout(workout, unit: tenant.unit)
    }

    public func getClientProgress(request: Spotter_V1_GetClientProgressRequest, context: ServerContext) async throws
        -> Spotter_V1_GetProgressResponse
    {
        let (principal, tenant) = try RequestContext.tenant()
        let report = try await coaching.clientProgress(
            principal, client: request.clientID, exerciseID: request.exerciseID,
            from: request.hasFrom ? request.from.date("from") : nil, to: request.hasTo ? request.to.date("to") : nil,
            formula: try E1RMFormula(requested: request.formula))
        return Spotter_V1_GetProgressResponse(report, unit: tenant.unit)
    }

    public func getClientStatistics(request: Spotter_V1_GetClientStatisticsRequest, context: ServerContext)
        async throws -> Spotter_V1_GetStatisticsResponse
    {
        let (principal, tenant) = try RequestContext.tenant()
        let statistics = try await coaching.clientStatistics(
            principal, client: request.clientID, period: try StatisticsPeriod(requested: request.period),
            from: request.hasFrom ? request.from.date("from") : nil, to: request.hasTo ? request.to.date("to") : nil)
        return Spotter_V1_GetStatisticsResponse(statistics, unit: tenant.unit)
    }

    public func getClientMeasurements(request: Spotter_V1_GetClientMeasurementsRequest, context: ServerContext)
        async throws -> Spotter_V1_ListMeasurementsResponse
    {
        let (principal, tenant) = try RequestContext.tenant()
        let series = try await coaching.clientMeasurements(
            principal, client: request.clientID, metrics: request.metrics.map(BodyHandler.metricName),
            from: request.from, to: request.to)
        return Spotter_V1_ListMeasurementsResponse(series, unit: tenant.unit)
    }

    public func getClientAchievements(request: Spotter_V1_GetClientAchievementsRequest, context: ServerContext)
        async throws -> Spotter_V1_ListAchievementsResponse
    {
        let principal = try RequestContext.principal()
        let (client, achievements) = try await coaching.clientAchievements(principal, client: request.clientID)
        return Spotter_V1_ListAchievementsResponse(achievements, tenant: client)
    }

    public func assign(request: Spotter_V1_AssignRequest, context: ServerContext) async throws
        -> Spotter_V1_Assignment
    {
        Spotter_V1_Assignment(
            try await coaching.assign(
                try RequestContext.principal(), client: request.clientID, templateID: request.templateID,
                programID: request.programID, note: request.note))
    }

    public func unassign(request: Spotter_V1_UnassignRequest, context: ServerContext) async throws
        -> Spotter_V1_UnassignResponse
    {
        try await coaching.unassign(try RequestContext.principal(), id: request.assignmentID)
        return Spotter_V1_UnassignResponse()
    }

    public func listAssignments(request: Spotter_V1_ListAssignmentsRequest, context: ServerContext) async throws
        -> Spotter_V1_ListAssignmentsResponse
    {
        let principal = try RequestContext.principal()
        _ = try await coaching.requireKind(.coach, principal)
        return Spotter_V1_ListAssignmentsResponse(try await coaching.assignments(principal, client: request.clientID))
    }

    public func commentOnWorkout(request: Spotter_V1_CommentOnWorkoutRequest, context: ServerContext) async throws
        -> Spotter_V1_Comment
    {
        Spotter_V1_Comment(
            try await coaching.commentAsCoach(
                try RequestContext.principal(), client: request.clientID, workoutID: request.workoutID,
                exerciseIndex: request.hasExerciseIndex ? Int(request.exerciseIndex) : nil,
                setIndex: request.hasSetIndex ? Int(request.setIndex) : nil, body: request.body))
    }

    public func listClientComments(request: Spotter_V1_ListClientCommentsRequest, context: ServerContext)
        async throws -> Spotter_V1_ListCommentsResponse
    {
        Spotter_V1_ListCommentsResponse(
            try await coaching.clientComments(
                try RequestContext.principal(), client: request.clientID, workoutID: request.workoutID))
    }

    public func deleteClientComment(request: Spotter_V1_DeleteClientCommentRequest, context: ServerContext)
        async throws -> Spotter_V1_DeleteCommentResponse
    {
        try await coaching.deleteCommentAsCoach(
            try RequestContext.principal(), client: request.clientID, id: request.commentID)
        return Spotter_V1_DeleteCommentResponse()
    }
}
