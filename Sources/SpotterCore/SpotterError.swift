/// The one error type of Spotter's domain. Services throw it; only the edges (gRPC, HTTP, CLI)
/// turn it into a status code, and stores translate database errors into it.
public enum SpotterError: Error, Sendable, Equatable {
    /// The object does not exist, or the caller may not see it (both answer the same).
    case notFound(String)
    /// A unique field is taken.
    case alreadyExists(field: String, reason: String)
    /// Input is invalid; every offending field is listed.
    case invalidArgument([FieldViolation])
    /// The request is valid but the state does not allow it.
    case failedPrecondition(String)
    /// The caller is known but not allowed (a call for the other kind of account, someone else's
    /// template).
    case permissionDenied(String)
    /// A tier gate: the caller's tier does not include this; `tier` is the one that unlocks it (the
    /// apps show their upgrade screen). The message names it too.
    case tierRequired(String, tier: Tier)
    /// A coach's read of a client who has not granted `scope` (the apps show "not shared").
    case scopeNotGranted(String, scope: Scope)
    /// No valid credentials. `token`: why an access token that was sent no longer works (an app refreshes for
    /// `.expired`, signs in again for `.ended`); `nil` for every other refusal.
    case unauthenticated(String, token: AccessTokenState? = nil)
    /// Too many attempts; retry after the given number of seconds.
    case tooManyRequests(String, retryAfterSeconds: Int)
    /// A dependency (the database) is unreachable right now.
    case unavailable(String)
    /// A sync cursor the server can no longer serve: the device must discard its copy and pull
    /// from the start.
    case syncReset(String)

    /// An `invalidArgument` for one field.
    public static func invalid(_ field: String, _ reason: String) -> SpotterError {
        .invalidArgument([FieldViolation(field: field, reason: reason)])
    }
}

/// One bad input field: its path (`exercises[2].sets[0].rpe`) and why it is bad.
public struct FieldViolation: Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var reason: String

    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}

extension Sequence<FieldViolation> {
    /// Every violation as `field: reason`, separated by semicolons, as messages list them.
    public var listed: String { map(\.description).joined(separator: "; ") }
}

/// Collects field violations so one answer can name every bad field.
public struct Validator: Sendable {
    public private(set) var violations: [FieldViolation] = []

    public init() {}

    /// A validator that has recorded `violations` already.
    public init(recorded violations: [FieldViolation]) { self.violations = violations }

    /// Records a violation when `condition` is false.
    public mutating func check(_ condition: Bool, _ field: String, _ reason: @autoclosure () -> String) {
        if !condition { violations.append(FieldViolation(field: field, reason: reason())) }
    }

    public mutating func add(_ field: String, _ reason: String) {
        violations.append(FieldViolation(field: field, reason: reason))
    }

    /// Throws `invalidArgument` with every recorded violation, if there is any.
    public func validate() throws(SpotterError) {
        if !violations.isEmpty { throw .invalidArgument(violations) }
    }

    /// The recorded violations, then those `rules` find in the rest of the input, a field already
    /// named not named twice: a value a reader could not take (an unknown enum number, a number the
    /// portal cannot read) is said together with every other problem, not alone.
    public func violations(alongside rules: () throws(SpotterError) -> Void) -> [FieldViolation] {
        let named = Set(violations.map(\.field))
        var all = violations
        do { try rules() } catch .invalidArgument(let more) { all += more.filter { !named.contains($0.field) } } catch {
        }
        return all
    }

    /// Throws `violations(alongside:)` when anything is recorded; nothing otherwise.
    public func validate(alongside rules: () throws(SpotterError) -> Void) throws(SpotterError) {
        guard !violations.isEmpty else { return }
        throw .invalidArgument(violations(alongside: rules))
    }

    /// `body`'s value, or `nil` with its `invalidArgument` violations recorded (so two checks
    /// that each throw are refused together); any other error is thrown at once.
    private mutating func collect<T>(_ body: () throws(SpotterError) -> T) throws(SpotterError) -> T? {
        do {
            return try body()
        } catch .invalidArgument(let violations) {
            self.violations += violations
            return nil
        }
    }

    /// Both values, or one refusal naming every field either check refused (an id and the content
    /// it comes with, say).
    public static func both<A, B>(_ first: () throws(SpotterError) -> A, _ second: () throws(SpotterError) -> B)
        throws(SpotterError) -> (A, B)
    {
        var validator = Validator()
        let a = try validator.collect(first)
        let b = try validator.collect(second)
        guard let a, let b else { throw .invalidArgument(validator.violations) }
        return (a, b)
    }
}
