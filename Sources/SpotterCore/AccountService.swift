import Foundation

/// The signed-in tenant's profile and settings.
public struct AccountService: Sendable {
    private let store: any ProfileStore
    private let now: @Sendable () -> Date

    public init(store: any ProfileStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.now = now
    }

    /// The principal's profile.
    public func profile(_ principal: Principal) async throws -> Profile {
        try await store.profile(principal)
    }

    /// Validates and applies a profile change; an empty change returns the profile unchanged.
    public func updateProfile(_ principal: Principal, _ update: ProfileUpdate) async throws -> Profile {
        var validator = Validator()
        if let name = update.displayName, let problem = CredentialRules.displayNameProblem(name) {
            validator.add("display_name", problem)
        }
        if let zone = update.timeZone, let problem = CredentialRules.timeZoneProblem(zone) {
            validator.add("time_zone", problem)
        }
        try validator.validate()
        var cleaned = update
        cleaned.displayName = update.displayName?.trimmingCharacters(in: .whitespaces)
        if cleaned == ProfileUpdate() { return try await store.profile(principal) }
        return try await store.updateProfile(principal, cleaned, now: now())
    }
}
