import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.CoachingService`: the lifter's side of coaching.
public struct CoachingHandler: Spotter_V1_CoachingService.SimpleServiceProtocol {
    private let coaching: CoachingService

    public init(coaching: CoachingService) {
        self.coaching = coaching
    }

    public func redeemInvite(request: Spotter_V1_RedeemInviteRequest, context: ServerContext) async throws
        -> Spotter_V1_CoachLink
    {
        Spotter_V1_CoachLink(
            try await coaching.redeemInvite(try RequestContext.principal(), code: request.code, scopes: request.scopes))
    }

    public func requestCoach(request: Spotter_V1_RequestCoachRequest, context: ServerContext) async throws
        -> Spotter_V1_CoachLink
    {
        Spotter_V1_CoachLink(
            try await coaching.requestCoach(
                try RequestContext.principal(), username: request.username, scopes: request.scopes))
    }

    public func respondToCoach(request: Spotter_V1_RespondToCoachRequest, context: ServerContext) async throws
        -> Spotter_V1_CoachLink
    {
        let principal = try RequestContext.principal()
        _ = try await coaching.requireKind(.lifter, principal)
        return Spotter_V1_CoachLink(
            try await coaching.respond(
                principal, other: request.coachID, accept: request.accept, scopes: request.scopes))
    }

    public func setScopes(request: Spotter_V1_SetScopesRequest, context: ServerContext) async throws
        -> Spotter_V1_CoachLink
    {
        Spotter_V1_CoachLink(
            try await coaching.setScopes(try RequestContext.principal(), coach: request.coachID, scopes: request.scopes)
        )
    }

    public func endCoaching(request: Spotter_V1_EndCoachingRequest, context: ServerContext) async throws
        -> Spotter_V1_CoachLink
    {
        let principal = try RequestContext.principal()
        _ = try await coaching.requireKind(.lifter, principal)
        return Spotter_V1_CoachLink(try await coaching.endLink(principal, other: request.coachID))
    }

    public func listLinks(request: Spotter_V1_ListLinksRequest, context: ServerContext) async throws
        -> Spotter_V1_ListLinksResponse
    {
        let links = try await coaching.links(try RequestContext.principal(), includeClosed: request.includeClosed)
        return .with { $0.links = links.map(Spotter_V1_CoachLink.init) }
    }

    public func listAccessLog(request: Spotter_V1_ListAccessLogRequest, context: ServerContext) async throws
        -> Spotter_V1_ListAccessLogResponse
    {
        let page = try await coaching.accessLog(
            try RequestContext.principal(), coach: request.coachID, pageSize: Int(request.page.pageSize),
            pageToken: request.page.pageToken)
        return .with {
            $0.entries = page.items.map { entry in
                .with {
                    $0.coachID = entry.coachID.description
                    $0.coachName = entry.coachName
                    $0.accessedAt = Spotter_V1_Timestamp(entry.accessedAt)
                    $0.data = entry.kind.rawValue
                    $0.method = entry.method
                    if let workout = entry.workout {
                        $0.workoutID = workout.id.description
                        $0.workoutName = workout.name ?? ""
                        if let startedAt = workout.startedAt { $0.workoutStartedAt = Spotter_V1_Timestamp(startedAt) }
                    }
                }
            }
            $0.nextPageToken = page.nextToken
        }
    }

    public func listAssignments(request: Spotter_V1_ListAssignmentsRequest, context: ServerContext) async throws
        -> Spotter_V1_ListAssignmentsResponse
    {
        Spotter_V1_ListAssignmentsResponse(
            try await coaching.assignments(try RequestContext.principal(), client: request.clientID))
    }

    public func followProgram(request: Spotter_V1_FollowProgramRequest, context: ServerContext) async throws
        -> Spotter_V1_FollowedProgram
    {
        Spotter_V1_FollowedProgram(
            try await coaching.follow(
                try RequestContext.principal(), programID: request.programID, startOn: request.startOn))
    }

    public func stopFollowing(request: Spotter_V1_StopFollowingRequest, context: ServerContext) async throws
        -> Spotter_V1_StopFollowingResponse
    {
        try await coaching.unfollow(try RequestContext.principal())
        return Spotter_V1_StopFollowingResponse()
    }

    public func getToday(request: Spotter_V1_GetTodayRequest, context: ServerContext) async throws
        -> Spotter_V1_TodayPlan
    {
        let (principal, tenant) = try RequestContext.tenant()
        let plan = try await coaching.today(principal)
        return .with {
            $0.date = plan.date
            if let follow = plan.follow { $0.followed = Spotter_V1_FollowedProgram(follow) }
            if let day = plan.day {
                $0.state = day.state.rawValue
                $0.week = Int32(day.week ?? 0)
                $0.weekday = Int32(day.weekday)
            }
            if let template = plan.template { $0.template = Spotter_V1_Template(template, unit: tenant.unit) }
        }
    }

    public func addComment(request: Spotter_V1_AddCommentRequest, context: ServerContext) async throws
        -> Spotter_V1_Comment
    {
        Spotter_V1_Comment(
            try await coaching.comment(
                try RequestContext.principal(), workoutID: request.workoutID,
                exerciseIndex: request.hasExerciseIndex ? Int(request.exerciseIndex) : nil,
                setIndex: request.hasSetIndex ? Int(request.setIndex) : nil, body: request.body))
    }

    public func listComments(request: Spotter_V1_ListCommentsRequest, context: ServerContext) async throws
        -> Spotter_V1_ListCommentsResponse
    {
        Spotter_V1_ListCommentsResponse(
            try await coaching.comments(try RequestContext.principal(), workoutID: request.workoutID))
    }

    public func deleteComment(request: Spotter_V1_DeleteCommentRequest, context: ServerContext) async throws
        -> Spotter_V1_DeleteCommentResponse
    {
        try await coaching.deleteComment(try RequestContext.principal(), id: request.commentID)
        return Spotter_V1_DeleteCommentResponse()
    }
}
