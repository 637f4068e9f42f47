import Foundation

/// What a signed-in owner changes of their own account: the e-mail address (confirmed by a link to
/// the new one), the username, and the account itself, deleted. Each asks for the password again
/// (and, for the address and the deletion, a second-factor code while two-factor sign-in is on).
extension AuthService {
    /// Consumes a verification token and marks the address verified; or a link sent to a new
    /// address (`changeEmail`), which makes that address the account's, verified, and returns it.
    /// `failedPrecondition` naming the address when another account has it now.
    @discardableResult
    public func verifyEmail(token: String) async throws -> String? {
        guard !token.isEmpty else { throw SpotterError.invalid("token", "is required") }
        let hash = Token.hash(token)
        if let principal = try await store.consumeAccountToken(hash: hash, purpose: .verifyEmail, now: now()) {
            try await store.markEmailVerified(principal, at: now())
            return nil
        }
        let outcome: EmailChangeOutcome?
        do {
            outcome = try await store.confirmEmailChange(hash: hash, now: now(), notice: Mail.emailChanged)
        } catch SpotterError.alreadyExists {
            throw Self.addressTaken("the address")
        }
        switch outcome {
        case nil: throw SpotterError.notFound("the verification token is unknown, used or expired")
        case .taken(let email): throw Self.addressTaken(email)
        case .changed(let principal, let email):
            logger.notice("e-mail address changed", metadata: ["tenant": "\(principal.tenantID)"])
            return email
        }
    }

    private static func addressTaken(_ email: String) -> SpotterError {
        .failedPrecondition(
            "\(email) belongs to another account now, so your address was not changed; ask for a change to another address"
        )
    }

    /// The address a change-of-address link is for, while it works (the portal's confirm page
    /// names it); `nil` for any other token.
    public func emailChangeAddress(token: String) async throws -> String? {
        guard !token.isEmpty, token.utf8.count <= 200 else { return nil }
        return try await store.emailChangeAddress(hash: Token.hash(token), now: now())
    }

    /// The signed-in account's change of address waiting for its link, if any.
    public func pendingEmailChange(_ principal: Principal) async throws -> PendingEmailChange? {
        try await store.pendingEmailChange(principal, now: now())
    }

    /// Ends a change of address that waits for its link; `failedPrecondition` when none waits.
    public func cancelEmailChange(_ principal: Principal) async throws {
        guard try await store.cancelEmailChange(principal, now: now()) else {
            throw SpotterError.failedPrecondition("no change of address is waiting")
        }
    }

    /// Starts changing the signed-in account's e-mail address: with the password typed again (and
    /// a code while two-factor sign-in is on), a link goes to `newEmail`, and the address changes
    /// when it is used (`verifyEmail`); until then the current address stays, and it is told of
    /// the change. A newer request, a password change or a reset ends the link. At most three
    /// requests an hour, those refused for a taken address among them, so addresses cannot be
    /// tried one after another to learn who has an account.
    public func changeEmail(
        _ principal: Principal, password: String, code: String = "", newEmail: String, address: String
    ) async throws {
        let normalized = CredentialRules.normalize(newEmail)
        let current = try await store.emailStatus(principal)
        let twoFactor = try await enabledTwoFactor(principal)
        var validator = Validator()
        Self.checkConfirmation(password: password, code: code, twoFactor: twoFactor, &validator)
        if let problem = CredentialRules.emailProblem(normalized) {
            validator.add("new_email", problem)
        } else if normalized == current.email {
            validator.add("new_email", "is your address already")
        }
        try validator.validate()
        let started = now()
        guard try await mayEmailLink(principal, .changeEmail, at: started) else {
            throw tooManyLinks(
                "address changes were asked for in the last hour; use a link already sent, or try again later")
        }
        try await confirmOwner(principal, password: password, code: code, twoFactor: twoFactor, address: address)
        let token = Token.generate(prefix: "spe")
        if try await store.takenFields(email: normalized, username: "").contains("email") {
            // Counted as a request (a link spent at once): the next refusal is no cheaper.
            try await store.issueAccountToken(
                principal,
                AccountToken(hash: Token.hash(token), purpose: .changeEmail, expiresAt: started, newEmail: normalized),
                emails: [])
            throw SpotterError.alreadyExists(field: "new_email", reason: "is already taken")
        }
        try await store.issueAccountToken(
            principal,
            AccountToken(
                hash: Token.hash(token), purpose: .changeEmail,
                expiresAt: started.addingTimeInterval(policy.verificationTokenLifetime), newEmail: normalized),
            emails: [
                Mail.emailChange(
                    to: normalized, username: current.username, token: token, publicURL: policy.publicURL),
                Mail.emailChangeNotice(to: current.email, username: current.username, newEmail: normalized),
            ])
    }

    /// Changes the signed-in account's username (what it signs in with, and what coaches and the
    /// directory show). The old one stays held for the account for 14 days, so nobody can pose as
    /// it under the name people know (a lifter asking for their coach by name), and it can be
    /// taken back; while three names are held, a fourth change waits. Audited as the owner's
    /// rename, so an erasure later finds the old name too.
    public func changeUsername(_ principal: Principal, to username: String) async throws {
        let username = username.trimmingWhitespaces()
        if let problem = CredentialRules.usernameProblem(username) {
            throw SpotterError.invalid("new_username", problem)
        }
        // The same name in other letter case is a change of its own (lower(username) is unique).
        let changed: Bool
        do {
            changed = try await store.changeUsername(principal, to: username, now: now()) { [now] held, current in
                // Renaming again and again would hold name after name: three at a time, unless this
                // takes one of them back or gives up nothing (the same name, in other letter case).
                let wanted = username.lowercased()
                guard held.count >= Self.maximumHeldUsernames, wanted != current.lowercased(),
                    !held.contains(where: { $0.username == wanted }), let first = held.first
                else { return }
                let wait = max(1, Int(first.heldUntil.timeIntervalSince(now()).rounded(.up)))
                let days = (wait + 86_399) / 86_400
                let names = held.map(\.username).joined(separator: ", ")
                throw SpotterError.tooManyRequests(
                    "you gave up \(held.count) usernames in the last 14 days (\(names)), each held for you for 14 days; "
                        + "take one of them back, or choose a new one in \(days == 1 ? "a day" : "\(days) days")",
                    retryAfterSeconds: wait)
            }
        } catch SpotterError.alreadyExists(_, let reason) {
            throw SpotterError.alreadyExists(field: "new_username", reason: reason)
        }
        guard changed else { throw SpotterError.invalid("new_username", "is the one you have") }
    }

    /// How many names given up an account may hold at once (each for 14 days, migration 0053).
    static let maximumHeldUsernames = 3

    /// Deletes the signed-in account for good, as `spotterctl accounts delete` erases one: the
    /// tenant and every row of it, the comments it wrote on others' workouts, every session; its
    /// audit rows keep a pseudonym. Needs the password again and, while two-factor sign-in is on, a
    /// code from the app or a recovery code. Returns the pseudonym the audit log now uses.
    public func deleteAccount(_ principal: Principal, password: String, code: String, address: String)
        async throws -> String
    {
        let twoFactor = try await enabledTwoFactor(principal)
        var validator = Validator()
        Self.checkConfirmation(password: password, code: code, twoFactor: twoFactor, &validator)
        try validator.validate()
        try await confirmOwner(principal, password: password, code: code, twoFactor: twoFactor, address: address)
        let pseudonym = try await store.eraseOwnAccount(principal)
        logger.notice("account deleted by its owner", metadata: ["pseudonym": "\(pseudonym)"])
        return pseudonym
    }

    /// Whether another e-mailed link of `purpose` may go to the account: at most
    /// `resetMaxPerWindow` (three) in `resetWindow` (an hour), so no one floods an inbox.
    func mayEmailLink(_ principal: Principal, _ purpose: AccountTokenPurpose, at now: Date) async throws -> Bool {
        try await store.tokensIssued(principal, purpose: purpose, since: now.addingTimeInterval(-policy.resetWindow))
            < policy.resetMaxPerWindow
    }

    /// The answer past that limit: "3 " and `what`.
    func tooManyLinks(_ what: String) -> SpotterError {
        .tooManyRequests("\(policy.resetMaxPerWindow) \(what)", retryAfterSeconds: Int(policy.resetWindow))
    }

    /// The account's two-factor record while two-factor sign-in is on.
    private func enabledTwoFactor(_ principal: Principal) async throws -> TwoFactorRecord? {
        try await store.twoFactor(principal).flatMap { $0.enabledAt == nil ? nil : $0 }
    }

    /// The password, and a code while two-factor sign-in is on, are given.
    private static func checkConfirmation(
        password: String, code: String, twoFactor: TwoFactorRecord?, _ validator: inout Validator
    ) {
        validator.check(!password.isEmpty, "password", "is required")
        validator.check(!CredentialRules.passwordTooLong(password), "password", "is too long")
        validator.check(
            twoFactor == nil || !code.trimmingWhitespaces().isEmpty, "code",
            "is required while two-factor sign-in is on: a code from your authenticator app, or a recovery code")
    }

    /// The owner confirms a change with the password and, while two-factor sign-in is on, a code.
    private func confirmOwner(
        _ principal: Principal, password: String, code: String, twoFactor: TwoFactorRecord?, address: String
    ) async throws {
        try await checkPassword(principal, password, wrong: .invalid("password", "is wrong"), address: address)
        if let twoFactor {
            try await checkSecondFactor(principal, code: code, record: twoFactor, wrongCode: Self.wrongCodeSignedIn)
        }
    }

    /// Checks the signed-in account's password typed again. A wrong one is `wrong`, counted
    /// against the session as a known device's failed sign-ins are: guessing through a stolen
    /// session is slow, and nobody else's failures (sign-in guesses from the same address, or
    /// against the same account) stop the owner's own sessions. A right one takes its attempt
    /// back, so a refusal after it (a taken address, a wrong code) is not counted as a wrong one.
    func checkPassword(_ principal: Principal, _ password: String, wrong: SpotterError, address: String)
        async throws
    {
        let source = principal.sessionID.map { SignInSource.knownDevice($0.rawValue) } ?? .address(address)
        try await countAccountAttempt(principal, from: source, now: now(), what: "wrong passwords")
        guard let stored = try await store.passwordHash(principal) else {
            throw SpotterError.notFound("account not found")
        }
        let matches = try await hashing(refunding: address, account: (principal, source), countedAddress: false) {
            try await hasher.verify(password, against: stored)
        }
        guard matches else { throw wrong }
        try await takeBack(principal, source: source, address: address, countedAddress: false)
    }
}
