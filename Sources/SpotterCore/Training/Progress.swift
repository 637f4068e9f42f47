import Foundation

/// One logged set of an exercise with where it came from.
public struct ExerciseSetRecord: Sendable, Equatable {
    public var workoutID: WorkoutID
    /// `nil` where it was not read (progress has no use for it).
    public var workoutName: String?
    public var startedAt: Date
    public var exerciseIndex: Int
    public var setIndex: Int
    public var set: WorkoutSet

    public init(
        workoutID: WorkoutID,
        workoutName: String?,
        startedAt: Date,
        exerciseIndex: Int,
        setIndex: Int,
        set: WorkoutSet
    ) {
        self.workoutID = workoutID
        self.workoutName = workoutName
        self.startedAt = startedAt
        self.exerciseIndex = exerciseIndex
        self.setIndex = setIndex
        self.set = set
    }
}

/// A set's estimate together with the set.
public struct EstimatedSet: Sendable, Equatable {
    public var kilograms: Double
    public var formula: E1RMFormula
    /// `10 − RPE`, counted with the set's reps, when the set was logged with an RPE.
    public var repsInReserve: Double?
    public var record: ExerciseSetRecord
}

/// One day of an exercise's progress.
public struct ProgressPoint: Sendable, Equatable {
    /// The local date, YYYY-MM-DD.
    public var date: String
    /// The day's best estimate; `nil` when no set could be estimated.
    public var best: EstimatedSet?
    /// Why there is no estimate, when there is none.
    public var noEstimateReason: String?
    public var topSet: ExerciseSetRecord
    public var volume: Mass
    public var setCount: Int
    /// The day's longest timed set (the longest hold), if any set had a duration.
    public var longestSet: ExerciseSetRecord?
    /// Metres covered in the day's sets.
    public var distanceMeters: Int
}

public struct RepRecord: Sendable, Equatable {
    public var reps: Int
    public var record: ExerciseSetRecord
}

public struct PersonalRecords: Sendable, Equatable {
    public var heaviest: ExerciseSetRecord?
    public var bestE1RM: EstimatedSet?
    /// For each weight, the most reps; heaviest first.
    public var mostReps: [RepRecord]
    /// The longest set by time (a plank's or a hang's longest hold).
    public var longestSet: ExerciseSetRecord?
    /// The longest set by distance.
    public var farthestSet: ExerciseSetRecord?
    /// For each distance covered in a timed set, the fastest time; longest distance first.
    public var bestTimes: [ExerciseSetRecord]

    public init(
        heaviest: ExerciseSetRecord? = nil,
        bestE1RM: EstimatedSet? = nil,
        mostReps: [RepRecord] = [],
        longestSet: ExerciseSetRecord? = nil,
        farthestSet: ExerciseSetRecord? = nil,
        bestTimes: [ExerciseSetRecord] = []
    ) {
        self.heaviest = heaviest
        self.bestE1RM = bestE1RM
        self.mostReps = mostReps
        self.longestSet = longestSet
        self.farthestSet = farthestSet
        self.bestTimes = bestTimes
    }
}

public struct ProgressReport: Sendable, Equatable {
    public var exercise: Exercise
    public var points: [ProgressPoint]
    public var records: PersonalRecords
}

/// Turns an exercise's sets into per-day points and records. Only counted (non-warm-up) sets take
/// part; ties go to the earlier set, so a record points at the first time it was reached.
public enum ProgressCalculator {
    public static func report(
        exercise: Exercise,
        sets: [ExerciseSetRecord],
        formula: E1RMFormula,
        timeZone: TimeZone
    ) -> ProgressReport {
        let counted = sets.filter { $0.set.type.isCounted }
            .sorted { ($0.startedAt, $0.exerciseIndex, $0.setIndex) < ($1.startedAt, $1.exerciseIndex, $1.setIndex) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone

        var points: [ProgressPoint] = []
        var records = PersonalRecords()
        var repsByWeight: [Mass: RepRecord] = [:]
        var fastestByDistance: [Int: ExerciseSetRecord] = [:]
        // Sets of one workout share its start: work out each distinct start's date once.
        var previous: (Date, String)?
        let dates = counted.map { record in
            if let previous, previous.0 == record.startedAt { return previous.1 }
            let date = localDate(record.startedAt, calendar)
            previous = (record.startedAt, date)
            return date
        }
        var dayStart = 0
        while dayStart < counted.count {
            let date = dates[dayStart]
            var dayEnd = dayStart
            while dayEnd < counted.count, dates[dayEnd] == date { dayEnd += 1 }
            let day = counted[dayStart..<dayEnd]
            var best: EstimatedSet?
            var reasons: [(ExerciseSetRecord, String)] = []
            // The heaviest set of the day, a missed attempt too.
            var attempted = day.first!
            // The heaviest set done (a rep, or a time): a missed attempt is no record.
            var done: ExerciseSetRecord?
            var volume = Mass.zero
            var longest: ExerciseSetRecord?
            var distance = 0
            for record in day {
                volume = volume + record.set.volume
                distance += record.set.distanceMeters ?? 0
                if let seconds = record.set.durationSeconds {
                    if seconds > (longest?.set.durationSeconds ?? 0) { longest = record }
                    if let meters = record.set.distanceMeters,
                        seconds < (fastestByDistance[meters]?.set.durationSeconds ?? .max)
                    {
                        fastestByDistance[meters] = record
                    }
                }
                if let meters = record.set.distanceMeters, meters > (records.farthestSet?.set.distanceMeters ?? 0) {
                    records.farthestSet = record
                }
                if isHeavier(record, than: attempted) { attempted = record }
                if record.set.reps > 0 || record.set.durationSeconds != nil,
                    done.map({ isHeavier(record, than: $0) }) ?? true
                {
                    done = record
                }
                switch OneRepMax.estimate(
                    weight: record.set.weight, reps: record.set.reps, rpe: record.set.rpe, formula: formula)
                {
                case .estimate(let kilograms, let used, let reserve):
                    if kilograms > (best?.kilograms ?? 0) {
                        best = EstimatedSet(kilograms: kilograms, formula: used, repsInReserve: reserve, record: record)
                    }
                case .none(let reason):
                    reasons.append((record, reason))
                }
                if let weight = record.set.weight, weight > .zero, record.set.reps > 0,
                    record.set.reps > (repsByWeight[weight]?.reps ?? 0)
                {
                    repsByWeight[weight] = RepRecord(reps: record.set.reps, record: record)
                }
            }
            if let done, let heaviest = records.heaviest {
                if isHeavier(done, than: heaviest) { records.heaviest = done }
            } else if let done, done.set.weight != nil {
                records.heaviest = done
            }
            if let best, best.kilograms > (records.bestE1RM?.kilograms ?? 0) { records.bestE1RM = best }
            if let longest, longest.set.durationSeconds! > (records.longestSet?.set.durationSeconds ?? 0) {
                records.longestSet = longest
            }
            // The day's top set is its heaviest set done; a missed attempt (no rep) only on a day
            // that has nothing else.
            let top = done ?? attempted
            points.append(
                ProgressPoint(
                    date: date,
                    best: best,
                    // Why the top set gives none, the set a reader looks at first.
                    noEstimateReason: best == nil ? (reasons.first { $0.0 == top } ?? reasons.first)?.1 : nil,
                    topSet: top,
                    volume: volume,
                    setCount: day.count,
                    longestSet: longest,
                    distanceMeters: distance
                )
            )
            dayStart = dayEnd
        }
        records.mostReps = repsByWeight.values.sorted {
            $0.record.set.weight! > $1.record.set.weight!
        }
        records.bestTimes = fastestByDistance.values.sorted { $0.set.distanceMeters! > $1.set.distanceMeters! }
        return ProgressReport(exercise: exercise, points: points, records: records)
    }

    /// Heavier weight wins; at equal weight, more reps; then the longer time (a weighted hold).
    private static func isHeavier(_ candidate: ExerciseSetRecord, than current: ExerciseSetRecord) -> Bool {
        let a = candidate.set.weight ?? .zero
        let b = current.set.weight ?? .zero
        if a != b { return a > b }
        if candidate.set.reps != current.set.reps { return candidate.set.reps > current.set.reps }
        return (candidate.set.durationSeconds ?? 0) > (current.set.durationSeconds ?? 0)
    }

    /// YYYY-MM-DD of `date` in the calendar's time zone.
    public static func localDate(_ date: Date, _ calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(parts.year!, 4))-\(padded(parts.month!, 2))-\(padded(parts.day!, 2))"
    }
}

/// What each tier may see.
public enum Entitlements {
    /// Body weight, body fat and tape measurements: recording them and reading their series are
    /// the Pro tier's (deleting one's own, and the export, are not gated).
    public static func checkBodyTracking(tier: Tier, kind: TenantKind) throws(SpotterError) {
        switch tier {
        case .pro, .coachPro: return
        case .free, .coach:
            let (unlocking, name) = fullTier(kind)
            throw .tierRequired("body weight and measurement tracking needs the \(name) tier", tier: unlocking)
        }
    }

    /// Progress for an exercise: the free tier (and a coach's Coach tier) covers the big three only.
    public static func checkProgress(for exercise: Exercise, tier: Tier, kind: TenantKind) throws(SpotterError) {
        switch tier {
        case .pro, .coachPro:
            return
        case .free, .coach:
            if exercise.bigThree != nil { return }
            let (unlocking, name) = fullTier(kind)
            throw .tierRequired(
                "progress for \(exercise.name) needs the \(name) tier; your tier covers Barbell Back Squat, "
                    + "Barbell Bench Press and Barbell Deadlift",
                tier: unlocking)
        }
    }

    /// The advanced statistics: totals per muscle group and per movement category, in
    /// `GetStatistics`' periods and `GetActivitySummary`'s totals. `nil` when `tier` includes them,
    /// else the tier that would (Pro; Coach Pro for a coach's own training). Totals per period,
    /// streaks and achievements are every tier's; a coach's view of a client is gated by the coach's
    /// tier instead (`CoachEntitlements.checkClientStatistics`).
    public static func breakdownsLocked(tier: Tier, kind: TenantKind) -> Tier? {
        switch tier {
        case .pro, .coachPro: nil
        case .free, .coach: fullTier(kind).0
        }
    }

    /// The same for a tenant's context, with its tier as it stands at `now`.
    public static func breakdownsLocked(_ context: TenantContext, at now: Date) -> Tier? {
        breakdownsLocked(tier: context.tier.effective(at: now), kind: context.kind)
    }

    /// The tier that opens everything for an account of `kind`, and its name: a lifter's Pro, a
    /// coach's Coach Pro (a coach cannot hold Pro).
    private static func fullTier(_ kind: TenantKind) -> (Tier, String) {
        kind == .coach ? (.coachPro, "Coach Pro") : (.pro, "Pro")
    }
}
