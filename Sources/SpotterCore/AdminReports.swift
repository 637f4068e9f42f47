import Foundation

/// One e-mail in the outbox, as `spotterctl outbox` shows it.
public struct OutboxEntry: Sendable, Equatable, Codable {
    @LowercasedUUID public var id: UUID
    public var tenantID: TenantID
    public var kind: String
    public var recipient: String
    public var subject: String
    public var body: String
    public var status: String
    public var attempts: Int
    public var lastError: String?
    public var createdAt: Date
    public var nextAttemptAt: Date
    public var sentAt: Date?
    /// A coaching notification (0060): it names another member and may carry their words, so an
    /// operator reads its body only with a reason, written to the audit log.
    public var fromMember: Bool
    /// The portal page the message is about (`/clients/…`), linked when it is sent.
    public var linkPath: String?

    public init(
        id: UUID,
        tenantID: TenantID,
        kind: String,
        recipient: String,
        subject: String,
        body: String,
        status: String,
        attempts: Int,
        lastError: String?,
        createdAt: Date,
        nextAttemptAt: Date,
        sentAt: Date?,
        fromMember: Bool = false,
        linkPath: String? = nil
    ) {
        self.id = id
        self.tenantID = tenantID
        self.kind = kind
        self.recipient = recipient
        self.subject = subject
        self.body = body
        self.status = status
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt
        self.sentAt = sentAt
        self.fromMember = fromMember
        self.linkPath = linkPath
    }

    /// The body as it is (or was) sent, with its link at `portal` (`PortalLink.body`).
    public func body(portal: String?) -> String {
        PortalLink.body(body, portal: portal, path: linkPath)
    }
}

/// Counts for `spotterctl status`.
public struct SystemCounts: Sendable, Equatable, Codable {
    /// Tenants by kind and tier in force, such as `lifter/free`.
    public var tenants: [String: Int]
    public var activeSessions: Int
    public var outboxPending: Int
    public var outboxFailed: Int

    public init(tenants: [String: Int], activeSessions: Int, outboxPending: Int, outboxFailed: Int) {
        self.tenants = tenants
        self.activeSessions = activeSessions
        self.outboxPending = outboxPending
        self.outboxFailed = outboxFailed
    }
}

/// One finding of `spotterctl db check`.
public struct SecurityFinding: Sendable, Equatable, Codable {
    public var check: String
    public var ok: Bool
    public var detail: String

    public init(check: String, ok: Bool, detail: String) {
        self.check = check
        self.ok = ok
        self.detail = detail
    }
}

/// What `spotterctl db status` reports about the database itself.
public struct DatabaseReport: Sendable, Equatable, Codable {
    public var serverVersion: String
    public var database: String
    /// Open connections by application name.
    public var connections: [String: Int]
    /// Total size in bytes of each table, indexes included.
    public var tableBytes: [String: Int64]

    public init(serverVersion: String, database: String, connections: [String: Int], tableBytes: [String: Int64]) {
        self.serverVersion = serverVersion
        self.database = database
        self.connections = connections
        self.tableBytes = tableBytes
    }
}

/// Administrative work beyond the account basics: maintenance, tiers, the outbox, erasure and
/// reports. Every change method writes its audit record in the same transaction as the change.
public protocol AdminMaintenanceStore: Sendable {
    /// Clears sign-in throttling of the tenant's account.
    func unlock(_ tenant: TenantID, audit: AuditRecord) async throws
    /// Turns two-factor sign-in off and ends every session of the tenant's account; refuses
    /// (`failedPrecondition`, nothing changed or audited) when it was never set up.
    func resetTwoFactor(_ tenant: TenantID, now: Date, audit: AuditRecord) async throws
    func markEmailVerified(_ tenant: TenantID, now: Date, audit: AuditRecord) async throws
    /// Calls `reseal` for every account's two-factor secret, rows locked, and stores the new
    /// sealing it answers (`nil` leaves the row); then appends `audit()`, all in one transaction.
    func resealTwoFactorSecrets(
        _ reseal: (AccountID, MfaKeyring.Sealed) throws -> MfaKeyring.Sealed?, audit: () -> AuditRecord
    ) async throws
    /// Revokes every live session; returns how many, which the audit record is made with.
    func revokeSessions(_ tenant: TenantID, now: Date, audit: (Int) -> AuditRecord) async throws -> Int
    /// Changes the username; `alreadyExists` when it is taken.
    func rename(_ tenant: TenantID, to username: String, now: Date, audit: AuditRecord) async throws
    /// Stores a password reset token for the tenant's account.
    func issueResetToken(_ tenant: TenantID, _ token: AccountToken, audit: AuditRecord) async throws
    func setTier(_ tenant: TenantID, _ grant: TierGrant, now: Date, audit: AuditRecord) async throws
    /// Tenants on a paid tier, soonest expiry first; with `expiringBefore`, only those ending by then.
    func paidTiers(expiringBefore: Date?) async throws -> [AccountSummary]
    /// Deletes the tenant and every row it owns, and pseudonymizes its audit rows, atomically.
    func erase(_ tenant: TenantID, pseudonym: String, audit: AuditRecord) async throws
    func outbox(status: String?, limit: Int) async throws -> [OutboxEntry]
    func outboxMessage(_ id: UUID) async throws -> OutboxEntry?
    /// Makes a failed or pending message due now; `false` when there is no such message.
    func retryOutboxMessage(_ id: UUID, now: Date, audit: AuditRecord) async throws -> Bool
    /// Writes an audit row for a read (an operator reading a notification's body).
    func recordAudit(_ audit: AuditRecord) async throws
    func counts(now: Date) async throws -> SystemCounts
    func databaseReport() async throws -> DatabaseReport
    /// Everything the tenant owns, for export, with the audit record of the export; `nil` when the
    /// tenant does not exist.
    func export(_ tenant: TenantID, now: Date, audit: AuditRecord) async throws -> TenantExport?
    /// Feedback across tenants, newest first; `open` filters by whether it is unresolved.
    /// Reports newest first: open ones, resolved ones or both (`nil`), of one kind or both.
    func feedback(open: Bool?, kind: FeedbackKind?, limit: Int) async throws -> [FiledFeedback]
    func feedbackItem(_ id: UUID) async throws -> FiledFeedback?
    /// Marks feedback resolved with an answer the filer can read; `false` if it was resolved already.
    func resolveFeedback(_ id: UUID, resolution: String, by: String, now: Date, audit: AuditRecord) async throws -> Bool
    /// Publications across tenants (live only unless `all`), newest first, optionally one author's.
    func publications(author: TenantID?, all: Bool, limit: Int) async throws -> [Publication]
    /// A live publication's title and its author's username, `nil` when none has this id.
    func livePublication(_ id: UUID) async throws -> (title: String, author: String)?
    /// Hides a live publication (followers keep their copies); the author it belonged to, `nil`
    /// when no live publication has this id.
    func unpublish(_ id: UUID, now: Date, audit: (TenantID) -> AuditRecord) async throws -> TenantID?
    /// Stores a new challenge with its audit record.
    func createChallenge(_ challenge: Challenge, audit: AuditRecord) async throws
    /// Challenges, latest ending first; only those not over at `today` (a local date) unless `all`.
    func challenges(all: Bool, today: String, limit: Int) async throws -> [Challenge]
    /// Checks that RLS is forced on every tenant table and the request roles are unprivileged.
    func securityFindings(applicationRoles: [String]) async throws -> [SecurityFinding]
}

/// A named administrator allowed to make changes with `spotterctl`.
public struct AdminOperator: Sendable, Equatable, Codable {
    public var name: String
    public var displayName: String
    public var email: String
    public var createdAt: Date
    public var createdBy: String
    public var disabledAt: Date?

    public init(name: String, displayName: String, email: String, createdAt: Date, createdBy: String, disabledAt: Date?)
    {
        self.name = name
        self.displayName = displayName
        self.email = email
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.disabledAt = disabledAt
    }
}

/// The registry of administrators.
public protocol AdminOperatorStore: Sendable {
    func operators() async throws -> [AdminOperator]
    /// Registers an operator; `alreadyExists` naming `username` when the name is taken.
    func createOperator(_ admin: AdminOperator, audit: AuditRecord) async throws
}
