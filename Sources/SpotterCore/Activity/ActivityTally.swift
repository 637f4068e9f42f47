import Foundation

/// A lifter's live workouts as the achievement rules read them, folded one workout at a time in
/// start order (then id, as the database sorts them): for each rule, the workout that met it first
/// and the counts its progress shows. Its size does not grow with the number of workouts (only by
/// one entry per week that has one), so a reconciliation keeps it between rounds and folds in the
/// new workouts alone, and a full read streams its rows through it instead of holding them.
///
/// Workouts may be added in any order among those started at the same instant: the ones at the
/// latest start wait (in id order) until a later start settles them.
public struct ActivityTally: Sendable, Equatable {
    /// `MM-DD`, or `nil` when the profile has no birthday.
    public let birthday: String?
    /// Challenges whose range ends on or after the first workout, or that have not ended.
    public let challenges: [Challenge]
    /// The first workout with a new personal record: a set heavier, or with a higher estimated
    /// one-rep max, than every set of the same exercise in earlier workouts (found by the store,
    /// not folded).
    public var firstRecord: ActivityRecord?

    /// Every workout started before `latest`'s start, folded.
    private var settled: Fold
    /// The workouts started at the latest start, in id order.
    private var latest: [ActivityWorkout] = []

    public init(birthday: String?, challenges: [Challenge], firstRecord: ActivityRecord? = nil) {
        self.birthday = birthday
        self.challenges = challenges
        self.firstRecord = firstRecord
        settled = Fold(birthday: birthday, challenges: challenges)
    }

    /// These workouts (in start order, then id), folded.
    public init(
        _ workouts: some Sequence<ActivityWorkout>, birthday: String?, challenges: [Challenge],
        firstRecord: ActivityRecord? = nil
    ) {
        self.init(birthday: birthday, challenges: challenges, firstRecord: firstRecord)
        for workout in workouts { add(workout) }
    }

    /// The start of the latest workout added, before which no workout may be added any more.
    public var latestStart: Date? { latest.first?.startedAt }

    /// Adds a workout started at or after `latestStart`.
    public mutating func add(_ workout: ActivityWorkout) {
        guard let start = latestStart else { return latest = [workout] }
        precondition(workout.startedAt >= start, "workouts are folded in start order")
        if workout.startedAt > start {
            for waiting in latest { settled.add(waiting) }
            latest = [workout]
        } else {
            let key = workout.id.description
            latest.insert(workout, at: latest.firstIndex { $0.id.description > key } ?? latest.endIndex)
        }
    }

    /// Every workout added, folded.
    var folded: Fold {
        var fold = settled
        for workout in latest { fold.add(workout) }
        return fold
    }

    public var count: Int { settled.count + latest.count }
    /// The first workout by start, then id.
    public var first: ActivityWorkout? { settled.first ?? latest.first }
    /// The last workout by start, then id.
    public var last: ActivityWorkout? { latest.last }

    /// What the rules read, folded in order.
    struct Fold: Sendable, Equatable {
        var count = 0
        var first: ActivityWorkout?
        /// The Nth workout, for each of `AchievementRules.milestones` reached.
        var milestones: [ActivityWorkout] = []
        /// Weeks with a workout, in the order they came, and how many each had.
        var weeks: [Week] = []
        /// The weeks in a row ending with the last one.
        var run = 0
        /// For each of `AchievementRules.streakWeeks`, the first workout of the first run's Nth week.
        var streaks: [ActivityWorkout?] = AchievementRules.streakWeeks.map { _ in nil }
        /// For each of `AchievementRules.weeklyFrequencies`, the Nth workout of the first week that had N.
        var frequencies: [ActivityWorkout?] = AchievementRules.weeklyFrequencies.map { _ in nil }
        var nightOwl: ActivityWorkout?
        var earlyBird: ActivityWorkout?
        var onBirthday: ActivityWorkout?
        var anniversary: ActivityWorkout?
        /// The day a year after the first workout's (28 February for a first on 29 February).
        var yearLater: Int?
        var challenges: [ChallengeProgress]
        private let birthday: MonthDay?

        struct MonthDay: Sendable, Equatable {
            var month: Int
            var day: Int
        }

        struct Week: Sendable, Equatable {
            var monday: Int
            var workouts: Int
        }

        struct ChallengeProgress: Sendable, Equatable {
            /// Its first and last day, `nil` when they do not parse.
            var start: Int?
            var end: Int?
            /// Workouts, or seconds for `activeMinutes`.
            var reached = 0
            /// What `reached` must come to.
            var goal: Int
            var seconds: Bool
            var earnedBy: ActivityWorkout?
        }

        init(birthday: String?, challenges: [Challenge]) {
            self.birthday = birthday.flatMap(AchievementRules.monthDay).map { MonthDay(month: $0.0, day: $0.1) }
            self.challenges = challenges.map { challenge in
                let seconds = challenge.rule == .activeMinutes
                return ChallengeProgress(
                    start: CivilDate.dayNumber(challenge.startsOn), end: CivilDate.dayNumber(challenge.endsOn),
                    goal: seconds ? challenge.target * 60 : challenge.target, seconds: seconds)
            }
        }

        mutating func add(_ workout: ActivityWorkout) {
            count += 1
            if AchievementRules.milestones.contains(count) { milestones.append(workout) }

            let week = AchievementRules.monday(workout.localDay)
            if week == weeks.last?.monday {
                weeks[weeks.count - 1].workouts += 1
            } else {
                run = week - (weeks.last?.monday ?? week) == 7 ? run + 1 : 1
                weeks.append(Week(monday: week, workouts: 1))
                if let index = AchievementRules.streakWeeks.firstIndex(of: run), streaks[index] == nil {
                    streaks[index] = workout
                }
            }
            if let index = AchievementRules.weeklyFrequencies.firstIndex(of: weeks[weeks.count - 1].workouts),
                frequencies[index] == nil
            {
                frequencies[index] = workout
            }

            let minute = workout.localMinute
            if nightOwl == nil,
                minute >= AchievementRules.nightOwl.from || minute < AchievementRules.nightOwl.until
            {
                nightOwl = workout
            }
            if earlyBird == nil, minute >= AchievementRules.earlyBird.from, minute < AchievementRules.earlyBird.until {
                earlyBird = workout
            }
            if onBirthday == nil, let birthday {
                let date = CivilDate(day: workout.localDay)
                if (date.month, date.day) == (birthday.month, birthday.day)
                    || ((birthday.month, birthday.day) == (2, 29) && !CivilDate.isLeap(date.year)
                        && (date.month, date.day) == (2, 28))
                {
                    onBirthday = workout
                }
            }
            if let yearLater {
                if anniversary == nil, workout.localDay >= yearLater { anniversary = workout }
            } else {
                first = workout
                let date = CivilDate(day: workout.localDay)
                yearLater =
                    CivilDate(
                        year: date.year + 1, month: date.month,
                        day: date.month == 2 && date.day == 29 && !CivilDate.isLeap(date.year + 1) ? 28 : date.day
                    ).dayNumber
            }

            for index in challenges.indices {
                guard let start = challenges[index].start, let end = challenges[index].end,
                    workout.localDay >= start, workout.localDay <= end
                else { continue }
                challenges[index].reached += challenges[index].seconds ? workout.durationSeconds : 1
                if challenges[index].earnedBy == nil, challenges[index].reached >= challenges[index].goal {
                    challenges[index].earnedBy = workout
                }
            }
        }
    }
}

/// The workout that holds the first new personal record, as the New PR trophy names it.
public struct ActivityRecord: Sendable, Equatable {
    public var id: WorkoutID
    public var startedAt: Date

    public init(id: WorkoutID, startedAt: Date) {
        self.id = id
        self.startedAt = startedAt
    }

    public init(_ workout: ActivityWorkout) {
        self.init(id: workout.id, startedAt: workout.startedAt)
    }
}
