import Foundation
import Postgres
import SpotterCore

/// `BodyStore` on PostgreSQL (`body_measurements`, Migrations/0028_body_metrics.sql). A series is
/// one range of `body_measurements_day_key`.
public struct PostgresBodyStore: BodyStore {
    private let database: SpotterDatabase

    public init(database: SpotterDatabase) {
        self.database = database
    }

    public func create(_ principal: Principal, _ id: MeasurementID, _ input: MeasurementInput, now: Date) async throws
        -> BodyMeasurement
    {
        try await database.withTenant(principal) { connection in
            if let existing = try await Self.live(principal.tenantID, input.metric, on: input.measuredOn, connection) {
                throw Self.dayTaken(input, by: existing)
            }
            return try await Self.insert(principal.tenantID, id, input, now: now, connection)
        }
    }

    public func record(_ principal: Principal, _ id: MeasurementID, _ input: MeasurementInput, now: Date) async throws
        -> BodyMeasurement
    {
        try await database.withTenant(principal) { connection in
            try await Self.lockDay(principal.tenantID, input, connection)
            if let existing = try await Self.live(principal.tenantID, input.metric, on: input.measuredOn, connection) {
                // The same values again (as shown) change nothing: no new version for devices to pull.
                let input = input.keepingValue(of: existing)
                if Self.holds(existing, input) { return existing }
                return try await Self.replace(
                    principal.tenantID, existing.id, input, expectedVersion: nil, now: now, connection)
                    ?? existing
            }
            return try await Self.insert(principal.tenantID, id, input, now: now, connection)
        }
    }

    public func createReplacingDay(
        _ principal: Principal, _ id: MeasurementID, _ input: MeasurementInput, now: Date
    ) async throws -> BodyMeasurement {
        try await database.withTenant(principal) { connection in
            try await Self.lockDay(principal.tenantID, input, connection)
            try await connection.query(
                """
                UPDATE body_measurements SET deleted_at = $5, updated_at = $5, version = version + 1
                WHERE tenant_id = $1 AND metric = $2 AND measured_on = $3::date AND deleted_at IS NULL
                  AND measurement_id <> $4
                """,
                [principal.tenantID.rawValue, input.metric.rawValue, input.measuredOn, id.rawValue, now])
            return try await Self.insert(principal.tenantID, id, input, now: now, connection)
        }
    }

    public func update(
        _ principal: Principal, _ id: MeasurementID, _ input: MeasurementInput, expectedVersion: Int64?, now: Date
    ) async throws -> BodyMeasurement {
        try await database.withTenant(principal) { connection in
            let current = try await Self.load(principal.tenantID, id, connection)
            guard let current, current.deleted == false else { throw SpotterError.notFound("measurement not found") }
            if let other = try await Self.live(principal.tenantID, input.metric, on: input.measuredOn, connection),
                other.id != id
            {
                throw Self.dayTaken(input, by: other)
            }
            // The same values again (as shown) at the right version: answered as it is, with no new
            // version.
            let input = input.keepingValue(of: current.measurement)
            if expectedVersion ?? current.measurement.version == current.measurement.version,
                Self.holds(current.measurement, input)
            {
                return current.measurement
            }
            guard
                let changed = try await Self.replace(
                    principal.tenantID, id, input, expectedVersion: expectedVersion, now: now, connection)
            else {
                throw VersionCheck.failure(
                    "measurement", expected: expectedVersion, current: current.measurement.version)
            }
            return changed
        }
    }

    public func delete(_ principal: Principal, _ id: MeasurementID, now: Date) async throws -> Bool {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                UPDATE body_measurements SET deleted_at = $3, updated_at = $3, version = version + 1
                WHERE tenant_id = $1 AND measurement_id = $2 AND deleted_at IS NULL
                """,
                [principal.tenantID.rawValue, id.rawValue, now]
            ).affectedRows == 1
        }
    }

    public func measurements(_ principal: Principal, metrics: [BodyMetric], from: String?, to: String?) async throws
        -> [BodyMeasurement]
    {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                Self.select + """
                     WHERE tenant_id = $1 AND deleted_at IS NULL
                      AND (cardinality($2::text[]) = 0 OR metric = ANY($2::text[]))
                      AND ($3::date IS NULL OR measured_on >= $3::date) AND ($4::date IS NULL OR measured_on <= $4::date)
                    ORDER BY metric, measured_on
                    """,
                [principal.tenantID.rawValue, metrics.map(\.rawValue), from, to]
            ).map(Self.decode)
        }
    }

    // MARK: SQL

    /// What `decode` reads.
    private static let columns =
        "measurement_id, metric, measured_on::text AS measured_on, value, note, version, created_at, updated_at"

    static let select = "SELECT \(columns), deleted_at IS NOT NULL AS deleted FROM body_measurements"

    /// The refusal of a second live value of a metric on one day.
    private static func dayTaken(_ input: MeasurementInput, by existing: BodyMeasurement) -> SpotterError {
        .alreadyExists(
            field: "measurement.measured_on",
            reason: "\(input.metric.rawValue) already has a value on \(input.measuredOn) (measurement \(existing.id))")
    }

    static func decode(_ row: PostgresRow) throws -> BodyMeasurement {
        BodyMeasurement(
            id: MeasurementID(rawValue: try row.decode("measurement_id")),
            metric: BodyMetric(rawValue: try row.decode("metric")) ?? .bodyWeight,
            measuredOn: try row.decode("measured_on"), value: try row.decode("value"), note: try row.decode("note"),
            version: try row.decode("version"), createdAt: try row.decode("created_at"),
            updatedAt: try row.decode("updated_at"))
    }

    /// One measurement, deleted or not; the feed's loader reads live ones through it too.
    static func load(_ tenant: TenantID, _ id: MeasurementID, _ connection: PostgresConnection) async throws
        -> (measurement: BodyMeasurement, deleted: Bool)?
    {
        try await connection.query(
            select + " WHERE tenant_id = $1 AND measurement_id = $2", [tenant.rawValue, id.rawValue]
        ).single.map { (try decode($0), try $0.decode("deleted")) }
    }

    /// Live measurements among `ids`, for a pull.
    static func live(_ tenant: TenantID, _ ids: [UUID], _ connection: PostgresConnection) async throws
        -> [BodyMeasurement]
    {
        try await connection.query(
            select + " WHERE tenant_id = $1 AND measurement_id = ANY($2::uuid[]) AND deleted_at IS NULL",
            [tenant.rawValue, ids]
        ).map(decode)
    }

    /// Whether `measurement` already holds `input`'s values.
    private static func holds(_ measurement: BodyMeasurement, _ input: MeasurementInput) -> Bool {
        measurement.metric == input.metric && measurement.measuredOn == input.measuredOn
            && measurement.value == input.value && measurement.note == input.note
    }

    /// One recording at a time per metric and day, so two at once replace rather than collide on
    /// `body_measurements_day_key`.
    private static func lockDay(_ tenant: TenantID, _ input: MeasurementInput, _ connection: PostgresConnection)
        async throws
    {
        try await connection.query(
            "SELECT pg_advisory_xact_lock(hashtextextended($1::text || $2 || $3, 0))",
            [tenant.rawValue, input.metric.rawValue, input.measuredOn])
    }

    private static func live(
        _ tenant: TenantID, _ metric: BodyMetric, on day: String, _ connection: PostgresConnection
    ) async throws -> BodyMeasurement? {
        try await connection.query(
            select + " WHERE tenant_id = $1 AND metric = $2 AND measured_on = $3::date AND deleted_at IS NULL",
            [tenant.rawValue, metric.rawValue, day]
        ).single.map(decode)
    }

    private static func insert(
        _ tenant: TenantID, _ id: MeasurementID, _ input: MeasurementInput, now: Date, _ connection: PostgresConnection
    ) async throws -> BodyMeasurement {
        if let taken = try await load(tenant, id, connection) {
            throw SpotterError.alreadyExists(
                field: "measurement_id",
                reason: taken.deleted
                    ? "belongs to a deleted measurement; ids are not reused, record it with a new one"
                    : "is already taken")
        }
        let row = try await connection.query(
            """
            INSERT INTO body_measurements (tenant_id, measurement_id, metric, measured_on, value, note, created_at,
                                           updated_at)
            VALUES ($1, $2, $3, $4::date, $5, $6, $7, $7)
            RETURNING \(columns)
            """,
            [tenant.rawValue, id.rawValue, input.metric.rawValue, input.measuredOn, input.value, input.note, now])
        return try decode(row.single!)
    }

    /// The live measurement changed to `input` at `expectedVersion` (any when `nil`), with a new
    /// version; `nil` when there is none at that version. Callers answer values it already holds
    /// without it (`holds`), so no device is told of a change that is not one.
    private static func replace(
        _ tenant: TenantID, _ id: MeasurementID, _ input: MeasurementInput, expectedVersion: Int64?, now: Date,
        _ connection: PostgresConnection
    ) async throws -> BodyMeasurement? {
        try await connection.query(
            """
            UPDATE body_measurements
            SET metric = $3, measured_on = $4::date, value = $5, note = $6, updated_at = $7, version = version + 1
            WHERE tenant_id = $1 AND measurement_id = $2 AND deleted_at IS NULL AND ($8::bigint IS NULL OR version = $8)
            RETURNING \(columns)
            """,
            [
                tenant.rawValue, id.rawValue, input.metric.rawValue, input.measuredOn, input.value, input.note, now,
                expectedVersion,
            ]
        ).single.map(decode)
    }
}
