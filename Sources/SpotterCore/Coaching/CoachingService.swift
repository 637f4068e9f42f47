import Foundation

/// Coaching for both sides: links and scopes, invites, the access log, a coach's reads of a client,
/// programs, assignments, following a program, and comments.
///
/// Every coach read goes through `clientView`: it finds the active link, refuses a missing scope,
/// writes one access-log row, and hands back a principal whose transactions still act as the
/// coach, so the database's policies check the same grant again.
public struct CoachingService: Sendable {
    let store: any CoachingStore
    let training: TrainingServices
    let templates: any TemplateStore
    let contexts: any TenantContextStore
    let now: @Sendable () -> Date

    public init(
        store: any CoachingStore,
        training: TrainingServices,
        templates: any TemplateStore,
        contexts: any TenantContextStore,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.training = training
        self.templates = templates
        self.contexts = contexts
        self.now = now
    }

    static let clientNotFound = SpotterError.notFound("client not found")
    static let coachNotFound = SpotterError.notFound("coach not found")

    /// No pending or active link with the other side: one that ended, or none at all (the same
    /// answer, so it tells nothing of who exists).
    static func noOpenLink(_ side: LinkSide) -> SpotterError {
        .notFound("you have no pending or active link with this \(side == .coach ? "client" : "coach")")
    }

    // MARK: Who may call

    /// The principal's context, refusing a tenant of the other kind.
    public func requireKind(_ kind: TenantKind, _ principal: Principal) async throws -> TenantContext {
        let context = try await principal.context(from: contexts)
        guard context.kind == kind else {
            throw SpotterError.permissionDenied(
                kind == .coach ? "this call is for coach accounts" : "this call is for lifter accounts")
        }
        return context
    }

    static func tenantID(_ text: String, field: String) throws(SpotterError) -> TenantID {
        guard !text.isEmpty else { throw .invalid(field, "is required") }
        guard let id = TenantID(text) else { throw .invalid(field, "must be a UUID") }
        return id
    }

    // MARK: Links

    /// A lifter asks a coach, found by username, granting `scopes` once the coach accepts.
    public func requestCoach(_ principal: Principal, username: String, scopes: [String]) async throws -> CoachLink {
        _ = try await requireKind(.lifter, principal)
        let granted = try Scope.parse(scopes)
        let coach = try await other(username: username, kind: .coach, principal)
        return try await store.linking(principal) { link in
            guard try await link.openLink(lifter: principal.tenantID, coach: coach) == nil else {
                throw SpotterError.alreadyExists(
                    field: "username", reason: "you already have a pending or active link with this coach")
            }
            return try await link.requestLink(
                CoachLink(
                    id: .random(), lifterID: principal.tenantID, coachID: coach, status: .pending,
                    requestedBy: .lifter, scopes: granted, createdAt: now()))
        }
    }

    /// A coach invites a lifter by username; the lifter accepts with scopes or declines.
    public func inviteClient(_ principal: Principal, username: String) async throws -> CoachLink {
        _ = try await requireKind(.coach, principal)
        let lifter = try await other(username: username, kind: .lifter, principal)
        return try await store.linking(principal) { link in
            guard try await link.openLink(lifter: lifter, coach: principal.tenantID) == nil else {
                throw SpotterError.alreadyExists(
                    field: "username", reason: "you already have a pending or active link with this lifter")
            }
            try await refuseWhenFull(principal, link, what: "an invitation")
            return try await link.requestLink(
                CoachLink(
                    id: .random(), lifterID: lifter, coachID: principal.tenantID, status: .pending,
                    requestedBy: .coach, scopes: [], createdAt: now()))
        }
    }

    private func other(username: String, kind: TenantKind, _ principal: Principal) async throws -> TenantID {
        let name = username.trimmingWhitespaces()
        guard !name.isEmpty else { throw SpotterError.invalid("username", "is required") }
        guard let (tenant, found) = try await store.tenant(username: name), found == kind,
            tenant != principal.tenantID
        else { throw SpotterError.notFound("no \(kind.rawValue) with username '\(name)'") }
        return tenant
    }

    /// A coach makes a single-use invite code, valid for `validDays` (default 7, at most 30).
    public func createInvite(_ principal: Principal, note: String, validDays: Int) async throws -> CoachInvite {
        _ = try await requireKind(.coach, principal)
        var validator = Validator()
        validator.check(note.storedLength <= 200, "note", "must be at most 200 characters")
        validator.check((0...30).contains(validDays), "valid_days", "must be between 1 and 30 (0 means 7)")
        try validator.validate()
        try await refuseWhenFull(principal, what: "an invite code")
        let code = InviteCode.generate()
        let created = now()
        let validity = validDays == 0 ? InviteCode.defaultValidity : TimeInterval(validDays) * 86_400
        let invite = CoachInvite(
            id: UUID(), code: code, note: note, createdAt: created, expiresAt: created + validity, usedAt: nil)
        try await store.createInvite(principal, invite, codeHash: Token.hash(code))
        return invite
    }

    public func invites(_ principal: Principal) async throws -> [CoachInvite] {
        _ = try await requireKind(.coach, principal)
        return try await store.invites(principal)
    }

    public func revokeInvite(_ principal: Principal, id: String) async throws {
        _ = try await requireKind(.coach, principal)
        guard let uuid = UUID(hexadecimal: id) else { throw SpotterError.invalid("invite_id", "must be a UUID") }
        guard try await store.revokeInvite(principal, uuid, now: now()) else {
            throw SpotterError.notFound("invite not found or already used")
        }
    }

    /// A lifter redeems a coach's code: the link is active at once with `scopes`. A request
    /// between the two still waiting is settled by the code: the coach's invitation is accepted,
    /// the lifter's own request gives way to the link the code makes.
    public func redeemInvite(_ principal: Principal, code: String, scopes: [String]) async throws -> CoachLink {
        _ = try await requireKind(.lifter, principal)
        let granted = try Scope.parse(scopes)
        guard let normalized = InviteCode.normalize(code) else {
            throw SpotterError.invalid("code", InviteCode.problem(code))
        }
        let hash = Token.hash(normalized)
        let at = now()
        return try await store.linking(principal) { link in
            guard let coach = try await link.inviteCoach(codeHash: hash, now: at) else {
                throw SpotterError.notFound("invite code not found, already used, revoked or expired")
            }
            if let open = try await link.openLink(lifter: principal.tenantID, coach: coach) {
                guard open.status == .pending else {
                    throw SpotterError.alreadyExists(field: "code", reason: "this coach coaches you already")
                }
                // The lifter's own request is withdrawn for the link the code makes; the coach's
                // invitation is accepted by the redemption itself (migration 0056).
                if open.requestedBy == .lifter {
                    _ = try await link.updateLink(open, status: .ended, scopes: open.scopes, by: .lifter, now: at)
                }
            }
            try await checkCapacity(coach, link, inviteHash: hash, at: at, askedBy: .lifter)
            let id = CoachLink.ID.random()
            guard
                try await link.redeemInvite(
                    codeHash: hash, lifter: principal.tenantID, scopes: granted, link: id, now: at) != nil,
                let opened = try await link.openLink(lifter: principal.tenantID, coach: coach)
            else { throw SpotterError.notFound("invite code not found, already used, revoked or expired") }
            return opened
        }
    }

    /// Refuses what a lifter could only answer with a refusal while the coach's roster is full (a
    /// new invite code, an invitation), in the coach's words, naming the tier that takes more. What
    /// was made earlier may still meet a full roster: redeeming and accepting check again.
    private func refuseWhenFull(_ principal: Principal, _ link: (any LinkTransaction)? = nil, what: String)
        async throws
    {
        do {
            if let link {
                try await checkCapacity(principal.tenantID, link, at: now(), askedBy: .coach)
            } else {
                try await store.linking(principal) { link in
                    try await checkCapacity(principal.tenantID, link, at: now(), askedBy: .coach)
                }
            }
        } catch SpotterError.failedPrecondition(let reason) {
            throw SpotterError.failedPrecondition("\(what) would be refused now: " + reason)
        }
    }

    private func checkCapacity(
        _ coach: TenantID, _ link: any LinkTransaction, inviteHash: [UInt8]? = nil, at: Date, askedBy side: LinkSide
    ) async throws {
        guard let (tier, active) = try await link.coachCapacity(coach, inviteHash: inviteHash, now: at) else {
            throw Self.coachNotFound
        }
        try CoachEntitlements.checkCapacity(activeClients: active, tier: tier.effective(at: at), askedBy: side)
    }

    /// The invited side accepts (a lifter with the scopes to grant) or declines a pending request.
    /// `other` is the coach's tenant id for a lifter, the client's for a coach.
    public func respond(_ principal: Principal, other: String, accept: Bool, scopes: [String]) async throws
        -> CoachLink
    {
        let (side, lifter, coach) = try await parties(principal, other: other)
        let granted = side == .lifter ? try Scope.parse(scopes) : []
        let at = now()
        return try await store.linking(principal) { link in
            guard let open = try await link.openLink(lifter: lifter, coach: coach), open.status == .pending,
                open.requestedBy != side
            else { throw SpotterError.notFound("no pending request to answer") }
            guard accept else {
                return try await link.updateLink(open, status: .declined, scopes: open.scopes, by: side, now: at)
            }
            try await checkCapacity(coach, link, at: at, askedBy: side)
            return try await link.updateLink(
                open, status: .active, scopes: side == .lifter ? granted : open.scopes, by: side, now: at)
        }
    }

    /// A lifter changes what a coach (pending or active) may see; it applies to the coach's next call.
    public func setScopes(_ principal: Principal, coach: String, scopes: [String]) async throws -> CoachLink {
        _ = try await requireKind(.lifter, principal)
        let coachID = try Self.tenantID(coach, field: "coach_id")
        let granted = try Scope.parse(scopes)
        return try await store.linking(principal) { link in
            guard let open = try await link.openLink(lifter: principal.tenantID, coach: coachID) else {
                throw Self.noOpenLink(.lifter)
            }
            return try await link.updateLink(open, status: open.status, scopes: granted, by: .lifter, now: now())
        }
    }

    /// Either side ends an active link, withdraws its own request, or declines the other's; access
    /// ends with this call's commit.
    public func endLink(_ principal: Principal, other: String) async throws -> CoachLink {
        let (side, lifter, coach) = try await parties(principal, other: other)
        return try await store.linking(principal) { link in
            guard let open = try await link.openLink(lifter: lifter, coach: coach) else { throw Self.noOpenLink(side) }
            let status: LinkStatus = open.status == .pending && open.requestedBy != side ? .declined : .ended
            return try await link.updateLink(open, status: status, scopes: open.scopes, by: side, now: now())
        }
    }

    /// The principal's side of a link with `other` (a client's id for a coach, a coach's for a
    /// lifter), and the link's lifter and coach.
    private func parties(_ principal: Principal, other: String) async throws
        -> (side: LinkSide, lifter: TenantID, coach: TenantID)
    {
        let side: LinkSide = try await principal.context(from: contexts).kind == .coach ? .coach : .lifter
        let otherID = try Self.tenantID(other, field: side == .coach ? "client_id" : "coach_id")
        return side == .coach ? (side, otherID, principal.tenantID) : (side, principal.tenantID, otherID)
    }

    /// The principal's links: a lifter's coaches or a coach's clients and requests.
    public func links(_ principal: Principal, includeClosed: Bool) async throws -> [CoachLink] {
        var links = try await store.links(principal, includeClosed: includeClosed)
        // A lifter is told which coaches cannot see them now (a lapsed or lowered plan), never the
        // plan's tier or size. The order counted is `LinkSQL.activeLinkAndClientsBefore`'s.
        let own = links.indices.filter { links[$0].lifterID == principal.tenantID && links[$0].status == .active }
        guard !own.isEmpty else { return links }
        let coverage = try await store.coachCoverage(principal)
        let at = now()
        for index in own {
            guard let coach = coverage[links[index].coachID] else { continue }
            links[index].paused = !CoachEntitlements.covers(
                clientsBefore: coach.clientsBefore, tier: coach.tier.effective(at: at))
        }
        return links
    }

    /// The principal's active link as the coach of `client`, or `notFound` (the same answer as a
    /// tenant that does not exist, a pending or ended link, or another coach's client). One link
    /// is read, however many clients the coach has.
    public func activeClientLink(_ principal: Principal, client: TenantID) async throws -> CoachLink {
        let link = try await store.linking(principal) { link in
            try await link.openLink(lifter: client, coach: principal.tenantID)
        }
        guard let link, link.status == .active else { throw Self.clientNotFound }
        return link
    }

    /// The coach's active link to `client` when the coach's tier covers that client: `notFound`
    /// as `activeClientLink`, `tierRequired` past the tier's number of clients. Reads nothing of
    /// the client's (no access-log row): for a page that asks before it reads.
    public func coveredClient(_ principal: Principal, client: TenantID) async throws -> CoachLink {
        let context = try await requireKind(.coach, principal)
        let tier = context.tier.effective(at: now())
        return try await store.linking(principal) {
            try await coveredClientLink(principal, client: client, tier: tier, $0)
        }
    }

    /// An active client's time zone: a client's workouts are shown at the client's local times,
    /// on the days their progress and statistics count them.
    public func clientTimeZone(_ principal: Principal, client: TenantID) async throws -> String {
        try await contexts.tenantContext(principal.clientView(of: client)).timeZone
    }

    /// The principal's active link as the coach of `client` when the coach's tier covers that
    /// client (`CoachEntitlements.covers`): `notFound` as `activeClientLink`, `tierRequired`
    /// naming the tier past its number of clients. One statement.
    func coveredClientLink(_ principal: Principal, client: TenantID, tier: Tier, _ link: any LinkTransaction)
        async throws -> CoachLink
    {
        guard let (open, before) = try await link.activeLinkAndClientsBefore(lifter: client, coach: principal.tenantID)
        else { throw Self.clientNotFound }
        guard CoachEntitlements.covers(clientsBefore: before, tier: tier) else {
            throw CoachEntitlements.beyondLimit(open.lifterName, tier: tier)
        }
        return open
    }

    /// Which coach read which kind of data and when, newest first.
    public func accessLog(_ principal: Principal, coach: String, pageSize: Int, pageToken: String) async throws
        -> Page<AccessLogEntry>
    {
        _ = try await requireKind(.lifter, principal)
        let coachID = coach.isEmpty ? nil : try Self.tenantID(coach, field: "coach_id")
        let limit = try PageToken.size(pageSize)
        let query = [principal.tenantID.description, coachID?.description ?? ""]
        let cursor = try PageToken.cursor(AccessLogCursor.self, from: pageToken, query: query)
        let entries = try await store.accessLog(principal, coach: coachID, after: cursor, limit: limit + 1)
        return Page(fetched: entries, limit: limit, query: query) {
            AccessLogCursor(accessedAt: $0.accessedAt, id: $0.id)
        }
    }
}
