import Foundation

/// The facts a coach's client list is built from, read in the coach's transaction (so only what
/// each client's scopes let through is there).
public struct ClientFacts: Sendable {
    public var link: CoachLink
    public var timeZone: String
    public var lastWorkoutAt: Date?
    public var workoutsSince: Int
    /// The templates `workoutsSince`'s workouts were logged from (one entry per workout).
    public var templatesLogged: [TemplateID]
    public var follow: (content: ProgramContent, startedOn: Date)?
    public var newRecordExercise: String?
    /// The Mondays (days since 1970-01-01, the client's time zone) of the weeks with a workout in
    /// the last `WeeklyStreak.clientListWeeks` weeks.
    public var recentWeeks: [Int]
    /// The Monday of the current week in the client's time zone, likewise.
    public var thisWeek: Int

    public init(
        link: CoachLink, timeZone: String, lastWorkoutAt: Date?, workoutsSince: Int, templatesLogged: [TemplateID] = [],
        follow: (content: ProgramContent, startedOn: Date)?, newRecordExercise: String?, recentWeeks: [Int] = [],
        thisWeek: Int = 0
    ) {
        self.templatesLogged = templatesLogged
        self.recentWeeks = recentWeeks
        self.thisWeek = thisWeek
        self.link = link
        self.timeZone = timeZone
        self.lastWorkoutAt = lastWorkoutAt
        self.workoutsSince = workoutsSince
        self.follow = follow
        self.newRecordExercise = newRecordExercise
    }
}

/// Links, invites, the access log, programs, assignments and comments.
public protocol CoachingStore: Sendable {
    // MARK: Links

    /// Runs `body` in one transaction acting as the principal; every store call inside it acting
    /// as the same tenant joins that transaction. A coach's read is one transaction: the link
    /// check, the read and the access-log row commit (or roll back) together.
    func inOneTransaction<T: Sendable>(_ principal: Principal, _ body: () async throws -> T) async throws -> T
    /// Runs `body` in one transaction acting as the principal, so a check (an open link, the
    /// coach's capacity) and the change it allows commit together.
    func linking<T: Sendable>(_ principal: Principal, _ body: (any LinkTransaction) async throws -> T)
        async throws -> T
    /// The principal's links (as lifter or as coach), newest first; closed ones only when asked.
    func links(_ principal: Principal, includeClosed: Bool) async throws -> [CoachLink]
    /// For a lifter: each active coach's stored tier, and how many of that coach's active clients
    /// joined before the lifter (the order `CoachEntitlements.covers` counts in).
    func coachCoverage(_ principal: Principal) async throws -> [TenantID: (tier: TierGrant, clientsBefore: Int)]
    /// A live account's tenant and kind by username.
    func tenant(username: String) async throws -> (TenantID, TenantKind)?

    // MARK: Invites

    func createInvite(_ principal: Principal, _ invite: CoachInvite, codeHash: [UInt8]) async throws
    func invites(_ principal: Principal) async throws -> [CoachInvite]
    func revokeInvite(_ principal: Principal, _ id: UUID, now: Date) async throws -> Bool

    // MARK: Access log

    /// Writes one access-log row for the coach reading `lifter` (nothing once the link has ended).
    /// One access-log row for a coach's call; `workout` names the one workout it read, if it read one.
    func recordAccess(
        _ principal: Principal, lifter: TenantID, kind: AccessKind, method: String, workout: WorkoutID?, now: Date
    ) async throws
    func accessLog(_ principal: Principal, coach: TenantID?, after: AccessLogCursor?, limit: Int) async throws
        -> [AccessLogEntry]

    // MARK: Coach reads

    /// The coach's active clients with the facts the list shows; `since` is each client's Monday
    /// computed in the database from `now` and the client's time zone.
    func clientFacts(_ principal: Principal, now: Date, bigThreeOnly: Bool) async throws -> [ClientFacts]
    func markSeen(_ principal: Principal, lifter: TenantID, now: Date) async throws

    // MARK: Programs

    func createProgram(_ principal: Principal, _ id: ProgramID, _ content: ProgramContent, now: Date) async throws
        -> Program
    /// Replaces a program's content; content equal to the stored one (at `expectedVersion`, if
    /// given) returns the program as it is, with no new version.
    func updateProgram(
        _ principal: Principal, _ id: ProgramID, _ content: ProgramContent, expectedVersion: Int64?, now: Date
    ) async throws -> Program
    /// One of the principal's programs, or (for a lifter) one assigned by an actively linked coach.
    func program(_ principal: Principal, _ id: ProgramID) async throws -> Program?
    func programs(_ principal: Principal) async throws -> [Program]
    func deleteProgram(_ principal: Principal, _ id: ProgramID, now: Date) async throws -> Bool

    // MARK: Assignments and following

    /// Assigns a template or program of the coach's; `invalidArgument` when it does not exist.
    func assign(_ principal: Principal, _ assignment: Assignment) async throws -> Assignment
    func unassign(_ principal: Principal, _ id: UUID, now: Date) async throws -> Bool
    /// The coach's assignments (optionally for one client), or those a lifter received.
    func assignments(_ principal: Principal, lifter: TenantID?) async throws -> [Assignment]
    func follow(_ principal: Principal, _ program: Program, startedOn: String, now: Date) async throws
    func unfollow(_ principal: Principal) async throws -> Bool
    /// The followed program, if it is still visible (an assignment ended hides it).
    func followed(_ principal: Principal) async throws -> ProgramFollow?

    // MARK: Comments

    /// Adds a comment to a live workout of the principal's tenant (for a coach: a client view),
    /// if the workout is still there and, when `version` is given (a comment on a set, whose
    /// position was checked against that version), still at it; `nil` otherwise. A delete or
    /// replace of the workout at the same time waits for it, or it for them.
    func addComment(_ principal: Principal, _ comment: WorkoutComment, workoutVersion version: Int64?)
        async throws -> WorkoutComment?
    func comments(_ principal: Principal, _ workout: WorkoutID) async throws -> [WorkoutComment]
    func deleteComment(_ principal: Principal, _ id: UUID) async throws -> CommentDeletion
}

/// What deleting a comment did.
public enum CommentDeletion: Sendable, Equatable {
    case deleted
    /// The principal sees the comment but may not delete it: a coach and the lifter's own comment.
    case notTheAuthor
    /// No comment the principal can see has the id.
    case notFound
}

/// The transaction `CoachingStore.linking` hands its body.
public protocol LinkTransaction: Sendable {
    /// The pending or active link between `lifter` and `coach`.
    func openLink(lifter: TenantID, coach: TenantID) async throws -> CoachLink?
    /// Whether `lifter` and `coach` have an active link, which then cannot end (or change) before
    /// this transaction does; one ending meanwhile is waited for and counts as ended.
    func holdActiveLink(lifter: TenantID, coach: TenantID) async throws -> Bool
    /// The active link between `lifter` and `coach`, and how many of the coach's active links began
    /// before it (by when they were accepted; a tier covers a coach's clients in the order they
    /// joined), in one statement.
    func activeLinkAndClientsBefore(lifter: TenantID, coach: TenantID) async throws -> (CoachLink, Int)?
    /// Opens a pending link asked for by the acting side.
    func requestLink(_ link: CoachLink) async throws -> CoachLink
    /// Changes a link's status (recording who ended it) or scopes, as the acting side.
    func updateLink(_ link: CoachLink, status: LinkStatus, scopes: Set<Scope>, by side: LinkSide, now: Date)
        async throws -> CoachLink
    /// A coach's tier and active client count; holds a per-coach lock until the transaction ends.
    /// `nil` unless the acting tenant is the coach, has a pending or active link with it, or holds
    /// one of its redeemable invite codes (`inviteHash`).
    func coachCapacity(_ coach: TenantID, inviteHash: [UInt8]?, now: Date) async throws -> (TierGrant, Int)?
    /// The coach of an invite code that can still be redeemed.
    func inviteCoach(codeHash: [UInt8], now: Date) async throws -> TenantID?
    /// Marks the invite used and opens the active link; `nil` when it is no longer redeemable.
    func redeemInvite(codeHash: [UInt8], lifter: TenantID, scopes: Set<Scope>, link: CoachLink.ID, now: Date)
        async throws -> TenantID?
}
