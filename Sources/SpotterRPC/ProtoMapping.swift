import Foundation
import SpotterCore
import SpotterProto

extension Spotter_V1_Timestamp {
    init(_ date: Date) {
        self.init()
        unixMicros = UnixMicros.of(date)
    }
}

extension TenantKind {
    init?(_ proto: Spotter_V1_TenantKind) {
        switch proto {
        case .lifter: self = .lifter
        case .coach: self = .coach
        default: return nil
        }
    }

    var proto: Spotter_V1_TenantKind {
        switch self {
        case .lifter: .lifter
        case .coach: .coach
        }
    }
}

extension WeightUnit {
    init?(_ proto: Spotter_V1_WeightUnit) {
        switch proto {
        case .kg: self = .kg
        case .lb: self = .lb
        default: return nil
        }
    }

    var proto: Spotter_V1_WeightUnit {
        switch self {
        case .kg: .kg
        case .lb: .lb
        }
    }
}

extension Tier {
    var proto: Spotter_V1_Tier {
        switch self {
        case .free: .free
        case .pro: .pro
        case .coach: .coach
        case .coachPro: .coachPro
        }
    }
}

extension Spotter_V1_Profile {
    init(_ profile: Profile, now: Date) {
        self.init()
        tenantID = profile.tenantID.description
        accountID = profile.accountID.description
        kind = profile.kind.proto
        email = profile.email
        emailVerified = profile.emailVerifiedAt != nil
        username = profile.username
        displayName = profile.displayName
        timeZone = profile.timeZone
        unit = profile.unit.proto
        tier = profile.tier.effective(at: now).proto
        if let expiry = profile.tier.expiresAt, expiry > now { tierExpiresAt = Spotter_V1_Timestamp(expiry) }
        createdAt = Spotter_V1_Timestamp(profile.createdAt)
        version = profile.version
        bio = profile.bio
        specialities = profile.specialities
        birthday = profile.birthday ?? ""
        emailNotifications = profile.emailNotifications
    }
}

extension Spotter_V1_TokenPair {
    init(_ tokens: IssuedTokens) {
        self.init()
        accessToken = tokens.accessToken
        accessExpiresAt = Spotter_V1_Timestamp(tokens.accessExpiresAt)
        refreshToken = tokens.refreshToken
        refreshExpiresAt = Spotter_V1_Timestamp(tokens.refreshExpiresAt)
        sessionID = tokens.principal.sessionID?.description ?? ""
        tenantID = tokens.principal.tenantID.description
        deviceToken = tokens.deviceToken ?? ""
    }
}
