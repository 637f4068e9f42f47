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
                SELECT workout_id, NULL::text AS workout_name, started_at, exercise_position, position, set_type,
                       reps, weight_kg, rpe, rest_seconds, note
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

    public func statistics(_ principal: Principal, _ query: StatisticsQuery) async throws -> [StatisticsBucket] {
        let tenant = principal.tenantID
        let parameters: [any PostgresEncodable] = [
            tenant.rawValue, query.period.rawValue, query.timeZone, query.from, query.to,
        ]
        return try await database.withTenant(principal) { connection in
            let totals = try await connection.query(
                """
                SELECT date_trunc($2, started_at AT TIME ZONE $3)::date::text AS bucket, count(*) AS workouts,
                       sum(duration_seconds) / 60 AS minutes, sum(set_count) AS sets, sum(rep_count) AS reps,
                       sum(volume_kg) AS volume_kg
                FROM workouts
                WHERE tenant_id = $1 AND deleted_at IS NULL AND started_at >= $4 AND started_at < $5
                GROUP BY 1 ORDER BY 1
                """,
                parameters
            )
            // Warm-up sets are not counted (SetType.isCounted).
            let muscles = try await connection.query(
                """
                SELECT date_trunc($2, s.started_at AT TIME ZONE $3)::date::text AS bucket,
                       coalesce(c.muscle_group, x.muscle_group) AS muscle_group, count(*) AS sets,
                       sum(s.reps * coalesce(s.weight_kg, 0)) AS volume_kg
                FROM workout_sets s
                LEFT JOIN catalog_exercises c ON c.exercise_id = s.exercise_id
                LEFT JOIN exercises x ON x.tenant_id = s.tenant_id AND x.exercise_id = s.exercise_id
                WHERE s.tenant_id = $1 AND s.started_at >= $4 AND s.started_at < $5 AND s.set_type <> 'warm_up'
                GROUP BY 1, 2
                """,
                parameters
            )
            var groups: [String: [MuscleGroupVolume]] = [:]
            for row in muscles {
                guard let muscle = MuscleGroup(rawValue: try row.decode("muscle_group") as String? ?? "") else {
                    continue
                }
                groups[try row.decode("bucket"), default: []].append(
                    MuscleGroupVolume(
                        muscleGroup: muscle,
                        setCount: try row.decode("sets"),
                        volume: try row.decode("volume_kg") as Mass
                    )
                )
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
                    muscleGroups: (groups[bucket] ?? []).sorted {
                        ($0.volume, $0.setCount, $1.muscleGroup.rawValue) > (
                            $1.volume, $1.setCount, $0.muscleGroup.rawValue
                        )
                    }
                )
            }
        }
    }

    private static let select = """
        SELECT s.workout_id, w.name AS workout_name, s.started_at, s.exercise_position, s.position, s.set_type,
               s.reps, s.weight_kg, s.rpe, s.rest_seconds, s.note
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
