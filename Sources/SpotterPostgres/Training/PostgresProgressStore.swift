import Foundation
import Postgres
import SpotterCore

/// `ProgressStore` on PostgreSQL: per-exercise reads go down `workout_sets_exercise_idx`,
/// statistics aggregate in the database.
public struct PostgresProgressStore: ProgressStore {
    private let database: SpotterDatabase

    public init(database: SpotterDatabase) {
        self.database = database
    }

    public func exerciseSets(_ principal: Principal, _ exercise: ExerciseID, from: Date?, to: Date?) async throws
        -> [ExerciseSetRecord]
    {
        // One index range of workout_sets, no join: progress needs no workout names.
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                SELECT workout_id, NULL::text AS workout_name, started_at, exercise_position, position,
                       \(WorkoutSQL.setColumns())
                FROM workout_sets
                WHERE tenant_id = $1 AND exercise_id = $2
                  AND ($3::timestamptz IS NULL OR started_at >= $3)
                  AND ($4::timestamptz IS NULL OR started_at < $4)
                ORDER BY started_at, workout_id, exercise_position, position
                """,
                [principal.tenantID.rawValue, exercise.rawValue, from, to]
            ).map(Self.decode)
        }
    }

    public func exerciseResults(
        _ principal: Principal, _ exercise: ExerciseID, after cursor: ExerciseResultCursor?, limit: Int
    ) async throws -> [ExerciseSetRecord] {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                Self.select + """
                     WHERE s.tenant_id = $1 AND s.exercise_id = $2
                      AND ($3::timestamptz IS NULL
                           OR (s.started_at, s.workout_id) < ($3, $4::uuid)
                           OR ((s.started_at, s.workout_id) = ($3, $4::uuid)
                               AND (s.exercise_position, s.position) > ($5::int, $6::int)))
                    ORDER BY s.started_at DESC, s.workout_id DESC, s.exercise_position, s.position
                    LIMIT $7
                    """,
                [
                    principal.tenantID.rawValue, exercise.rawValue, cursor?.startedAt, cursor?.workoutID.rawValue,
                    cursor?.exerciseIndex, cursor?.setIndex, limit,
                ]
            ).map(Self.decode)
        }
    }

    public func trainingWeeks(_ principal: Principal, timeZone: String) async throws -> [Int] {
        try await database.withTenant(principal) { connection in
            // PostgreSQL's week is the ISO week: date_trunc gives its Monday.
            try await connection.query(
                """
                SELECT DISTINCT date_trunc('week', started_at AT TIME ZONE $2)::date - DATE '1970-01-01' AS week
                FROM workouts WHERE tenant_id = $1 AND deleted_at IS NULL
                ORDER BY 1
                """,
                [principal.tenantID.rawValue, timeZone]
            ).map { try $0.decode("week") }
        }
    }

    /// The workouts' totals per bucket (`bucket`: the bucket's expression, `%@` for the start).
    /// Active minutes are each workout's duration to the nearest minute, added up, so the days of
    /// a week add up to the week (a bucket's seconds rounded once did not).
    private static func totalsSQL(_ bucket: String) -> String {
        """
        SELECT \(bucket.replacingOccurrences(of: "%@", with: "started_at")) AS bucket, count(*) AS workouts,
               sum((duration_seconds + 30) / 60) AS minutes, sum(set_count) AS sets, sum(rep_count) AS reps,
               sum(volume_kg) AS volume_kg
        FROM workouts
        WHERE tenant_id = $1 AND deleted_at IS NULL
          AND ($4::timestamptz IS NULL OR started_at >= $4) AND ($5::timestamptz IS NULL OR started_at < $5)
        GROUP BY 1 ORDER BY 1
        """
    }

    /// The sets and volume per bucket and muscle group, and per bucket and category. Warm-up sets are
    /// not counted (SetType.isCounted).
    private static func groupsSQL(_ bucket: String) -> String {
        """
        SELECT \(bucket.replacingOccurrences(of: "%@", with: "s.started_at")) AS bucket,
               coalesce(c.muscle_group, x.muscle_group) AS muscle_group,
               coalesce(c.category, x.category) AS category, count(*) AS sets,
               sum(s.reps * coalesce(s.weight_kg, 0)) AS volume_kg
        FROM workout_sets s
        LEFT JOIN catalog_exercises c ON c.exercise_id = s.exercise_id
        LEFT JOIN exercises x ON x.tenant_id = s.tenant_id AND x.exercise_id = s.exercise_id
        WHERE s.tenant_id = $1 AND s.set_type <> 'warm_up'
          AND ($4::timestamptz IS NULL OR s.started_at >= $4) AND ($5::timestamptz IS NULL OR s.started_at < $5)
        GROUP BY GROUPING SETS ((1, 2), (1, 3))
        """
    }

    public func statistics(_ principal: Principal, _ query: StatisticsQuery) async throws -> [StatisticsBucket] {
        try await buckets(principal, period: query.period.rawValue, from: query.from, to: query.to, query.timeZone)
    }

    public func totals(_ principal: Principal, from: Date?, to: Date?, timeZone: String) async throws
        -> StatisticsBucket?
    {
        try await buckets(principal, period: "all", from: from, to: to, timeZone).first
    }

    /// Totals per `period` (`day`, `week`, `month`, or `all` for one bucket over the whole range,
    /// whose start date is empty) of the live workouts started in `[from, to)`.
    private func buckets(_ principal: Principal, period: String, from: Date?, to: Date?, _ timeZone: String)
        async throws -> [StatisticsBucket]
    {
        let tenant = principal.tenantID
        let parameters: [any PostgresEncodable] = [tenant.rawValue, period, timeZone, from, to]
        let bucket = "CASE WHEN $2 = 'all' THEN '' ELSE date_trunc($2, %@ AT TIME ZONE $3)::date::text END"
        return try await database.withTenant(principal) { connection in
            // Both read all of the tenant's rows in the range: planned for this tenant, so a lifter
            // with a few workouts reads them by index whatever the statistics' average tenant holds.
            let answers = try await connection.pipeline(
                [(Self.totalsSQL(bucket), parameters), (Self.groupsSQL(bucket), parameters)], planning: .custom)
            let (totals, groups) = (answers[0], answers[1])
            var muscles: [String: [MuscleGroupVolume]] = [:]
            var categories: [String: [CategoryVolume]] = [:]
            for row in groups {
                let bucket: String = try row.decode("bucket")
                let sets: Int = try row.decode("sets")
                let volume: Mass = try row.decode("volume_kg")
                if let muscle = MuscleGroup(rawValue: try row.decode("muscle_group") as String? ?? "") {
                    muscles[bucket, default: []].append(
                        MuscleGroupVolume(muscleGroup: muscle, setCount: sets, volume: volume))
                } else if let category = ExerciseCategory(rawValue: try row.decode("category") as String? ?? "") {
                    categories[bucket, default: []].append(
                        CategoryVolume(category: category, setCount: sets, volume: volume))
                }
            }
            return try totals.map { row in
                let bucket: String = try row.decode("bucket")
                return StatisticsBucket(
                    startDate: bucket,
                    workouts: try row.decode("workouts"),
                    activeMinutes: try row.decode("minutes"),
                    setCount: try row.decode("sets"),
                    repCount: try row.decode("reps"),
                    volume: try row.decode("volume_kg") as Mass,
                    muscleGroups: (muscles[bucket] ?? []).sorted {
                        ($0.volume, $0.setCount, $1.muscleGroup.rawValue) > (
                            $1.volume, $1.setCount, $0.muscleGroup.rawValue
                        )
                    },
                    categories: (categories[bucket] ?? []).sorted {
                        ($0.volume, $0.setCount, $1.category.rawValue) > (
                            $1.volume, $1.setCount, $0.category.rawValue
                        )
                    }
                )
            }
        }
    }

    private static let select = """
        SELECT s.workout_id, w.name AS workout_name, s.started_at, s.exercise_position, s.position,
               \(WorkoutSQL.setColumns("s."))
        FROM workout_sets s
        JOIN workouts w ON w.tenant_id = s.tenant_id AND w.workout_id = s.workout_id
        """

    private static func decode(_ row: PostgresRow) throws -> ExerciseSetRecord {
        ExerciseSetRecord(
            workoutID: WorkoutID(rawValue: try row.decode("workout_id")),
            workoutName: try row.decode("workout_name"),
            startedAt: try row.decode("started_at"),
            exerciseIndex: try row.decode("exercise_position"),
            setIndex: try row.decode("position"),
            set: try WorkoutSQL.decodeSet(row)
        )
    }
}
