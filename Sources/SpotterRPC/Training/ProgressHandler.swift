import Foundation
import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.ProgressService`: per-exercise progress, results and statistics.
public struct ProgressHandler: Spotter_V1_ProgressService.SimpleServiceProtocol {
    private let progress: ProgressService

    public init(progress: ProgressService) {
        self.progress = progress
    }

    public func getProgress(request: Spotter_V1_GetProgressRequest, context: ServerContext) async throws
        -> Spotter_V1_GetProgressResponse
    {
        let (principal, tenant) = try RequestContext.tenant()
        let formula = try E1RMFormula(requested: request.formula)
        let report = try await progress.progress(
            principal,
            exerciseID: request.exerciseID,
            from: request.hasFrom ? request.from.date("from") : nil,
            to: request.hasTo ? request.to.date("to") : nil,
            formula: formula
        )
        return Spotter_V1_GetProgressResponse(report, unit: tenant.unit)
    }

    public func listExerciseResults(request: Spotter_V1_ListExerciseResultsRequest, context: ServerContext)
        async throws -> Spotter_V1_ListExerciseResultsResponse
    {
        let (principal, tenant) = try RequestContext.tenant()
        let page = try await progress.results(
            principal, exerciseID: request.exerciseID, pageSize: Int(request.page.pageSize),
            pageToken: request.page.pageToken)
        return .with {
            $0.results = page.items.map { record in
                .with {
                    $0.set = Spotter_V1_SetReference(record, unit: tenant.unit)
                    $0.workoutName = record.workoutName ?? ""
                    $0.type = record.set.type.proto()
                    $0.note = record.set.note
                }
            }
            $0.nextPageToken = page.nextToken
        }
    }

    public func getStatistics(request: Spotter_V1_GetStatisticsRequest, context: ServerContext) async throws
        -> Spotter_V1_GetStatisticsResponse
    {
        let (principal, tenant) = try RequestContext.tenant()
        let statistics = try await progress.statistics(
            principal,
            period: try StatisticsPeriod(requested: request.period),
            from: request.hasFrom ? request.from.date("from") : nil,
            to: request.hasTo ? request.to.date("to") : nil
        )
        return Spotter_V1_GetStatisticsResponse(statistics, unit: tenant.unit)
    }
}

extension Spotter_V1_SetReference {
    init(_ record: ExerciseSetRecord, unit: WeightUnit) {
        self.init()
        workoutID = record.workoutID.description
        startedAt = Spotter_V1_Timestamp(record.startedAt)
        exerciseIndex = Int32(record.exerciseIndex)
        setIndex = Int32(record.setIndex)
        reps = Int32(record.set.reps)
        if let weight = record.set.weight { self.weight = Spotter_V1_Weight(weight, unit) }
        if let rpe = record.set.rpe { self.rpe = rpe.doubleValue }
        if let seconds = record.set.durationSeconds { durationSeconds = Int32(seconds) }
        if let meters = record.set.distanceMeters { distanceMeters = Int32(meters) }
    }
}

extension Spotter_V1_GetProgressResponse {
    init(_ report: ProgressReport, unit: WeightUnit) {
        self = .with {
            $0.exercise = Spotter_V1_Exercise(report.exercise)
            $0.points = report.points.map { point in
                .with {
                    $0.date = point.date
                    if let best = point.best {
                        $0.e1Rm = Spotter_V1_Weight(kilograms: best.kilograms, unit)
                        $0.e1RmFormula = best.formula.proto()
                        if let reserve = best.repsInReserve { $0.e1RmRepsInReserve = reserve }
                        $0.e1RmSet = Spotter_V1_SetReference(best.record, unit: unit)
                    }
                    $0.noEstimateReason = point.noEstimateReason ?? ""
                    $0.topSet = Spotter_V1_SetReference(point.topSet, unit: unit)
                    $0.volume = Spotter_V1_Weight(point.volume, unit)
                    $0.setCount = Int32(point.setCount)
                    if let longest = point.longestSet { $0.longestSet = Spotter_V1_SetReference(longest, unit: unit) }
                    $0.distanceMeters = Int32(clamping: point.distanceMeters)
                }
            }
            $0.records = .with {
                if let heaviest = report.records.heaviest {
                    $0.heaviestWeight = Spotter_V1_SetReference(heaviest, unit: unit)
                }
                if let best = report.records.bestE1RM {
                    $0.bestE1Rm = Spotter_V1_Weight(kilograms: best.kilograms, unit)
                    $0.bestE1RmFormula = best.formula.proto()
                    if let reserve = best.repsInReserve { $0.bestE1RmRepsInReserve = reserve }
                    $0.bestE1RmSet = Spotter_V1_SetReference(best.record, unit: unit)
                }
                $0.mostReps = report.records.mostReps.map { record in
                    .with {
                        $0.reps = Int32(record.reps)
                        $0.set = Spotter_V1_SetReference(record.record, unit: unit)
                    }
                }
                if let longest = report.records.longestSet {
                    $0.longestSet = Spotter_V1_SetReference(longest, unit: unit)
                }
                if let farthest = report.records.farthestSet {
                    $0.farthestSet = Spotter_V1_SetReference(farthest, unit: unit)
                }
                $0.bestTimes = report.records.bestTimes.map { Spotter_V1_SetReference($0, unit: unit) }
            }
        }
    }
}

extension Spotter_V1_GetStatisticsResponse {
    init(_ statistics: Statistics, unit: WeightUnit) {
        self = .with {
            $0.streak = Spotter_V1_WeeklyStreak(statistics.streak)
            $0.buckets = statistics.buckets.map { Spotter_V1_StatisticsBucket($0, unit: unit) }
            if let locked = statistics.breakdownsLocked { $0.breakdownsTierRequired = locked.proto() }
        }
    }
}

extension Spotter_V1_WeeklyStreak {
    init(_ streak: WeeklyStreak) {
        self = .with {
            $0.currentWeeks = Int32(streak.current)
            $0.longestWeeks = Int32(streak.longest)
            $0.currentSince = streak.currentSince ?? ""
            $0.lastWeek = streak.lastWeek ?? ""
        }
    }
}

extension Spotter_V1_StatisticsBucket {
    init(_ bucket: StatisticsBucket, unit: WeightUnit) {
        self = .with {
            $0.startDate = bucket.startDate
            $0.workouts = Int32(bucket.workouts)
            $0.activeMinutes = Int32(bucket.activeMinutes)
            $0.setCount = Int32(bucket.setCount)
            $0.repCount = Int32(bucket.repCount)
            $0.volume = Spotter_V1_Weight(bucket.volume, unit)
            $0.muscleGroups = bucket.muscleGroups.map { group in
                .with {
                    $0.muscleGroup = group.muscleGroup.proto()
                    $0.setCount = Int32(group.setCount)
                    $0.volume = Spotter_V1_Weight(group.volume, unit)
                }
            }
            $0.categories = bucket.categories.map { group in
                .with {
                    $0.category = group.category.proto()
                    $0.setCount = Int32(group.setCount)
                    $0.volume = Spotter_V1_Weight(group.volume, unit)
                }
            }
        }
    }
}

extension E1RMFormula {
    /// The formula a request picks: Epley (also when unset) or Brzycki. `E1RM_FORMULA_RPE`, the RTS
    /// table sets with an RPE were once estimated by, is refused rather than answered with Epley:
    /// those sets now count their reps in reserve in the formula chosen.
    init(requested: Spotter_V1_E1rmFormula) throws(SpotterError) {
        switch requested {
        case .unspecified, .epley: self = .epley
        case .brzycki: self = .brzycki
        case .rpe:
            throw SpotterError.invalid(
                "formula",
                "E1RM_FORMULA_RPE is no longer a formula: a set logged with an RPE counts its reps in reserve (10 − RPE) in the formula chosen; choose E1RM_FORMULA_EPLEY (the default) or E1RM_FORMULA_BRZYCKI"
            )
        case .UNRECOGNIZED(let value):
            throw SpotterError.invalid(
                "formula", "\(value) is not a formula; choose E1RM_FORMULA_EPLEY (the default) or E1RM_FORMULA_BRZYCKI")
        }
    }
}

extension StatisticsPeriod {
    /// The period a request asks for: `nil` when unset (the service says it is required, beside the
    /// request's other problems); a number this server has no period for is named as such.
    init?(requested: Spotter_V1_StatisticsPeriod) throws(SpotterError) {
        guard requested.rawValue != 0 else { return nil }
        guard let period = StatisticsPeriod(proto: requested) else {
            throw .invalid("period", "must be DAY, WEEK or MONTH, not \(requested.rawValue)")
        }
        self = period
    }
}
