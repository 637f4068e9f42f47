import Foundation
import Logging

/// Registration, sign-in, tokens and sessions: every rule of authentication lives here.
public struct AuthService: Sendable {
    /// What a registration asks for.
    public struct Registration: Sendable {
        /// What is wrong with the fields, each named, before any account is looked at.
        public var violations: [FieldViolation] {
            var validator = Validator()
            if let problem = CredentialRules.emailProblem(CredentialRules.normalize(email)) {
                validator.add("email", problem)
            }
            if let problem = CredentialRules.usernameProblem(username.trimmingWhitespaces()) {
                validator.add("username", problem)
            }
            if let problem = CredentialRules.passwordProblem(password) { validator.add("password", problem) }
            validator.check(kind != nil, "kind", "must be LIFTER or COACH")
            validator.check(!unreadUnit, "unit", "must be KG or LB")
            if let displayName, let problem = CredentialRules.displayNameProblem(displayName) {
                validator.add("display_name", problem)
            }
            if let timeZone, let problem = CredentialRules.timeZoneProblem(timeZone) {
                validator.add("time_zone", problem)
            }
            return validator.violations
        }

        public var email: String
        public var username: String
        public var password: String
        public var kind: TenantKind?
        public var displayName: String?
        public var timeZone: String?
        public var unit: WeightUnit?
        /// The request named a unit that is none (an enum value out of range): refused, not taken
        /// as the default.
        public var unreadUnit: Bool
        /// The client's address: failed registrations count against it like failed sign-ins.
        public var address: String

        public init(
            email: String,
            username: String,
            password: String,
            kind: TenantKind?,
            displayName: String? = nil,
            timeZone: String? = nil,
            unit: WeightUnit? = nil,
            unreadUnit: Bool = false,
            address: String = ""
        ) {
            self.address = address
            self.unreadUnit = unreadUnit
            self.email = email
            self.username = username
            self.password = password
            self.kind = kind
            self.displayName = displayName
            self.timeZone = timeZone
            self.unit = unit
        }
    }

    let store: any AuthStore
    /// Checks sign-in passwords.
    let hasher: PasswordHasher
    /// Hashes new passwords (registration, reset) in a lane of its own, so a flood of registrations
    /// never takes the slots sign-ins need.
    private let newPasswordHasher: PasswordHasher
    let policy: AuthPolicy
    /// Seals and opens two-factor secrets.
    private let keyring: MfaKeyring
    let now: @Sendable () -> Date
    let logger: Logger

    public init(
        store: any AuthStore,
        hasher: PasswordHasher,
        newPasswordHasher: PasswordHasher? = nil,
        keyring: MfaKeyring,
        policy: AuthPolicy = AuthPolicy(),
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger
    ) {
        self.store = store
        self.hasher = hasher
        self.newPasswordHasher = newPasswordHasher ?? hasher
        self.keyring = keyring
        self.policy = policy
        self.now = now
        self.logger = logger
    }

    /// Registers as `register` does and opens a session for the new account at once (the portal's
    /// sign-up): the password is hashed once, and no sign-in can fail after the account exists.
    public func registerAndSignIn(_ registration: Registration, deviceLabel: String) async throws -> IssuedTokens {
        let account = try await register(registration)
        return try await openSession(
            account, source: .address(registration.address), address: registration.address,
            deviceLabel: deviceLabel.trimmingWhitespaces(), deviceToken: nil, checked: false)
    }

    /// Creates a tenant and its account and e-mails a verification link.
    public func register(_ registration: Registration) async throws -> Principal {
        let email = CredentialRules.normalize(registration.email)
        let username = registration.username.trimmingWhitespaces()
        let violations = registration.violations
        if !violations.isEmpty { throw SpotterError.invalidArgument(violations) }
        // Cheap refusals first, so a flood of failing registrations never queues password hashes:
        // counted like a failed sign-in until the account exists.
        try await countAttempt(from: registration.address, now: now())
        if let taken = try await store.takenFields(email: email, username: username).first {
            throw SpotterError.alreadyExists(field: taken, reason: "is already taken")
        }

        let principal = Principal(tenantID: .random(), accountID: .random())
        let created = now()
        let token = Token.generate(prefix: "spv")
        let account = NewAccount(
            tenantID: principal.tenantID,
            accountID: principal.accountID,
            kind: registration.kind!,
            email: email,
            username: username,
            displayName: registration.displayName?.trimmingWhitespaces() ?? username,
            timeZone: registration.timeZone ?? "UTC",
            unit: registration.unit ?? .kg,
            passwordHash: try await hashing(refunding: registration.address) {
                try await newPasswordHasher.hash(registration.password)
            },
            createdAt: created
        )
        try await store.createAccount(
            account,
            verification: AccountToken(
                hash: Token.hash(token),
                purpose: .verifyEmail,
                expiresAt: created.addingTimeInterval(policy.verificationTokenLifetime)
            ),
            email: Mail.verification(to: email, username: username, token: token, publicURL: policy.publicURL)
        )
        try await refundAttempt(from: registration.address)
        logger.info("registered", metadata: ["tenant": "\(principal.tenantID)", "kind": "\(account.kind.rawValue)"])
        return principal
    }

    /// E-mails a new verification link to the signed-in account's address (the earlier links keep
    /// working until they expire). `failedPrecondition` when the address is verified already;
    /// `tooManyRequests` past three links an hour, as password resets are limited.
    public func resendVerification(_ principal: Principal) async throws {
        let account = try await store.emailStatus(principal)
        guard !account.verified else { throw SpotterError.failedPrecondition("your address is verified already") }
        let started = now()
        guard try await mayEmailLink(principal, .verifyEmail, at: started) else {
            throw tooManyLinks(
                "verification e-mails were sent in the last hour; check your inbox and spam folder, or try again later")
        }
        let token = Token.generate(prefix: "spv")
        try await store.issueAccountToken(
            principal,
            AccountToken(
                hash: Token.hash(token), purpose: .verifyEmail,
                expiresAt: started.addingTimeInterval(policy.verificationTokenLifetime)),
            emails: [
                Mail.verification(
                    to: account.email, username: account.username, token: token, publicURL: policy.publicURL)
            ])
    }

    /// How long a known device is remembered after its last sign-in.
    public var knownDeviceLifetime: TimeInterval { policy.knownDeviceLifetime }

    /// Where the portal is, as e-mailed links name it (`SPOTTER_PUBLIC_URL`).
    public var publicURL: String { policy.publicURL }

    /// Checks a login and password and opens a session. Failures are throttled per account and
    /// source (the client's address, or a known device when `deviceToken` is one of the account's),
    /// per address, and across the account for unknown devices only (see `AuthPolicy`).
    public func signIn(login: String, password: String, deviceLabel: String, deviceToken: String = "", address: String)
        async throws -> SignInResult
    {
        var validator = Validator()
        validator.check(!login.isEmpty, "login", "is required")
        validator.check(!password.isEmpty, "password", "is required")
        validator.check(!CredentialRules.passwordTooLong(password), "password", "is too long")
        validator.check(deviceLabel.storedLength <= 100, "device_label", "must be at most 100 characters")
        validator.check(deviceToken.utf8.count <= 200, "device_token", "is not a device token")
        try validator.validate()

        // Every attempt is counted as a failure before any password is hashed, atomically, and taken
        // back once it succeeds: parallel guesses stop at the limit instead of all being checked.
        let started = now()
        let candidate = try await store.signInCandidate(login: CredentialRules.normalize(login))
        var source = SignInSource.address(address)
        if let candidate, !deviceToken.isEmpty,
            let device = try await store.knownDevice(
                candidate.principal, tokenHash: Token.hash(deviceToken), now: started)
        {
            source = .knownDevice(device)
        }
        // A known device is its own source: an address blocked by someone else's guesses (a shared
        // network) does not stop it.
        if !source.isKnownDevice { try await countAttempt(from: address, now: started) }
        guard let candidate else {
            try await hashing(refunding: address) { try await hasher.verifyDummy(password) }
            throw SpotterError.unauthenticated("invalid login or password")
        }
        try await countAccountAttempt(candidate.principal, from: source, now: started)
        let matches = try await hashing(refunding: address, account: (candidate.principal, source)) {
            try await hasher.verify(password, against: candidate.passwordHash)
        }
        guard matches else {
            logger.notice(
                "sign-in failed",
                metadata: ["tenant": "\(candidate.principal.tenantID)", "known_device": "\(source.isKnownDevice)"])
            throw SpotterError.unauthenticated("invalid login or password")
        }
        guard candidate.status == .active else { throw SpotterError.unauthenticated("this account is disabled") }
        let label = deviceLabel.trimmingWhitespaces()
        if let twoFactor = try await store.twoFactor(candidate.principal), twoFactor.enabledAt != nil {
            // The attempt stays counted until a code completes it: guessing codes costs attempts.
            let challenge = Token.generate(prefix: "spm")
            let expiresAt = started.addingTimeInterval(policy.signInChallengeLifetime)
            try await store.createSignInChallenge(
                candidate.principal,
                SignInChallenge(
                    hash: Token.hash(challenge), source: source, address: address, deviceLabel: label,
                    expiresAt: expiresAt))
            return .secondFactorRequired(challenge: challenge, expiresAt: expiresAt)
        }
        return .signedIn(
            try await openSession(
                candidate.principal, source: source, address: address, deviceLabel: label, deviceToken: deviceToken))
    }

    private static let spentChallenge = SpotterError.unauthenticated(
        "the sign-in challenge is unknown, used, expired or tried too often")

    /// The second step of a sign-in with two factors: a code from the authenticator app (or a
    /// recovery code) for the challenge `signIn` returned. A challenge takes five codes at most.
    public func completeSignIn(challenge: String, code: String) async throws -> IssuedTokens {
        var validator = Validator()
        validator.check(!challenge.isEmpty, "challenge", "is required")
        validator.check(!code.isEmpty, "code", "is required")
        try validator.validate()
        let hash = Token.hash(challenge)
        guard
            let (principal, pending) = try await store.takeSignInChallenge(
                hash: hash, now: now(), maxAttempts: policy.signInChallengeAttempts)
        else { throw Self.spentChallenge }
        guard let twoFactor = try await store.twoFactor(principal), twoFactor.enabledAt != nil else {
            throw Self.spentChallenge
        }
        try await checkSecondFactor(principal, code: code, record: twoFactor)
        try await store.finishSignInChallenge(principal, hash: hash, now: now())
        return try await openSession(
            principal, source: pending.source, address: pending.address, deviceLabel: pending.deviceLabel,
            deviceToken: nil)
    }

    /// Takes back the attempt a successful sign-in counted (unless `checked` is false: an account
    /// just registered, against which nothing was counted), and opens its session on a known
    /// device: the one it came from, or a new one. `deviceToken` is the token the client sent when
    /// it is to be kept; with `nil`, a known device gets a new token.
    private func openSession(
        _ account: Principal, source: SignInSource, address: String, deviceLabel: String, deviceToken: String?,
        checked: Bool = true
    ) async throws -> IssuedTokens {
        if checked { try await takeBack(account, source: source, address: address) }

        let sessionID = SessionID.random()
        let principal = Principal(tenantID: account.tenantID, accountID: account.accountID, sessionID: sessionID)
        let opened = now()
        let sessionEnd = opened.addingTimeInterval(policy.sessionLifetime)
        let (tokens, tokensIssued) = newTokens(for: principal, now: opened, sessionEnd: sessionEnd)
        var issued = tokensIssued
        let deviceExpiry = opened.addingTimeInterval(policy.knownDeviceLifetime)
        let device: KnownDeviceGrant
        if case .knownDevice(let id) = source, let deviceToken, !deviceToken.isEmpty {
            device = KnownDeviceGrant(id: id, newTokenHash: nil, expiresAt: deviceExpiry)
            issued.deviceToken = deviceToken
        } else {
            let token = Token.generate(prefix: "spd")
            let id: UUID
            if case .knownDevice(let known) = source { id = known } else { id = UUID() }
            device = KnownDeviceGrant(id: id, newTokenHash: Token.hash(token), expiresAt: deviceExpiry)
            issued.deviceToken = token
        }
        try await store.openSession(
            principal,
            NewSession(
                id: sessionID, deviceLabel: deviceLabel, address: address, tokens: tokens, createdAt: opened,
                expiresAt: sessionEnd, source: source, device: device),
            keepingDevices: policy.knownDevicesPerAccount
        )
        logger.info("signed in", metadata: ["tenant": "\(principal.tenantID)", "session": "\(sessionID)"])
        return issued
    }

    // MARK: Two-factor sign-in

    /// What an authenticator app needs to start making codes for the account.
    public struct TwoFactorEnrollment: Sendable, Equatable {
        /// The secret in base32.
        public var secret: String
        public var provisioningURI: String
    }

    /// Starts turning on two-factor sign-in with a new secret; nothing changes until
    /// `confirmTwoFactor`. `failedPrecondition` when it is already on.
    public func beginTwoFactor(_ principal: Principal) async throws -> TwoFactorEnrollment {
        let secret = SecureRandom.bytes(20)
        guard try await store.beginTwoFactor(principal, secret: try keyring.seal(secret, for: principal.accountID))
        else { throw SpotterError.failedPrecondition("two-factor sign-in is already on; turn it off first") }
        return try await enrollment(principal, secret)
    }

    /// Whether two-factor sign-in is off, begun and waiting for its first code, or on.
    public enum TwoFactorState: Sendable, Equatable {
        case off
        /// The enrolment `beginTwoFactor` started, with the same secret, to show it again.
        case waiting(TwoFactorEnrollment)
        case on(since: Date)
    }

    /// The account's two-factor sign-in as the portal's security page shows it.
    public func twoFactorState(_ principal: Principal) async throws -> TwoFactorState {
        guard let record = try await store.twoFactor(principal) else { return .off }
        if let since = record.enabledAt { return .on(since: since) }
        return .waiting(try await enrollment(principal, try keyring.open(record.secret, for: principal.accountID)))
    }

    private func enrollment(_ principal: Principal, _ secret: [UInt8]) async throws -> TwoFactorEnrollment {
        let name = try await store.username(principal)
        return TwoFactorEnrollment(
            secret: Base32.encode(secret), provisioningURI: TOTP.provisioningURI(secret: secret, account: name))
    }

    /// Turns two-factor sign-in on with a current code for the enrolment's secret; returns ten
    /// recovery codes, shown this once.
    public func confirmTwoFactor(_ principal: Principal, code: String) async throws -> [String] {
        guard let record = try await store.twoFactor(principal), record.enabledAt == nil else {
            throw SpotterError.failedPrecondition(
                "no two-factor enrolment is waiting; call BeginMfaEnrollment first (or it is already on)")
        }
        guard case .totp(let digits)? = SecondFactorCode(code) else {
            throw SpotterError.invalid("code", "must be the six digits your authenticator app shows")
        }
        let started = now()
        let secret = try keyring.open(record.secret, for: principal.accountID)
        guard let step = TOTP.matchingStep(digits, secret: secret, at: started) else {
            throw SpotterError.invalid(
                "code",
                "does not match the key being set up; check the app's clock, and that the app holds the newest key if the set-up was started again"
            )
        }
        let codes = RecoveryCodes.generate()
        guard
            try await store.enableTwoFactor(
                principal, secret: record.secret, step: step, recoveryCodeHashes: codes.map(RecoveryCodes.hash),
                now: started)
        else {
            // Another call got there first: turned it on, or began again with a new key, which the
            // app that made this code does not have.
            if try await store.twoFactor(principal)?.enabledAt != nil {
                throw SpotterError.failedPrecondition("two-factor sign-in is already on")
            }
            throw SpotterError.failedPrecondition(
                "two-factor set-up was started again meanwhile with a new key; add the newest one to your app")
        }
        logger.notice("two-factor sign-in turned on", metadata: ["tenant": "\(principal.tenantID)"])
        return codes
    }

    /// Turns two-factor sign-in off with a current code (or a recovery code).
    public func disableTwoFactor(_ principal: Principal, code: String) async throws {
        guard let record = try await store.twoFactor(principal), record.enabledAt != nil else {
            throw SpotterError.failedPrecondition("two-factor sign-in is not on")
        }
        try await checkSecondFactor(principal, code: code, record: record, wrongCode: Self.wrongCodeSignedIn)
        try await store.disableTwoFactor(principal)
        logger.notice("two-factor sign-in turned off", metadata: ["tenant": "\(principal.tenantID)"])
    }

    /// Replaces the recovery codes with ten new ones, shown this once, given a current code from the
    /// app (a recovery code cannot make new ones: whoever holds only those should turn it off).
    public func regenerateRecoveryCodes(_ principal: Principal, code: String) async throws -> [String] {
        guard let record = try await store.twoFactor(principal), record.enabledAt != nil else {
            throw SpotterError.failedPrecondition("two-factor sign-in is not on")
        }
        guard case .totp? = SecondFactorCode(code) else {
            throw SpotterError.invalid("code", "must be the six digits your authenticator app shows")
        }
        try await checkSecondFactor(principal, code: code, record: record, wrongCode: Self.wrongCodeSignedIn)
        let codes = RecoveryCodes.generate()
        guard try await store.replaceRecoveryCodes(principal, hashes: codes.map(RecoveryCodes.hash)) else {
            throw SpotterError.failedPrecondition("two-factor sign-in is not on")
        }
        logger.notice("recovery codes replaced", metadata: ["tenant": "\(principal.tenantID)"])
        return codes
    }

    /// A wrong code on a signed-in call (turning two-factor off, new recovery codes): the request's
    /// field is wrong, and the caller's token still holds, so not UNAUTHENTICATED, which an app
    /// reads as "signed out".
    static let wrongCodeSignedIn = SpotterError.invalid(
        "code", "is wrong or was already used (each code works once; the app shows a new one every 30 seconds)")

    /// Checks a second-factor code, counted before it is checked; each code works once. A wrong or
    /// used one is `wrongCode`: UNAUTHENTICATED while signing in.
    func checkSecondFactor(
        _ principal: Principal, code text: String, record: TwoFactorRecord,
        wrongCode: SpotterError = .unauthenticated(
            "code: is wrong or was already used (each code works once; the app shows a new one every 30 seconds)")
    ) async throws {
        guard let code = SecondFactorCode(text) else {
            throw SpotterError.invalid(
                "code", "must be the six digits your authenticator app shows, or a recovery code")
        }
        let started = now()
        if case .refuse(let until) = try await store.countSecondFactorAttempt(
            principal, { [policy] in policy.secondFactorAttempt(after: $0, now: started) })
        {
            throw throttled(until: until, now: started, what: "wrong codes")
        }
        let accepted: Bool
        switch code {
        case .totp(let digits):
            let secret = try keyring.open(record.secret, for: principal.accountID)
            if let step = TOTP.matchingStep(digits, secret: secret, at: started) {
                accepted = try await store.acceptTwoFactorStep(principal, step: step)
            } else {
                accepted = false
            }
        case .recovery(let value):
            accepted = try await store.useRecoveryCode(principal, hash: RecoveryCodes.hash(value), now: started)
        }
        guard accepted else {
            logger.notice("second factor refused", metadata: ["tenant": "\(principal.tenantID)"])
            throw wrongCode
        }
    }

    /// Exchanges a refresh token for new tokens. A refresh token that was already used revokes the
    /// whole session: the legitimate client and a thief cannot both hold a working token.
    public func refresh(refreshToken: String) async throws -> IssuedTokens {
        guard !refreshToken.isEmpty else { throw SpotterError.invalid("refresh_token", "is required") }
        let hash = Token.hash(refreshToken)
        let started = now()
        switch try await store.lookupRefreshToken(hash: hash, now: started) {
        case .invalid:
            throw SpotterError.unauthenticated("the refresh token is not valid; sign in again")
        case .reused(let principal):
            try await revokeForReuse(principal, now: started)
        case .current(let principal, let sessionEnd):
            let (tokens, issued) = newTokens(for: principal, now: started, sessionEnd: sessionEnd)
            guard try await store.rotateTokens(principal, oldRefreshHash: hash, to: tokens, now: started) else {
                try await revokeForReuse(principal, now: started)
            }
            return issued
        }
    }

    /// The principal of a valid access token; `unauthenticated` otherwise, saying whether a
    /// refresh will do (the token expired) or only a sign-in (the session ended).
    public func authenticate(accessToken: String) async throws -> Principal {
        guard !accessToken.isEmpty else { throw SpotterError.unauthenticated(Self.invalidAccessToken) }
        let hash = Token.hash(accessToken)
        let at = now()
        if let principal = try await store.authenticate(accessTokenHash: hash, now: at) { return principal }
        switch try await store.accessTokenState(hash: hash, now: at) {
        case .expired:
            throw SpotterError.unauthenticated(
                "the access token has expired; get a new one with your refresh token", token: .expired)
        case .ended:
            throw SpotterError.unauthenticated(
                "the session has ended (signed out, revoked or expired, or the account is disabled); sign in again",
                token: .ended)
        case nil:
            throw SpotterError.unauthenticated(Self.invalidAccessToken)
        }
    }

    /// No session has the token: never issued, or replaced by a refresh (whose new token works).
    static let invalidAccessToken =
        "the access token is not valid (a refresh replaces it: use the newest, or sign in again)"

    /// Ends the principal's current session.
    public func signOut(_ principal: Principal) async throws {
        guard let session = principal.sessionID else { return }
        try await store.revokeSession(principal, session, reason: "signed out", now: now())
    }

    /// The principal's live sessions, newest first.
    public func sessions(_ principal: Principal) async throws -> [SessionInfo] {
        try await store.sessions(principal, now: now())
    }

    /// Revokes one of the principal's own sessions.
    public func revokeSession(_ principal: Principal, _ session: SessionID) async throws {
        guard try await store.revokeSession(principal, session, reason: "revoked by owner", now: now()) else {
            throw SpotterError.notFound("session \(session) not found")
        }
    }

    /// E-mails a reset link when an account has this address; says nothing either way.
    public func requestPasswordReset(email: String, address: String = "") async throws {
        let normalized = CredentialRules.normalize(email)
        if let problem = CredentialRules.emailProblem(normalized) { throw SpotterError.invalid("email", problem) }
        // Each request counts against the client's address; each account gets a few e-mails an hour.
        let started = now()
        try await countAttempt(from: address, now: started)
        guard let principal = try await store.principal(forEmail: normalized) else {
            logger.info("password reset asked for an unknown address")
            return
        }
        guard try await mayEmailLink(principal, .resetPassword, at: started) else {
            logger.notice(
                "password reset not sent: too many for the account", metadata: ["tenant": "\(principal.tenantID)"])
            return
        }
        let token = Token.generate(prefix: "spp")
        try await store.issueAccountToken(
            principal,
            AccountToken(
                hash: Token.hash(token),
                purpose: .resetPassword,
                expiresAt: now().addingTimeInterval(policy.resetTokenLifetime)
            ),
            emails: [Mail.passwordReset(to: normalized, token: token, publicURL: policy.publicURL)]
        )
    }

    /// Changes the signed-in account's password: the current one is checked (wrong guesses are
    /// throttled as sign-ins are, from `address`), the new one must follow the rules and differ.
    /// Every other session ends, and unused reset links stop working; this session goes on.
    /// Returns how many sessions ended.
    public func changePassword(_ principal: Principal, current: String, new: String, address: String) async throws
        -> Int
    {
        var validator = Validator()
        validator.check(!current.isEmpty, "current_password", "is required")
        validator.check(!CredentialRules.passwordTooLong(current), "current_password", "is too long")
        if let problem = CredentialRules.passwordProblem(new) { validator.add("new_password", problem) }
        validator.check(current.isEmpty || new != current, "new_password", "must differ from the current password")
        try validator.validate()
        guard let session = principal.sessionID else { throw SpotterError.unauthenticated("sign in first") }
        try await checkPassword(
            principal, current, wrong: .invalid("current_password", "is not your password"), address: address)
        let hash = try await newPasswordHasher.hash(new)
        // The account's counts are cleared with the change.
        let ended = try await store.changePassword(principal, passwordHash: hash, keeping: session, now: now())
        logger.info("password changed", metadata: ["tenant": "\(principal.tenantID)", "sessions_ended": "\(ended)"])
        return ended
    }

    /// Whether an e-mailed link's token (a password reset or an address verification) still works,
    /// without using it: a page can say at once that a link is used or expired.
    public func accountTokenIsUsable(_ token: String, for purpose: AccountTokenPurpose) async throws -> Bool {
        guard !token.isEmpty, token.utf8.count <= 200 else { return false }
        return try await store.accountTokenIsUsable(hash: Token.hash(token), purpose: purpose, now: now())
    }

    /// Sets a new password with a reset token and signs out every device.
    public func completePasswordReset(token: String, newPassword: String) async throws {
        var validator = Validator()
        validator.check(!token.isEmpty, "token", "is required")
        if let problem = CredentialRules.passwordProblem(newPassword) { validator.add("new_password", problem) }
        try validator.validate()
        guard
            let principal = try await store.consumeAccountToken(
                hash: Token.hash(token), purpose: .resetPassword, now: now())
        else { throw SpotterError.notFound("the reset token is unknown, used or expired") }
        try await store.resetPassword(
            principal, passwordHash: try await newPasswordHasher.hash(newPassword), now: now())
        logger.info("password reset", metadata: ["tenant": "\(principal.tenantID)"])
    }

    private func revokeForReuse(_ principal: Principal, now: Date) async throws -> Never {
        if let session = principal.sessionID {
            try await store.revokeSession(principal, session, reason: "refresh token reused", now: now)
        }
        logger.warning("refresh token reused; session revoked", metadata: ["tenant": "\(principal.tenantID)"])
        throw SpotterError.unauthenticated("the refresh token is not valid; sign in again")
    }

    private func newTokens(for principal: Principal, now: Date, sessionEnd: Date) -> (SessionTokens, IssuedTokens) {
        let access = Token.generate(prefix: "spa")
        let refresh = Token.generate(prefix: "spr")
        let accessEnd = min(now.addingTimeInterval(policy.accessTokenLifetime), sessionEnd)
        let refreshEnd = min(now.addingTimeInterval(policy.refreshTokenLifetime), sessionEnd)
        return (
            SessionTokens(
                accessHash: Token.hash(access),
                accessExpiresAt: accessEnd,
                refreshHash: Token.hash(refresh),
                refreshExpiresAt: refreshEnd
            ),
            IssuedTokens(
                principal: principal,
                accessToken: access,
                accessExpiresAt: accessEnd,
                refreshToken: refresh,
                refreshExpiresAt: refreshEnd
            )
        )
    }

    /// Counts one attempt from `address` before any work; `tooManyRequests` while it is blocked.
    private func countAttempt(from address: String, now: Date) async throws {
        if case .refuse(let blocked) = try await store.countAddressAttempt(
            address, { [policy] in policy.addressAttempt(after: $0, now: now) })
        {
            throw throttled(until: blocked, now: now)
        }
    }

    /// Counts a password guess against the account from `source` before the password is checked
    /// (taken back once it is right); refused, naming `what`, while that source waits.
    func countAccountAttempt(
        _ account: Principal, from source: SignInSource, now: Date, what: String = "failed sign-ins"
    ) async throws {
        if case .refuse(let locked) = try await store.countSignInAttempt(
            account, from: source,
            { [policy] in policy.signInAttempt(after: $0, knownDevice: source.isKnownDevice, now: now) })
        {
            throw throttled(until: locked, now: now, what: what)
        }
    }

    /// Runs password work; when the server is too busy to do it (`tooManyRequests` from the hasher),
    /// takes back the attempts counted for it first: nobody's password was checked, so a flood must
    /// not count the real owner's sign-ins as failures.
    func hashing<T>(
        refunding address: String, account: (Principal, SignInSource)? = nil, countedAddress: Bool = true,
        _ work: () async throws -> T
    ) async throws -> T {
        do {
            return try await work()
        } catch let error as SpotterError {
            guard case .tooManyRequests = error else { throw error }
            if let (principal, source) = account {
                try await takeBack(principal, source: source, address: address, countedAddress: countedAddress)
            } else {
                try await refundAttempt(from: address)
            }
            throw error
        }
    }

    /// Takes back a sign-in attempt on `account` from `source`: from the source's count and the
    /// account-wide ceiling, and from the address unless the source is a known device or the
    /// attempt was not `countedAddress` (a signed-in owner's password typed again).
    func takeBack(_ account: Principal, source: SignInSource, address: String, countedAddress: Bool = true)
        async throws
    {
        _ = try await store.countSignInAttempt(account, from: source) { [policy, source] in
            policy.signInThrottle(takingBack: $0, knownDevice: source.isKnownDevice)
        }
        if countedAddress, !source.isKnownDevice { try await refundAttempt(from: address) }
    }

    /// Takes back the attempt counted for `address` once it succeeded.
    func refundAttempt(from address: String) async throws {
        _ = try await store.countAddressAttempt(address) { [policy] in policy.addressFailures(afterSuccess: $0) }
    }

    private func throttled(until: Date, now: Date, what: String = "failed sign-ins") -> SpotterError {
        // Stored times are microsecond-precise: ignore sub-millisecond noise before rounding up.
        let seconds = max(1, Int((until.timeIntervalSince(now) - 0.001).rounded(.up)))
        return .tooManyRequests(
            "too many \(what); try again in \(DisplayFormat.count(seconds, "second"))", retryAfterSeconds: seconds)
    }
}
