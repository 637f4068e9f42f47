import Foundation

/// Whether a tenant is a lifter or a coach.
public enum TenantKind: String, Sendable, Codable, CaseIterable {
    case lifter
    case coach
}

/// The unit a tenant wants to see weights in.
public enum WeightUnit: String, Sendable, Codable, CaseIterable {
    case kg
    case lb
}

/// A subscription tier. Lifters are `free` or `pro`; coaches are `free`, `coach` or `coachPro`.
public enum Tier: String, Sendable, Codable, CaseIterable {
    /// How much the tier gives, to tell a lowering from a raise: free, then pro or coach, then
    /// coach_pro.
    public var rank: Int {
        switch self {
        case .free: 0
        case .pro, .coach: 1
        case .coachPro: 2
        }
    }

    case free
    case pro
    case coach
    case coachPro = "coach_pro"

    /// Whether a tenant of `kind` can hold this tier.
    public func isAvailable(to kind: TenantKind) -> Bool {
        switch (kind, self) {
        case (_, .free), (.lifter, .pro), (.coach, .coach), (.coach, .coachPro): true
        default: false
        }
    }
}

/// A tenant's tier as stored, and the rule that an expired tier counts as free.
public struct TierGrant: Sendable, Hashable, Codable {
    public var tier: Tier
    public var expiresAt: Date?

    public init(tier: Tier, expiresAt: Date? = nil) {
        self.tier = tier
        self.expiresAt = expiresAt
    }

    /// The tier in force at `now`.
    public func effective(at now: Date) -> Tier {
        if let expiresAt, expiresAt <= now { return .free }
        return tier
    }
}

/// Account status.
public enum AccountStatus: String, Sendable, Codable {
    case active
    case disabled
}

/// The signed-in tenant's profile.
public struct Profile: Sendable, Equatable, Codable {
    public var tenantID: TenantID
    public var accountID: AccountID
    public var kind: TenantKind
    public var email: String
    public var emailVerifiedAt: Date?
    public var username: String
    public var displayName: String
    public var timeZone: String
    public var unit: WeightUnit
    public var tier: TierGrant
    public var status: AccountStatus
    public var createdAt: Date
    /// Grows with each change of the tenant's settings (name, time zone, unit, tier, bio).
    public var version: Int64
    /// What a coach says about themselves, at most 1,000 characters; empty when not written.
    public var bio: String
    /// What a coach coaches ("powerlifting", "beginners"): at most 8, each 1–40 characters.
    public var specialities: [String]
    /// `YYYY-MM-DD`, for the Birthday trophy; `nil` when not given.
    public var birthday: String?
    /// Whether coaching news (a request, an accepted one, a comment) is e-mailed
    /// (0060_email_notifications.sql).
    public var emailNotifications: Bool

    public init(
        tenantID: TenantID,
        accountID: AccountID,
        kind: TenantKind,
        email: String,
        emailVerifiedAt: Date?,
        username: String,
        displayName: String,
        timeZone: String,
        unit: WeightUnit,
        tier: TierGrant,
        status: AccountStatus,
        createdAt: Date,
        version: Int64 = 1,
        bio: String = "",
        specialities: [String] = [],
        birthday: String? = nil,
        emailNotifications: Bool = true
    ) {
        self.tenantID = tenantID
        self.accountID = accountID
        self.kind = kind
        self.email = email
        self.emailVerifiedAt = emailVerifiedAt
        self.username = username
        self.displayName = displayName
        self.timeZone = timeZone
        self.unit = unit
        self.tier = tier
        self.status = status
        self.createdAt = createdAt
        self.version = version
        self.bio = bio
        self.specialities = specialities
        self.birthday = birthday
        self.emailNotifications = emailNotifications
    }
}

/// Changes to a profile; `nil` keeps the current value.
public struct ProfileUpdate: Sendable, Equatable {
    public var displayName: String?
    public var timeZone: String?
    public var unit: WeightUnit?
    public var bio: String?
    public var specialities: [String]?
    /// `YYYY-MM-DD`; empty clears it.
    public var birthday: String?
    public var emailNotifications: Bool?

    public init(
        displayName: String? = nil, timeZone: String? = nil, unit: WeightUnit? = nil, bio: String? = nil,
        specialities: [String]? = nil, birthday: String? = nil, emailNotifications: Bool? = nil
    ) {
        self.displayName = displayName
        self.timeZone = timeZone
        self.unit = unit
        self.bio = bio
        self.specialities = specialities
        self.birthday = birthday
        self.emailNotifications = emailNotifications
    }
}
