import Foundation

/// What kind of achievement: how the list groups them.
public enum AchievementGroup: String, Sendable, Codable, CaseIterable {
    /// A number of workouts in all: 1, 5, 10, 25, 50, 100, 250, 500.
    case milestone
    /// Consecutive weeks with a workout: 3, 5, 10, 26, 52.
    case streak
    /// Workouts in one week: 3×, 4×, 5×, 7×.
    case frequency
    /// Night Owl, Early Bird, Birthday, New PR, Anniversary.
    case trophy
    /// A dated challenge an administrator created.
    case challenge
}

/// One workout as the achievement rules see it: when it started, in UTC and in the lifter's time
/// zone, and how long it lasted.
public struct ActivityWorkout: Sendable, Equatable {
    public var id: WorkoutID
    public var startedAt: Date
    public var durationSeconds: Int
    /// The local date of the start, as days since 1970-01-01.
    public var localDay: Int
    /// The local time of day of the start, in minutes since midnight (0–1439).
    public var localMinute: Int

    public init(id: WorkoutID, startedAt: Date, durationSeconds: Int, localDay: Int, localMinute: Int) {
        self.id = id
        self.startedAt = startedAt
        self.durationSeconds = durationSeconds
        self.localDay = localDay
        self.localMinute = localMinute
    }
}

/// A dated challenge: meet its rule between its first and last day (in your time zone) to earn it.
public struct Challenge: Sendable, Equatable, Codable {
    public enum Rule: String, Sendable, Codable, CaseIterable {
        /// Any workout in the range (the target is 1).
        case anyWorkout = "any_workout"
        /// `target` workouts in the range.
        case workouts
        /// `target` minutes of workouts in the range.
        case activeMinutes = "active_minutes"
    }

    public var id: UUID
    public var name: String
    public var description: String
    /// Local dates, `YYYY-MM-DD`, both included.
    public var startsOn: String
    public var endsOn: String
    public var rule: Rule
    public var target: Int
    public var createdAt: Date
    public var createdBy: String

    public init(
        id: UUID, name: String, description: String, startsOn: String, endsOn: String, rule: Rule, target: Int,
        createdAt: Date, createdBy: String
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.startsOn = startsOn
        self.endsOn = endsOn
        self.rule = rule
        self.target = target
        self.createdAt = createdAt
        self.createdBy = createdBy
    }

    public var key: String { "challenge:\(id.lowercasedString)" }

    /// What earns it, in words.
    public var criterion: String {
        let range = "between \(startsOn) and \(endsOn)"
        switch rule {
        case .anyWorkout: return "Work out \(range)"
        case .workouts: return "Log \(DisplayFormat.count(target, "workout")) \(range)"
        case .activeMinutes: return "Train for \(target) minutes \(range)"
        }
    }
}

/// What the lifter earned: the workout that earned it and its start.
public struct Award: Sendable, Equatable {
    public var key: String
    public var earnedAt: Date
    public var workoutID: WorkoutID

    public init(key: String, earnedAt: Date, workoutID: WorkoutID) {
        self.key = key
        self.earnedAt = earnedAt
        self.workoutID = workoutID
    }

    /// The id an award has in the change feed (sync kind `achievement`), the same for the same key.
    public static func id(_ tenant: TenantID, key: String) -> UUID {
        WorkoutID.derived(tenant, "achievement", key, namespace: "spotter-activity").rawValue
    }
}

/// An award as stored: also when the server first recorded it.
public struct StoredAward: Sendable, Equatable {
    public var award: Award
    public var awardedAt: Date

    public init(award: Award, awardedAt: Date) {
        self.award = award
        self.awardedAt = awardedAt
    }
}

/// One entry of the achievements list: earned or locked, what earns it and how far along it is.
public struct Achievement: Sendable, Equatable {
    public var key: String
    public var group: AchievementGroup
    public var title: String
    /// What earns it, such as "Log 10 workouts".
    public var criterion: String
    /// Toward `target`, at most `target`; `target` once earned.
    public var progress: Int
    public var target: Int
    /// Such as "7 of 10 workouts".
    public var progressText: String
    public var earned: Award?
    /// When the server first recorded the award; `nil` before it has (or for a coach's view).
    public var awardedAt: Date?
    /// Set for a challenge.
    public var challenge: Challenge?

    public init(
        key: String, group: AchievementGroup, title: String, criterion: String, progress: Int, target: Int,
        progressText: String, earned: Award?, awardedAt: Date? = nil, challenge: Challenge? = nil
    ) {
        self.key = key
        self.group = group
        self.title = title
        self.criterion = criterion
        self.progress = progress
        self.target = target
        self.progressText = progressText
        self.earned = earned
        self.awardedAt = awardedAt
        self.challenge = challenge
    }
}

/// What the achievements are computed from: the lifter's workouts folded, and today.
public struct ActivityFacts: Sendable, Equatable {
    public var tally: ActivityTally
    /// The lifter's local date today, as days since 1970-01-01.
    public var today: Int

    public init(tally: ActivityTally, today: Int) {
        self.tally = tally
        self.today = today
    }

    /// The facts of live workouts listed oldest first (by start, then id).
    public init(
        workouts: [ActivityWorkout], firstRecord: ActivityWorkout?, birthday: String?, challenges: [Challenge],
        today: Int
    ) {
        self.init(
            tally: ActivityTally(
                workouts, birthday: birthday, challenges: challenges,
                firstRecord: firstRecord.map(ActivityRecord.init)),
            today: today)
    }
}
