import Foundation
import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.AccountService`: the signed-in tenant's profile, with a change of address that waits
/// for its link (`AuthService.changeEmail`).
public struct AccountHandler: Spotter_V1_AccountService.SimpleServiceProtocol {
    private let accounts: AccountService
    private let auth: AuthService
    private let now: @Sendable () -> Date

    public init(accounts: AccountService, auth: AuthService, now: @escaping @Sendable () -> Date = { Date() }) {
        self.accounts = accounts
        self.auth = auth
        self.now = now
    }

    public func getProfile(request: Spotter_V1_GetProfileRequest, context: ServerContext) async throws
        -> Spotter_V1_Profile
    {
        let principal = try RequestContext.principal()
        return try await answer(try await accounts.profile(principal), principal)
    }

    private func answer(_ profile: Profile, _ principal: Principal) async throws -> Spotter_V1_Profile {
        var answer = Spotter_V1_Profile(profile, now: now())
        if let pending = try await auth.pendingEmailChange(principal) {
            answer.pendingEmail = pending.email
            answer.pendingEmailSentAt = Spotter_V1_Timestamp(pending.sentAt)
            answer.pendingEmailExpiresAt = Spotter_V1_Timestamp(pending.expiresAt)
        }
        return answer
    }

    public func updateProfile(request: Spotter_V1_UpdateProfileRequest, context: ServerContext) async throws
        -> Spotter_V1_Profile
    {
        var update = ProfileUpdate(
            displayName: request.hasDisplayName ? request.displayName : nil,
            timeZone: request.hasTimeZone ? request.timeZone : nil,
            bio: request.hasBio ? request.bio : nil,
            specialities: request.hasSpecialities ? request.specialities.items : nil,
            birthday: request.hasBirthday ? request.birthday : nil,
            emailNotifications: request.hasEmailNotifications ? request.emailNotifications : nil
        )
        update.unit = request.hasUnit ? WeightUnit(request.unit) : nil
        let principal = try RequestContext.principal()
        let profile = try await accounts.updateProfile(
            principal, update, unreadUnit: request.hasUnit && update.unit == nil)
        return try await answer(profile, principal)
    }
}
