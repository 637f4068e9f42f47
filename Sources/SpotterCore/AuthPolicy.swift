import Foundation

/// Lifetimes and throttling limits of authentication.
public struct AuthPolicy: Sendable {
    public var accessTokenLifetime: TimeInterval = 15 * 60
    public var refreshTokenLifetime: TimeInterval = 30 * 24 * 3600
    /// A session ends this long after sign-in, however often it is refreshed.
    public var sessionLifetime: TimeInterval = 90 * 24 * 3600
    public var verificationTokenLifetime: TimeInterval = 48 * 3600
    public var resetTokenLifetime: TimeInterval = 3600
    /// Failures on one account from one source (a client address, or a known device) before each
    /// further one locks that source out of that account for a while. Other sources are not locked.
    public var accountFreeFailures = 5
    /// The first lock; it doubles with every further failure, up to `accountMaxLock`.
    public var accountFirstLock: TimeInterval = 30
    /// The longest one source waits after a burst of wrong passwords.
    public var accountMaxLock: TimeInterval = 15 * 60
    /// Failures on one account from unknown devices (any address) within `ceilingWindow` before
    /// unknown devices are spaced out to one attempt per `ceilingSpacing`. Known devices never wait
    /// for it, so an attacker with many addresses slows guessing down without locking the owner out.
    public var ceilingFailures = 20
    public var ceilingWindow: TimeInterval = 15 * 60
    public var ceilingSpacing: TimeInterval = 30
    /// A device stays known this long after its last sign-in.
    public var knownDeviceLifetime: TimeInterval = 365 * 24 * 3600
    /// The most devices an account remembers; signing in on another forgets the longest unused.
    public var knownDevicesPerAccount = 20
    /// Failures from one client address within `addressWindow` before it is blocked.
    public var addressMaxFailures = 50
    public var addressWindow: TimeInterval = 15 * 60
    public var addressBlock: TimeInterval = 15 * 60
    /// Reset e-mails one account gets within `resetWindow`; further requests send nothing (and
    /// answer as for an unknown address, so they tell nothing either).
    public var resetMaxPerWindow = 3
    public var resetWindow: TimeInterval = 3600
    /// How long the second step of a sign-in waits for a code, and how many codes it takes.
    public var signInChallengeLifetime: TimeInterval = 5 * 60
    public var signInChallengeAttempts = 5
    /// Where links in e-mails point, such as `https://spotter.example`.
    public var publicURL = "https://localhost:8443"

    public init() {}

    /// When an account with `failures` consecutive failures may try again, or `nil` when at once.
    public func accountLock(afterFailures failures: Int, now: Date) -> Date? {
        guard failures >= accountFreeFailures else { return nil }
        let exponent = min(failures - accountFreeFailures, 20)
        let seconds = min(accountFirstLock * pow(2, Double(exponent)), accountMaxLock)
        return now.addingTimeInterval(seconds)
    }

    /// Whether one more sign-in attempt on an account from a source may go ahead at `now`. It is
    /// counted as a failure before the password is checked (a right password clears the source's
    /// count), so parallel guesses are counted one after another and stop at the lock, not after
    /// every check ran. An unknown device also counts against the account-wide ceiling.
    public func signInAttempt(after state: SignInThrottle, knownDevice: Bool, now: Date)
        -> ThrottleDecision<SignInThrottle>
    {
        if let locked = state.source.lockedUntil, locked > now { return .refuse(until: locked) }
        var next = state
        if !knownDevice {
            var ceiling = state.ceiling
            if let start = ceiling.windowStart, now.timeIntervalSince(start) <= ceilingWindow {
                if let waiting = ceiling.nextAttempt, waiting > now { return .refuse(until: waiting) }
            } else {
                ceiling = AccountCeiling(failures: 0, windowStart: now, nextAttempt: nil)
            }
            ceiling.failures += 1
            ceiling.nextAttempt = ceiling.failures >= ceilingFailures ? now.addingTimeInterval(ceilingSpacing) : nil
            next.ceiling = ceiling
        }
        let failures = state.source.failures + 1
        next.source = AccountFailures(failures: failures, lockedUntil: accountLock(afterFailures: failures, now: now))
        return .proceed(next)
    }

    /// The state once an attempt counted by `signInAttempt` succeeded, or could not be checked (the
    /// server was too busy): the failure is taken back, with the waits it may have started.
    public func signInThrottle(takingBack state: SignInThrottle, knownDevice: Bool) -> ThrottleDecision<SignInThrottle>
    {
        var next = state
        let failures = max(0, state.source.failures - 1)
        next.source = AccountFailures(
            failures: failures, lockedUntil: failures < accountFreeFailures ? nil : state.source.lockedUntil)
        if !knownDevice {
            next.ceiling.failures = max(0, state.ceiling.failures - 1)
            if next.ceiling.failures < ceilingFailures { next.ceiling.nextAttempt = nil }
        }
        return .proceed(next)
    }

    /// Whether one more second-factor code may be checked for an account at `now`: counted first,
    /// like a sign-in; five wrong codes in a row lock the second step for 30 seconds, doubling up
    /// to 15 minutes (an attacker who has the password gets about a hundred codes a day).
    public func secondFactorAttempt(after state: AccountFailures, now: Date) -> ThrottleDecision<AccountFailures> {
        if let locked = state.lockedUntil, locked > now { return .refuse(until: locked) }
        let failures = state.failures + 1
        return .proceed(
            AccountFailures(failures: failures, lockedUntil: accountLock(afterFailures: failures, now: now)))
    }

    /// Whether one more attempt from a client address may go ahead at `now`, counted as a failure
    /// until it succeeds (see `addressFailures(afterSuccess:)`).
    public func addressAttempt(after previous: AddressFailures?, now: Date) -> ThrottleDecision<AddressFailures> {
        if let blocked = previous?.blockedUntil, blocked > now { return .refuse(until: blocked) }
        return .proceed(addressFailures(after: previous, now: now))
    }

    /// The state of an address once a sign-in from it succeeded: the failure counted before the
    /// password check is taken back, with the block it may have started.
    public func addressFailures(afterSuccess state: AddressFailures?) -> ThrottleDecision<AddressFailures> {
        guard var state else {
            return .proceed(AddressFailures(failures: 0, windowStart: .distantPast, blockedUntil: nil))
        }
        state.failures = max(0, state.failures - 1)
        if state.failures < addressMaxFailures { state.blockedUntil = nil }
        return .proceed(state)
    }

    /// The failure state of a client address after one more failure at `now`.
    public func addressFailures(after previous: AddressFailures?, now: Date) -> AddressFailures {
        var state = previous ?? AddressFailures(failures: 0, windowStart: now, blockedUntil: nil)
        if now.timeIntervalSince(state.windowStart) > addressWindow {
            state = AddressFailures(failures: 0, windowStart: now, blockedUntil: nil)
        }
        state.failures += 1
        if state.failures >= addressMaxFailures {
            state.blockedUntil = now.addingTimeInterval(addressBlock)
        }
        return state
    }
}
