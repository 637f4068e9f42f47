import Foundation

/// A tenant and its first account, ready to be stored.
public struct NewAccount: Sendable, Equatable {
    public var tenantID: TenantID
    public var accountID: AccountID
    public var kind: TenantKind
    public var email: String
    public var username: String
    public var displayName: String
    public var timeZone: String
    public var unit: WeightUnit
    public var passwordHash: String
    public var createdAt: Date

    public init(
        tenantID: TenantID,
        accountID: AccountID,
        kind: TenantKind,
        email: String,
        username: String,
        displayName: String,
        timeZone: String,
        unit: WeightUnit,
        passwordHash: String,
        createdAt: Date
    ) {
        self.tenantID = tenantID
        self.accountID = accountID
        self.kind = kind
        self.email = email
        self.username = username
        self.displayName = displayName
        self.timeZone = timeZone
        self.unit = unit
        self.passwordHash = passwordHash
        self.createdAt = createdAt
    }
}

/// What a single-use e-mailed token is for.
public enum AccountTokenPurpose: String, Sendable {
    case verifyEmail = "verify_email"
    case resetPassword = "reset_password"
    /// A link to a new address, which becomes the account's when the link is used.
    case changeEmail = "change_email"
}

/// A single-use token as stored: only its hash.
public struct AccountToken: Sendable, Equatable {
    public var hash: [UInt8]
    public var purpose: AccountTokenPurpose
    public var expiresAt: Date
    /// The address a `changeEmail` token is for.
    public var newEmail: String?

    public init(hash: [UInt8], purpose: AccountTokenPurpose, expiresAt: Date, newEmail: String? = nil) {
        self.hash = hash
        self.purpose = purpose
        self.expiresAt = expiresAt
        self.newEmail = newEmail
    }
}

/// An e-mail to be written to the outbox in the same transaction as the change that causes it.
public struct OutboxMessage: Sendable, Equatable {
    public var id: UUID
    public var kind: String
    public var recipient: String
    public var subject: String
    public var body: String

    public init(id: UUID = UUID(), kind: String, recipient: String, subject: String, body: String) {
        self.id = id
        self.kind = kind
        self.recipient = recipient
        self.subject = subject
        self.body = body
    }
}

/// An account found by login, with what sign-in needs to decide.
public struct SignInCandidate: Sendable, Equatable {
    public var principal: Principal
    public var passwordHash: String
    public var status: AccountStatus

    /// Its throttling state is read where it is counted (`AuthStore.countSignInAttempt`), under lock.
    public init(principal: Principal, passwordHash: String, status: AccountStatus) {
        self.principal = principal
        self.passwordHash = passwordHash
        self.status = status
    }
}

/// The access and refresh token hashes of a session, with their expiry.
public struct SessionTokens: Sendable, Equatable {
    public var accessHash: [UInt8]
    public var accessExpiresAt: Date
    public var refreshHash: [UInt8]
    public var refreshExpiresAt: Date

    public init(accessHash: [UInt8], accessExpiresAt: Date, refreshHash: [UInt8], refreshExpiresAt: Date) {
        self.accessHash = accessHash
        self.accessExpiresAt = accessExpiresAt
        self.refreshHash = refreshHash
        self.refreshExpiresAt = refreshExpiresAt
    }
}

/// A session about to be opened, after a sign-in from `source`.
public struct NewSession: Sendable, Equatable {
    public var id: SessionID
    public var deviceLabel: String
    /// The client's network address at sign-in.
    public var address: String
    public var tokens: SessionTokens
    public var createdAt: Date
    public var expiresAt: Date
    /// Where the sign-in came from: its failure count is cleared.
    public var source: SignInSource
    /// The device remembered for the account (a new one unless `source` is a known device).
    public var device: KnownDeviceGrant

    public init(
        id: SessionID, deviceLabel: String, address: String = "", tokens: SessionTokens, createdAt: Date,
        expiresAt: Date, source: SignInSource, device: KnownDeviceGrant
    ) {
        self.id = id
        self.deviceLabel = deviceLabel
        self.address = address
        self.tokens = tokens
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.source = source
        self.device = device
    }
}

/// Where a sign-in attempt comes from, as throttling counts it.
public enum SignInSource: Sendable, Hashable {
    /// A device that signed in to the account before and sent its device token.
    case knownDevice(UUID)
    /// Anything else, by the client's address.
    case address(String)

    /// How the store keys its failure count: `device:<id>` or `address:<address>`.
    public var key: String {
        switch self {
        case .knownDevice(let id): "device:" + id.lowercasedString
        case .address(let address): "address:" + address
        }
    }

    public var isKnownDevice: Bool {
        if case .knownDevice = self { true } else { false }
    }

    /// The source a stored `key` names.
    public init?(key: String) {
        if key.hasPrefix("device:") {
            guard let id = UUID(hexadecimal: String(key.dropFirst(7))) else { return nil }
            self = .knownDevice(id)
        } else if key.hasPrefix("address:") {
            self = .address(String(key.dropFirst(8)))
        } else {
            return nil
        }
    }
}

/// The device a successful sign-in leaves remembered, and until when.
public struct KnownDeviceGrant: Sendable, Equatable {
    public var id: UUID
    /// The hash of a new device token; `nil` when the device was known (its token stays).
    public var newTokenHash: [UInt8]?
    public var expiresAt: Date

    public init(id: UUID, newTokenHash: [UInt8]?, expiresAt: Date) {
        self.id = id
        self.newTokenHash = newTokenHash
        self.expiresAt = expiresAt
    }
}

/// A signed-in device as its owner sees it.
public struct SessionInfo: Sendable, Equatable, Codable {
    public var id: SessionID
    public var deviceLabel: String
    /// The client's network address at sign-in; `nil` for sessions from before it was kept.
    public var address: String?
    public var createdAt: Date
    public var lastUsedAt: Date
    public var expiresAt: Date

    public init(
        id: SessionID, deviceLabel: String, address: String? = nil, createdAt: Date, lastUsedAt: Date, expiresAt: Date
    ) {
        self.id = id
        self.deviceLabel = deviceLabel
        self.address = address
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
    }
}

/// The session a refresh token belongs to, as the store found it.
public enum RefreshLookup: Sendable, Equatable {
    /// The token is current: rotate it.
    case current(Principal, sessionExpiresAt: Date)
    /// The token was already used once: whoever holds it now may have stolen it.
    case reused(Principal)
    /// Unknown, expired or its session has ended.
    case invalid
}

/// Tokens handed to a client after sign-in or refresh.
public struct IssuedTokens: Sendable, Equatable {
    public var principal: Principal
    public var accessToken: String
    public var accessExpiresAt: Date
    public var refreshToken: String
    public var refreshExpiresAt: Date
    /// Set after a sign-in: the token that makes this device known to the account.
    public var deviceToken: String?

    public init(
        principal: Principal, accessToken: String, accessExpiresAt: Date, refreshToken: String, refreshExpiresAt: Date,
        deviceToken: String? = nil
    ) {
        self.deviceToken = deviceToken
        self.principal = principal
        self.accessToken = accessToken
        self.accessExpiresAt = accessExpiresAt
        self.refreshToken = refreshToken
        self.refreshExpiresAt = refreshExpiresAt
    }
}

/// Failed sign-ins counted for one account from one source, and until when that source must wait.
public struct AccountFailures: Sendable, Equatable {
    public var failures: Int
    public var lockedUntil: Date?

    public init(failures: Int, lockedUntil: Date?) {
        self.failures = failures
        self.lockedUntil = lockedUntil
    }
}

/// The account-wide ceiling on failed sign-ins from unknown devices: how many within the current
/// window, and until when the next unknown attempt must wait.
public struct AccountCeiling: Sendable, Equatable {
    public var failures: Int
    public var windowStart: Date?
    public var nextAttempt: Date?

    public init(failures: Int, windowStart: Date?, nextAttempt: Date?) {
        self.failures = failures
        self.windowStart = windowStart
        self.nextAttempt = nextAttempt
    }
}

/// Everything counted for a sign-in attempt on one account: its source's failures and the
/// account-wide ceiling (which a known device leaves untouched).
public struct SignInThrottle: Sendable, Equatable {
    public var source: AccountFailures
    public var ceiling: AccountCeiling

    public init(source: AccountFailures, ceiling: AccountCeiling) {
        self.source = source
        self.ceiling = ceiling
    }
}

/// What a throttle answers to one more attempt: go ahead, counted in the new state (which the store
/// writes), or wait until a time (nothing is written).
public enum ThrottleDecision<State: Sendable & Equatable>: Sendable, Equatable {
    case proceed(State)
    case refuse(until: Date)
}

/// Failed sign-ins counted for one client address.
public struct AddressFailures: Sendable, Equatable {
    public var failures: Int
    public var windowStart: Date
    public var blockedUntil: Date?

    public init(failures: Int, windowStart: Date, blockedUntil: Date?) {
        self.failures = failures
        self.windowStart = windowStart
        self.blockedUntil = blockedUntil
    }
}

/// What a sign-in answers: a session, or a request for the second factor.
public enum SignInResult: Sendable, Equatable {
    case signedIn(IssuedTokens)
    /// The password was right and the account has two-factor sign-in on: finish with
    /// `AuthService.completeSignIn(challenge:code:)`.
    case secondFactorRequired(challenge: String, expiresAt: Date)
}

/// An account's two-factor state: its sealed TOTP secret, and whether it is on yet.
public struct TwoFactorRecord: Sendable, Equatable {
    public var secret: MfaKeyring.Sealed
    /// `nil` while an enrolment waits for its first code.
    public var enabledAt: Date?

    public init(secret: MfaKeyring.Sealed, enabledAt: Date?) {
        self.secret = secret
        self.enabledAt = enabledAt
    }
}

/// The second step of a sign-in whose password was right: what opening the session will need.
public struct SignInChallenge: Sendable, Equatable {
    public var hash: [UInt8]
    public var source: SignInSource
    public var address: String
    public var deviceLabel: String
    public var expiresAt: Date

    public init(hash: [UInt8], source: SignInSource, address: String, deviceLabel: String, expiresAt: Date) {
        self.hash = hash
        self.source = source
        self.address = address
        self.deviceLabel = deviceLabel
        self.expiresAt = expiresAt
    }
}

/// A name an account gave up, held for it until `heldUntil` (nobody else may take it; the
/// account may take it back).
public struct UsernameHold: Sendable, Equatable {
    /// Lower-cased.
    public var username: String
    public var heldUntil: Date

    public init(username: String, heldUntil: Date) {
        self.username = username
        self.heldUntil = heldUntil
    }
}

/// Why an access token that authenticates nothing does not (`AuthStore.accessTokenState`).
public enum AccessTokenState: String, Sendable {
    /// The session lives; its token's 15 minutes are over: a refresh gives a new one.
    case expired
    /// The session was signed out, revoked or has expired, or the account is disabled.
    case ended
}

/// A change of address waiting for its link to be opened (`AuthService.changeEmail`).
public struct PendingEmailChange: Sendable, Equatable {
    public var email: String
    public var sentAt: Date
    /// When the link stops working.
    public var expiresAt: Date

    public init(email: String, sentAt: Date, expiresAt: Date) {
        self.email = email
        self.sentAt = sentAt
        self.expiresAt = expiresAt
    }
}

/// What using a change-of-address link did.
public enum EmailChangeOutcome: Sendable, Equatable {
    /// The address is the account's now.
    case changed(Principal, email: String)
    /// Another account has the address now: nothing changed.
    case taken(email: String)
}

/// An account's e-mail address as a verification e-mail needs it.
public struct EmailStatus: Sendable, Equatable {
    public var email: String
    public var verified: Bool
    public var username: String

    public init(email: String, verified: Bool, username: String) {
        self.email = email
        self.verified = verified
        self.username = username
    }
}
