import Foundation

/// Who performs an administrative action: the operator's name and the operating-system user.
public struct AdminActor: Sendable, Equatable {
    public var operatorName: String
    public var osUser: String

    public init(operatorName: String, osUser: String) {
        self.operatorName = operatorName
        self.osUser = osUser
    }
}

/// One row of the account list.
public struct AccountSummary: Sendable, Equatable, Codable {
    public var tenantID: TenantID
    public var accountID: AccountID
    public var kind: TenantKind
    public var email: String
    public var username: String
    public var status: AccountStatus
    /// The stored tier and its expiry; `effective(at:)` tells what applies now.
    public var tier: TierGrant
    public var emailVerified: Bool
    public var createdAt: Date

    public init(
        tenantID: TenantID,
        accountID: AccountID,
        kind: TenantKind,
        email: String,
        username: String,
        status: AccountStatus,
        tier: TierGrant,
        emailVerified: Bool,
        createdAt: Date
    ) {
        self.tenantID = tenantID
        self.accountID = accountID
        self.kind = kind
        self.email = email
        self.username = username
        self.status = status
        self.tier = tier
        self.emailVerified = emailVerified
        self.createdAt = createdAt
    }
}

/// Everything `accounts show` prints about one account.
public struct AccountDetail: Sendable, Equatable, Codable {
    public var profile: Profile
    public var failedSignIns: Int
    public var lockedUntil: Date?
    public var sessions: [SessionInfo]
    public var lastActivity: Date?
    /// Live (not deleted) workouts.
    public var workouts: Int
    public var lastWorkoutAt: Date?
    /// The sources (an address, a known device) with failed sign-ins counted, and until when each
    /// must wait: sign-in throttling is per source; `failedSignIns` and `lockedUntil` are the
    /// account-wide count for unknown devices.
    public var sources: [SignInSourceFailures]
    /// Since when a second factor is asked at sign-in; `nil` when two-factor sign-in is off.
    public var twoFactorSince: Date?
    /// Recovery codes not used yet (with two-factor on).
    public var recoveryCodesLeft: Int

    public init(
        profile: Profile,
        failedSignIns: Int,
        lockedUntil: Date?,
        sessions: [SessionInfo],
        lastActivity: Date?,
        workouts: Int = 0,
        lastWorkoutAt: Date? = nil,
        sources: [SignInSourceFailures] = [],
        twoFactorSince: Date? = nil,
        recoveryCodesLeft: Int = 0
    ) {
        self.sources = sources
        self.twoFactorSince = twoFactorSince
        self.recoveryCodesLeft = recoveryCodesLeft
        self.profile = profile
        self.failedSignIns = failedSignIns
        self.lockedUntil = lockedUntil
        self.sessions = sessions
        self.lastActivity = lastActivity
        self.workouts = workouts
        self.lastWorkoutAt = lastWorkoutAt
    }
}

/// Failed sign-ins counted for one source of an account (`address:…` or `device:…`).
public struct SignInSourceFailures: Sendable, Equatable, Codable {
    public var source: String
    public var failures: Int
    public var lockedUntil: Date?

    public init(source: String, failures: Int, lockedUntil: Date?) {
        self.source = source
        self.failures = failures
        self.lockedUntil = lockedUntil
    }
}

/// Filters of the account list.
public struct AccountFilter: Sendable, Equatable {
    public var kind: TenantKind?
    public var status: AccountStatus?
    public var tier: Tier?
    /// Matches e-mail or username containing this text, case-insensitively.
    public var search: String?
    public var createdSince: Date?
    public var limit: Int
    public var offset: Int

    public init(
        kind: TenantKind? = nil,
        status: AccountStatus? = nil,
        tier: Tier? = nil,
        search: String? = nil,
        createdSince: Date? = nil,
        limit: Int = 50,
        offset: Int = 0
    ) {
        self.kind = kind
        self.status = status
        self.tier = tier
        self.search = search
        self.createdSince = createdSince
        self.limit = limit
        self.offset = offset
    }
}

/// One audit log entry.
public struct AuditEntry: Sendable, Equatable, Codable {
    public var id: Int64
    public var at: Date
    public var actorKind: String
    public var actor: String
    public var osUser: String?
    public var action: String
    public var targetTenantID: TenantID?
    public var target: String?
    public var reason: String?
    public var details: String

    public init(
        id: Int64,
        at: Date,
        actorKind: String,
        actor: String,
        osUser: String?,
        action: String,
        targetTenantID: TenantID?,
        target: String?,
        reason: String?,
        details: String
    ) {
        self.id = id
        self.at = at
        self.actorKind = actorKind
        self.actor = actor
        self.osUser = osUser
        self.action = action
        self.targetTenantID = targetTenantID
        self.target = target
        self.reason = reason
        self.details = details
    }
}

/// An audit record to append in the same transaction as the change it describes.
public struct AuditRecord: Sendable, Equatable {
    public var actor: AdminActor
    public var action: String
    public var targetTenantID: TenantID?
    public var target: String?
    public var reason: String
    /// A JSON object with whatever else is worth keeping.
    public var details: String

    public init(
        actor: AdminActor,
        action: String,
        targetTenantID: TenantID?,
        target: String?,
        reason: String,
        details: String = "{}"
    ) {
        self.actor = actor
        self.action = action
        self.targetTenantID = targetTenantID
        self.target = target
        self.reason = reason
        self.details = details
    }
}

/// Filters of the audit log.
public struct AuditFilter: Sendable, Equatable {
    public var actor: String?
    public var action: String?
    public var targetTenantID: TenantID?
    /// Rows whose target is this text: an erased account's pseudonym (`erased-…`), which its rows
    /// keep in place of the account's names.
    public var target: String?
    public var since: Date?
    public var until: Date?
    public var limit: Int

    public init(
        actor: String? = nil,
        action: String? = nil,
        targetTenantID: TenantID? = nil,
        target: String? = nil,
        since: Date? = nil,
        until: Date? = nil,
        limit: Int = 100
    ) {
        self.actor = actor
        self.action = action
        self.targetTenantID = targetTenantID
        self.target = target
        self.since = since
        self.until = until
        self.limit = limit
    }
}

/// Persistence of administrative work across all tenants. Every change method writes its audit
/// record in the same transaction as the change.
public protocol AdminStore: Sendable {
    func accounts(_ filter: AccountFilter) async throws -> [AccountSummary]
    /// The account whose tenant id, account id, e-mail or username is `reference`.
    func findAccount(_ reference: String) async throws -> AccountSummary?
    func accountDetail(_ tenant: TenantID, now: Date) async throws -> AccountDetail?
    func createAccount(_ account: NewAccount, verified: Bool, audit: AuditRecord) async throws
    /// Sets the status; disabling also revokes every session. Returns the number of sessions revoked.
    func setStatus(_ tenant: TenantID, _ status: AccountStatus, now: Date, audit: AuditRecord) async throws -> Int
    func auditLog(_ filter: AuditFilter) async throws -> [AuditEntry]
}

/// How an erased account is called from then on (in the audit log, by spotterctl): the same name
/// whether an operator erased it (`spotterctl accounts delete`) or its owner (`DeleteAccount`).
public enum Erasure {
    /// `erased-` and 12 hex digits of the tenant id's hash.
    public static func pseudonym(_ tenant: TenantID) -> String {
        "erased-" + Token.hash(tenant.description).prefix(6).map { String(format: "%02x", $0) }.joined()
    }
}
