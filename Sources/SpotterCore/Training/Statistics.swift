import Foundation

public enum StatisticsPeriod: String, Sendable, Codable, CaseIterable {
    case day
    /// ISO week: Monday to Sunday in the lifter's time zone.
    case week
    case month
}

public struct MuscleGroupVolume: Sendable, Equatable {
    public var muscleGroup: MuscleGroup
    public var setCount: Int
    public var volume: Mass

    public init(muscleGroup: MuscleGroup, setCount: Int, volume: Mass) {
        self.muscleGroup = muscleGroup
        self.setCount = setCount
        self.volume = volume
    }
}

public struct CategoryVolume: Sendable, Equatable {
    public var category: ExerciseCategory
    public var setCount: Int
    public var volume: Mass

    public init(category: ExerciseCategory, setCount: Int, volume: Mass) {
        self.category = category
        self.setCount = setCount
        self.volume = volume
    }
}

/// Totals of one day, week or month; counted (non-warm-up) sets only.
public struct StatisticsBucket: Sendable, Equatable {
    /// The period's first local date, YYYY-MM-DD.
    public var startDate: String
    public var workouts: Int
    public var activeMinutes: Int
    public var setCount: Int
    public var repCount: Int
    public var volume: Mass
    /// Busiest first.
    public var muscleGroups: [MuscleGroupVolume]
    /// By the exercises' movement category, busiest first.
    public var categories: [CategoryVolume]

    public init(
        startDate: String,
        workouts: Int,
        activeMinutes: Int,
        setCount: Int,
        repCount: Int,
        volume: Mass,
        muscleGroups: [MuscleGroupVolume],
        categories: [CategoryVolume] = []
    ) {
        self.startDate = startDate
        self.workouts = workouts
        self.activeMinutes = activeMinutes
        self.setCount = setCount
        self.repCount = repCount
        self.volume = volume
        self.muscleGroups = muscleGroups
        self.categories = categories
    }
}

extension StatisticsBucket {
    /// The bucket without its muscle groups and categories, for a tier without advanced statistics.
    public var withoutBreakdowns: StatisticsBucket {
        var bucket = self
        bucket.muscleGroups = []
        bucket.categories = []
        return bucket
    }
}

/// A statistics request, validated.
public struct StatisticsQuery: Sendable, Equatable {
    public static let maxRange: TimeInterval = 3 * 366 * 86_400

    public var period: StatisticsPeriod
    public var from: Date
    public var to: Date
    public var timeZone: String

    public init(period: StatisticsPeriod, from: Date, to: Date, timeZone: String) {
        self.period = period
        self.from = from
        self.to = to
        self.timeZone = timeZone
    }
}
