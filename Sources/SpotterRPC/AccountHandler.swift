import Foundation
import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.AccountService`: the signed-in tenant's profile.
public struct AccountHandler: Spotter_V1_AccountService.SimpleServiceProtocol {
    private let accounts: AccountService
    private let now: @Sendable () -> Date

    public init(accounts: AccountService, now: @escaping @Sendable () -> Date = { Date() }) {
        self.accounts = accounts
        self.now = now
    }

    public func getProfile(request: Spotter_V1_GetProfileRequest, context: ServerContext) async throws
        -> Spotter_V1_Profile
    {
        Spotter_V1_Profile(try await accounts.profile(try RequestContext.principal()), now: now())
    }

    public func updateProfile(request: Spotter_V1_UpdateProfileRequest, context: ServerContext) async throws
        -> Spotter_V1_Profile
    {
        var update = ProfileUpdate(
            displayName: request.hasDisplayName ? request.displayName : nil,
            timeZone: request.hasTimeZone ? request.timeZone : nil,
            bio: request.hasBio ? request.bio : nil,
            specialities: request.hasSpecialities ? request.specialities.items : nil,
            birthday: request.hasBirthday ? request.birthday : nil
        )
        update.unit = request.hasUnit ? WeightUnit(request.unit) : nil
        let profile = try await accounts.updateProfile(
            try RequestContext.principal(), update, unreadUnit: request.hasUnit && update.unit == nil)
        return Spotter_V1_Profile(profile, now: now())
    }
}
