import Foundation

/// Persistence of tenants, accounts, sessions and single-use tokens. Implementations decide no
/// business rule: `AuthService` does.
public protocol AuthStore: Sendable {
    /// Stores a new tenant with its account, the e-mail verification token and its e-mail, atomically.
    /// Throws `alreadyExists` naming `email` or `username` when one is taken.
    func createAccount(_ account: NewAccount, verification: AccountToken, email: OutboxMessage) async throws

    /// The account whose username or e-mail (case-insensitive) is `login`.
    func signInCandidate(login: String) async throws -> SignInCandidate?

    /// The account's unexpired known device whose token hashes to `tokenHash`.
    func knownDevice(_ principal: Principal, tokenHash: [UInt8], now: Date) async throws -> UUID?

    /// Counts a sign-in attempt on the account from `source` before its password is checked, under
    /// the account's row lock so parallel attempts are counted one after another: `decide` gets the
    /// current state (the source's failures and the account-wide ceiling), and the state of a
    /// `.proceed` is written. Returns the decision.
    func countSignInAttempt(
        _ principal: Principal, from source: SignInSource,
        _ decide: @Sendable (SignInThrottle) -> ThrottleDecision<SignInThrottle>
    ) async throws -> ThrottleDecision<SignInThrottle>

    /// Opens a session, clears the failures of the sign-in's source and remembers its device
    /// (keeping at most `keepingDevices` per account, the most recently used).
    func openSession(_ principal: Principal, _ session: NewSession, keepingDevices: Int) async throws

    /// The principal of a live access token (not expired, session not revoked, account active),
    /// marking the session used.
    func authenticate(accessTokenHash: [UInt8], now: Date) async throws -> Principal?
    /// Why a refused access token does not work: `expired` (refresh), `ended` (sign in again), or
    /// `nil` when no session has it.
    func accessTokenState(hash: [UInt8], now: Date) async throws -> AccessTokenState?

    /// Finds the session of a refresh token.
    func lookupRefreshToken(hash: [UInt8], now: Date) async throws -> RefreshLookup

    /// Marks `oldRefreshHash` used and installs new tokens, atomically. Returns `false` when the old
    /// token was used meanwhile (a concurrent refresh won).
    func rotateTokens(_ principal: Principal, oldRefreshHash: [UInt8], to tokens: SessionTokens, now: Date) async throws
        -> Bool

    /// Revokes one of the principal's sessions; `false` when it does not exist or has already ended.
    @discardableResult
    func revokeSession(_ principal: Principal, _ session: SessionID, reason: String, now: Date) async throws -> Bool

    /// Revokes every session of the principal's account.
    func revokeAllSessions(_ principal: Principal, reason: String, now: Date) async throws

    /// The principal's live sessions, newest first.
    func sessions(_ principal: Principal, now: Date) async throws -> [SessionInfo]

    /// Whether a single-use token is known, unused and unexpired, without using it.
    func accountTokenIsUsable(hash: [UInt8], purpose: AccountTokenPurpose, now: Date) async throws -> Bool

    /// Marks a single-use token used and returns whose it was; `nil` when unknown, used or expired.
    func consumeAccountToken(hash: [UInt8], purpose: AccountTokenPurpose, now: Date) async throws -> Principal?

    /// Marks the account's e-mail address verified.
    func markEmailVerified(_ principal: Principal, at: Date) async throws

    /// The account with this e-mail address, for a password reset.
    func principal(forEmail email: String) async throws -> Principal?

    /// How many tokens for `purpose` were issued to the account since `since` (used or not).
    func tokensIssued(_ principal: Principal, purpose: AccountTokenPurpose, since: Date) async throws -> Int

    /// Stores a single-use token and its e-mails for an existing account. A `changeEmail` token
    /// ends the account's earlier unused ones.
    func issueAccountToken(_ principal: Principal, _ token: AccountToken, emails: [OutboxMessage]) async throws

    /// Uses a `changeEmail` token: its address becomes the account's, verified, and the account's
    /// other unused address links are spent; `taken` (and nothing changes) when another account
    /// has the address now. `nil` when the token is unknown, used or expired.
    /// With the change, `notice` (old address, username, new address) goes to the old address,
    /// and an `account.change_email` audit row keeps both addresses, for an erasure to find.
    func confirmEmailChange(
        hash: [UInt8], now: Date, notice: @Sendable (_ old: String, _ username: String, _ new: String) -> OutboxMessage
    ) async throws -> EmailChangeOutcome?

    /// The address a usable `changeEmail` token is for, or `nil`.
    func emailChangeAddress(hash: [UInt8], now: Date) async throws -> String?

    /// The account's newest usable change-of-address link, if any.
    func pendingEmailChange(_ principal: Principal, now: Date) async throws -> PendingEmailChange?

    /// Ends the account's unused change-of-address links; whether there was one.
    func cancelEmailChange(_ principal: Principal, now: Date) async throws -> Bool

    /// The account's password hash, for a signed-in change of password.
    func passwordHash(_ principal: Principal) async throws -> String?

    /// Replaces the password hash, clears sign-in throttling, revokes every session but `keeping`
    /// and ends every unused reset token of the account, atomically; returns how many sessions
    /// ended.
    func changePassword(_ principal: Principal, passwordHash: String, keeping session: SessionID, now: Date)
        async throws -> Int

    /// Replaces the password hash, clears sign-in throttling, revokes every session and ends every
    /// other unused reset token of the account, atomically.
    func resetPassword(_ principal: Principal, passwordHash: String, now: Date) async throws

    /// The same as `countSignInAttempt` for a client address (`nil`: nothing counted for it yet).
    func countAddressAttempt(
        _ address: String, _ decide: @Sendable (AddressFailures?) -> ThrottleDecision<AddressFailures>
    ) async throws -> ThrottleDecision<AddressFailures>

    /// Which of `email` and `username` (both valid) an account already uses: `email`, `username`.
    func takenFields(email: String, username: String) async throws -> [String]

    // MARK: Two-factor sign-in

    /// The account's username, for the label authenticator apps show.
    func username(_ principal: Principal) async throws -> String

    /// The account's e-mail address, whether it is verified, and the username.
    func emailStatus(_ principal: Principal) async throws -> EmailStatus

    /// The account's two-factor record (an enrolment begun, or two-factor sign-in on).
    func twoFactor(_ principal: Principal) async throws -> TwoFactorRecord?

    /// Starts or restarts an enrolment with `secret`; `false` when two-factor sign-in is already on.
    func beginTwoFactor(_ principal: Principal, secret: MfaKeyring.Sealed) async throws -> Bool

    /// Turns two-factor sign-in on with the step of its first accepted code and the hashes of new
    /// recovery codes, if the enrolment waiting is still the one with `secret` (the code was
    /// checked against it); `false` when it is not (begun again meanwhile, or already on).
    func enableTwoFactor(
        _ principal: Principal, secret: MfaKeyring.Sealed, step: Int64, recoveryCodeHashes: [[UInt8]], now: Date
    ) async throws -> Bool

    /// Renames the account to `to`, with an audit row of the owner's rename naming the old and
    /// new names; the old name is held for the account for a while (`UsernameHold`). `check` gets
    /// the names the account holds now and its current name, read under its row's lock, and may
    /// refuse the change.
    /// `false` when `to` is the name already; `alreadyExists` on `username` when another account
    /// has `to` (in any letter case) or holds it.
    func changeUsername(
        _ principal: Principal, to: String, now: Date, check: @Sendable ([UsernameHold], String) throws -> Void
    ) async throws -> Bool

    /// Erases the principal's own tenant and every row of it, the comments it wrote in other
    /// tenants, and every name in its audit rows, with an audit row of its own; returns the
    /// pseudonym the database made (as `Erasure.pseudonym` makes it).
    func eraseOwnAccount(_ principal: Principal) async throws -> String

    /// Turns it off: forgets the secret, the recovery codes and open sign-in challenges.
    func disableTwoFactor(_ principal: Principal) async throws
    /// Replaces the account's recovery codes with these (hashes); `false` when two-factor sign-in is off.
    func replaceRecoveryCodes(_ principal: Principal, hashes: [[UInt8]]) async throws -> Bool

    /// Counts a second-factor attempt before the code is checked, under the account's lock, like
    /// `countSignInAttempt`; an accepted code clears the count.
    func countSecondFactorAttempt(
        _ principal: Principal, _ decide: @Sendable (AccountFailures) -> ThrottleDecision<AccountFailures>
    ) async throws -> ThrottleDecision<AccountFailures>

    /// Accepts an app code of `step` once, on every replica: `true` when `step` is newer than every
    /// step accepted before (the failure count is then cleared).
    func acceptTwoFactorStep(_ principal: Principal, step: Int64) async throws -> Bool

    /// Uses an unused recovery code with this hash (clearing the failure count); `false` otherwise.
    func useRecoveryCode(_ principal: Principal, hash: [UInt8], now: Date) async throws -> Bool

    /// Stores the second step of a sign-in.
    func createSignInChallenge(_ principal: Principal, _ challenge: SignInChallenge) async throws

    /// The unexpired, unused challenge with this hash, counting one more code tried; `nil` when
    /// there is none or it has been tried `maxAttempts` times.
    func takeSignInChallenge(hash: [UInt8], now: Date, maxAttempts: Int) async throws -> (Principal, SignInChallenge)?

    /// Marks a challenge used.
    func finishSignInChallenge(_ principal: Principal, hash: [UInt8], now: Date) async throws
}

/// Persistence of the signed-in tenant's profile.
public protocol ProfileStore: Sendable {
    /// The principal's profile; `notFound` if the tenant is gone.
    func profile(_ principal: Principal) async throws -> Profile

    /// Applies the update and returns the new profile.
    func updateProfile(_ principal: Principal, _ update: ProfileUpdate, now: Date) async throws -> Profile
}
