import Foundation
import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.ActivityService`: activity totals and achievements.
public struct ActivityHandler: Spotter_V1_ActivityService.SimpleServiceProtocol {
    private let activity: ActivityService

    public init(activity: ActivityService) {
        self.activity = activity
    }

    public func getActivitySummary(request: Spotter_V1_GetActivitySummaryRequest, context: ServerContext)
        async throws -> Spotter_V1_GetActivitySummaryResponse
    {
        let (principal, tenant) = try RequestContext.tenant()
        let summary = try await activity.summary(
            principal, from: request.hasFrom ? request.from.date("from") : nil,
            to: request.hasTo ? request.to.date("to") : nil)
        return .with {
            $0.totals = Spotter_V1_StatisticsBucket(summary.totals, unit: tenant.unit)
            $0.streak = Spotter_V1_WeeklyStreak(summary.streak)
            if let locked = summary.breakdownsLocked { $0.breakdownsTierRequired = locked.proto() }
        }
    }

    public func listAchievements(request: Spotter_V1_ListAchievementsRequest, context: ServerContext) async throws
        -> Spotter_V1_ListAchievementsResponse
    {
        let principal = try RequestContext.principal()
        return Spotter_V1_ListAchievementsResponse(
            try await activity.achievements(principal), tenant: principal.tenantID)
    }
}

extension Spotter_V1_ListAchievementsResponse {
    init(_ achievements: [Achievement], tenant: TenantID) {
        self = .with {
            $0.achievements = achievements.map { Spotter_V1_Achievement($0, id: Award.id(tenant, key: $0.key)) }
            $0.earnedCount = Int32(achievements.count { $0.earned != nil })
        }
    }
}

extension Spotter_V1_Achievement {
    init(_ achievement: Achievement, id: UUID) {
        self = .with {
            $0.key = achievement.key
            $0.achievementID = id.lowercasedString
            $0.group = achievement.group.proto()
            $0.title = achievement.title
            $0.criterion = achievement.criterion
            $0.progress = Int32(clamping: achievement.progress)
            $0.target = Int32(clamping: achievement.target)
            $0.progressText = achievement.progressText
            if let earned = achievement.earned {
                $0.earned = true
                $0.earnedAt = Spotter_V1_Timestamp(earned.earnedAt)
                $0.workoutID = earned.workoutID.description
            }
            if let awardedAt = achievement.awardedAt { $0.awardedAt = Spotter_V1_Timestamp(awardedAt) }
            if let challenge = achievement.challenge {
                $0.challenge = .with {
                    $0.challengeID = challenge.id.lowercasedString
                    $0.name = challenge.name
                    $0.description_p = challenge.description
                    $0.startsOn = challenge.startsOn
                    $0.endsOn = challenge.endsOn
                }
            }
        }
    }
}
