import Foundation

/// The best earlier results of an exercise, against which a session's set is a record.
public struct SetBests: Sendable, Equatable {
    public var heaviest: Mass?
    /// As progress estimates it by default (Epley, reps in reserve counted), as the New PR trophy.
    public var bestE1RM: Double?
    public var longestSeconds: Int?

    public init(heaviest: Mass? = nil, bestE1RM: Double? = nil, longestSeconds: Int? = nil) {
        self.heaviest = heaviest
        self.bestE1RM = bestE1RM
        self.longestSeconds = longestSeconds
    }

    /// Whether the set beats an earlier best: a heavier weight, a higher estimate, a longer time.
    /// A first-ever set of an exercise sets the marks and is no record.
    public func isBeaten(by set: WorkoutSet) -> Bool {
        guard set.type.isCounted else { return false }
        if let weight = set.weight, set.reps >= 1, let heaviest, weight > heaviest { return true }
        if let estimate = Self.e1rm(set), let bestE1RM, estimate > bestE1RM + 1e-9 { return true }
        if let seconds = set.durationSeconds, let longestSeconds, seconds > longestSeconds { return true }
        return false
    }

    /// Raises the marks to include `set`.
    public mutating func include(_ set: WorkoutSet) {
        guard set.type.isCounted else { return }
        if let weight = set.weight, set.reps >= 1 { heaviest = max(heaviest ?? weight, weight) }
        if let estimate = Self.e1rm(set) { bestE1RM = max(bestE1RM ?? estimate, estimate) }
        if let seconds = set.durationSeconds { longestSeconds = max(longestSeconds ?? seconds, seconds) }
    }

    /// The set's estimate as progress gives it by default, the New PR trophy and the store's
    /// `bests` query (`RecordSQL.e1rm`).
    static func e1rm(_ set: WorkoutSet) -> Double? {
        OneRepMax.estimate(weight: set.weight, reps: set.reps, rpe: set.rpe, formula: .epley).kilograms
    }
}

/// Where guided sessions live. Every method that changes a session does so under the session's
/// row lock, so two devices' calls apply one after the other.
public protocol GuidedSessionStore: Sendable {
    /// Stores a new session. A session with this id already stored is returned as it is (a retried
    /// start); another open session of the lifter is `failedPrecondition` naming it.
    func createSession(_ principal: Principal, _ session: GuidedSession) async throws -> GuidedSession
    /// The session, closed as abandoned first when it has been idle for a day; `nil` when missing
    /// (or not visible to a coach's view).
    func session(_ principal: Principal, _ id: GuidedSessionID, now: Date) async throws -> GuidedSession?
    /// The lifter's open session, if any, and the most recent closed ones, newest first.
    func sessions(_ principal: Principal, limit: Int, now: Date) async throws -> [GuidedSession]
    /// Replaces the session with what `change` makes of it, in one transaction under its lock.
    /// When the change completes the session, its workout (`workoutContent`) is logged in the same
    /// transaction under the session's id. `notFound` when there is no such session.
    func updateSession(
        _ principal: Principal, _ id: GuidedSessionID, now: Date,
        _ change: @Sendable (GuidedSession) async throws -> GuidedSession
    ) async throws -> GuidedSession
    /// The exercise's best counted sets among the lifter's workouts; called inside `updateSession`'s
    /// change, it reads in that transaction.
    func bests(_ principal: Principal, _ exercise: ExerciseID) async throws -> SetBests
}
