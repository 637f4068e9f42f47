import Foundation
import Postgres
import SpotterCore

/// `SyncStore` on PostgreSQL. The change feed itself is written by triggers
/// (`Migrations/0009_sync.sql`); this store reads it and keeps devices and mutation results.
public struct PostgresSyncStore: SyncStore {
    private let database: SpotterDatabase

    public init(database: SpotterDatabase) {
        self.database = database
    }

    // MARK: Devices

    public func registerDevice(_ principal: Principal, _ id: DeviceID, label: String, now: Date) async throws
        -> Device
    {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                "INSERT INTO sync_devices (tenant_id, device_id, label, created_at) VALUES ($1, $2, $3, $4)",
                [principal.tenantID.rawValue, id.rawValue, label, now]
            )
            return Device(id: id, label: label, lastMutationID: 0, createdAt: now)
        }
    }

    public func devices(_ principal: Principal) async throws -> [Device] {
        try await database.withTenant(principal) { connection in
            try await Self.devices(principal.tenantID, connection)
        }
    }

    public func removeDevice(_ principal: Principal, _ id: DeviceID) async throws -> Bool {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                "DELETE FROM sync_devices WHERE tenant_id = $1 AND device_id = $2",
                [principal.tenantID.rawValue, id.rawValue]
            ).affectedRows == 1
        }
    }

    /// The tenant's devices, oldest first.
    static func devices(_ tenant: TenantID, _ connection: PostgresConnection) async throws -> [Device] {
        try await connection.query(
            """
            SELECT device_id, label, last_mutation_id, created_at FROM sync_devices
            WHERE tenant_id = $1 ORDER BY created_at, device_id
            """,
            [tenant.rawValue]
        ).map { row in
            Device(
                id: DeviceID(rawValue: try row.decode("device_id")), label: try row.decode("label"),
                lastMutationID: try row.decode("last_mutation_id"), createdAt: try row.decode("created_at"))
        }
    }

    // MARK: Push

    /// The most mutations one transaction of a push applies. Each mutation that writes does so in
    /// a savepoint, which takes a subtransaction id that stays with the transaction until it ends;
    /// a backend keeps 64 of them in shared memory, and while a transaction holds more, every
    /// other session's snapshot is "suboverflowed" and checks the rows it reads through
    /// `pg_subtrans` (a known slowdown of busy servers, worst on replicas). A larger push is
    /// applied in transactions of this many, one after another.
    public static let mutationsPerTransaction = 50

    public func push(
        _ principal: Principal,
        device: DeviceID,
        _ mutations: [Mutation],
        now: Date,
        apply: (Mutation) async throws -> MutationResult
    ) async throws -> [MutationResult] {
        // Inside a caller's transaction of the same tenant every part would join that one.
        assert(SpotterDatabase.open == nil, "a sync push commits in transactions of its own")
        var results: [MutationResult] = []
        // An empty push still checks the device and notes the push (one transaction).
        for start in stride(from: 0, to: max(mutations.count, 1), by: Self.mutationsPerTransaction) {
            let part = mutations[start..<min(start + Self.mutationsPerTransaction, mutations.count)]
            results += try await push(principal, device: device, part, at: start, now: now, apply: apply)
        }
        return results
    }

    /// Applies `mutations` in one transaction, as `SyncStore.push` says; `offset` is the first's
    /// index in the push.
    private func push(
        _ principal: Principal,
        device: DeviceID,
        _ mutations: ArraySlice<Mutation>,
        at offset: Int,
        now: Date,
        apply: (Mutation) async throws -> MutationResult
    ) async throws -> [MutationResult] {
        let tenant = principal.tenantID.rawValue
        return try await database.withTenant(principal) { connection in
            // A batch that may change what other tenants' feeds show takes all its feed locks first.
            if mutations.contains(where: { [.template, .program, .profile].contains($0.kind) }) {
                try await FeedLocks.take(connection)
            }
            // The device's row lock orders two pushes of one device: the second sees the first's work.
            var last = try await Self.lastMutationID(principal.tenantID, device, locking: true, connection)
            let replayed = mutations.filter { $0.id <= last }
            var results = try await Self.storedResults(principal, device, replayed, connection)
            // Before anything is applied: a number reused for another change refuses the push.
            for (index, (mutation, result)) in zip(replayed, results).enumerated() where !result.answers(mutation) {
                throw result.reusedNumber(at: offset + index, lastApplied: last)
            }
            // Each mutation runs in a savepoint. Closing it (released, or rolled back to when the
            // mutation is rejected), recording the result and opening the next one's go to the
            // server in one round trip, as do the last one's closing and the device's update.
            var unsent: [(sql: String, parameters: [any PostgresEncodable])] = []
            for mutation in mutations where mutation.id > last {
                guard mutation.id == last + 1 else {
                    throw SpotterError.failedPrecondition(
                        "mutations[0].mutation_id: the server has applied this device's mutations up to \(last); "
                            + "push from mutation \(last + 1) on")
                }
                try await Self.send(unsent + [("SAVEPOINT mutation", [])], connection)
                let result: MutationResult
                do {
                    result = try await apply(mutation)
                    unsent = [("RELEASE SAVEPOINT mutation", [])]
                } catch let error as SpotterError {
                    guard let rejection = MutationResult.rejection(for: mutation, error, tenant: principal.tenantID)
                    else { throw error }
                    result = rejection
                    unsent = [("ROLLBACK TO SAVEPOINT mutation", []), ("RELEASE SAVEPOINT mutation", [])]
                }
                var recorded = result
                recorded.fingerprint = mutation.fingerprint
                unsent.append(Self.record(principal, device, recorded, now: now))
                results.append(recorded)
                last = mutation.id
            }
            unsent.append(
                (
                    """
                    UPDATE sync_devices SET last_mutation_id = $3, last_push_at = $4
                    WHERE tenant_id = $1 AND device_id = $2
                    """,
                    [tenant, device.rawValue, last, now]
                ))
            try await Self.send(unsent, connection)
            return results
        }
    }

    /// Sends `statements` in one round trip: alone, or as a pipeline when there are several.
    private static func send(
        _ statements: [(sql: String, parameters: [any PostgresEncodable])], _ connection: PostgresConnection
    ) async throws {
        if statements.count == 1 {
            try await connection.query(statements[0].sql, statements[0].parameters)
        } else {
            try await connection.pipeline(statements)
        }
    }

    /// The statement that stores a mutation's result, for replays of the same push.
    private static func record(_ principal: Principal, _ device: DeviceID, _ result: MutationResult, now: Date)
        -> (sql: String, parameters: [any PostgresEncodable])
    {
        (
            """
            INSERT INTO sync_mutations (tenant_id, device_id, mutation_id, status, kind, object_id, version,
                                        base_version, server_deleted, fields, reasons, message, applied_at, fingerprint)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
            """,
            [
                principal.tenantID.rawValue, device.rawValue, result.mutationID, result.status.rawValue,
                result.kind.rawValue, result.objectID, result.version, result.baseVersion, result.serverDeleted,
                result.violations.map(\.field), result.violations.map(\.reason), result.message, now,
                result.fingerprint.map(PostgresBytes.init),
            ]
        )
    }

    /// The recorded results of mutations applied earlier, in order. A result older than the
    /// retention period is gone; it answers "applied" with a message saying so.
    private static func storedResults(
        _ principal: Principal,
        _ device: DeviceID,
        _ mutations: [Mutation],
        _ connection: PostgresConnection
    ) async throws -> [MutationResult] {
        guard let first = mutations.first, let last = mutations.last else { return [] }
        let rows = try await connection.query(
            """
            SELECT mutation_id, status, kind, object_id, version, base_version, server_deleted,
                   to_json(fields)::text AS fields, to_json(reasons)::text AS reasons, message, fingerprint
            FROM sync_mutations
            WHERE tenant_id = $1 AND device_id = $2 AND mutation_id BETWEEN $3 AND $4
            """,
            [principal.tenantID.rawValue, device.rawValue, first.id, last.id]
        )
        // The arrays arrive as JSON: their text form quotes and escapes only when it must.
        let decoder = JSONDecoder()
        func strings(_ row: PostgresRow, _ column: String) throws -> [String] {
            try decoder.decode([String].self, from: Data((row.decode(column) as String).utf8))
        }
        var stored: [Int64: MutationResult] = [:]
        for row in rows {
            let (fields, reasons) = (try strings(row, "fields"), try strings(row, "reasons"))
            let result = MutationResult(
                mutationID: try row.decode("mutation_id"),
                status: try ExerciseSQL.enumValue(row, "status"),
                kind: try ExerciseSQL.enumValue(row, "kind"),
                objectID: try row.decode("object_id"),
                version: try row.decode("version"),
                baseVersion: try row.decode("base_version"),
                serverDeleted: try row.decode("server_deleted"),
                violations: zip(fields, reasons).map { FieldViolation(field: $0, reason: $1) },
                message: try row.decode("message"),
                fingerprint: try (row.decode("fingerprint") as PostgresBytes?)?.bytes
            )
            stored[result.mutationID] = result
        }
        return mutations.map { mutation in
            stored[mutation.id]
                ?? MutationResult(
                    mutationID: mutation.id, status: .applied, kind: mutation.kind,
                    objectID: UUID(hexadecimal: mutation.objectID), version: 0, baseVersion: mutation.baseVersion,
                    message: "applied earlier; its result is no longer kept")
        }
    }

    public func objectState(_ principal: Principal, _ kind: SyncKind, _ id: UUID) async throws -> ObjectState? {
        let (table, column, deleted) =
            switch kind {
            case .workout: ("workouts", "workout_id", "deleted_at IS NOT NULL")
            case .template: ("templates", "template_id", "deleted_at IS NOT NULL")
            case .exercise: ("exercises", "exercise_id", "deleted_at IS NOT NULL")
            case .program: ("programs", "program_id", "deleted_at IS NOT NULL")
            case .profile: ("tenants", "tenant_id", "false")
            case .measurement: ("body_measurements", "measurement_id", "deleted_at IS NOT NULL")
            case .follow, .comment, .assignment, .achievement: ("", "", "")
            }
        guard !table.isEmpty else { return nil }
        return try await database.withTenant(principal) { connection in
            // Constant SQL per kind; the ids are parameters.
            try await connection.query(
                "SELECT version, \(deleted) AS deleted FROM \(table) WHERE tenant_id = $1 AND \(column) = $2 FOR UPDATE",
                [principal.tenantID.rawValue, id]
            ).single.map { ObjectState(version: try $0.decode("version"), deleted: try $0.decode("deleted")) }
        }
    }

    // MARK: Pull

    public func pull(_ principal: Principal, after cursor: SyncCursor, limit: Int, device: DeviceID?) async throws
        -> PullPage?
    {
        let tenant = principal.tenantID
        // One snapshot for the feed and the objects: each object is sent as of its feed number.
        return try await database.withTenant(principal, isolation: .repeatableRead) { connection in
            guard
                let counter = try await connection.query(
                    "SELECT last_seq, purged_seq FROM sync_counters WHERE tenant_id = $1", [tenant.rawValue]
                ).single
            else { return nil }
            let lastSeq: Int64 = try counter.decode("last_seq")
            let purgedSeq: Int64 = try counter.decode("purged_seq")
            if !cursor.isStart, cursor.seq < purgedSeq || cursor.seq > lastSeq { return nil }
            // A new device has nothing to delete: a first pull sends no tombstones, on any page.
            let skipTombstonesThrough = cursor.isStart ? lastSeq : cursor.firstPullThrough
            let lastMutationID = try await device.asyncMap {
                try await Self.lastMutationID(tenant, $0, locking: false, connection)
            }
            let rows = try await connection.query(
                """
                SELECT kind, object_id, seq FROM sync_changes
                WHERE tenant_id = $1 AND seq > $2 AND (seq > $4 OR NOT deleted)
                ORDER BY seq
                LIMIT $3
                """,
                [tenant.rawValue, cursor.seq, limit + 1, skipTombstonesThrough]
            )
            let hasMore = rows.count > limit
            var entries: [(kind: SyncKind, id: UUID, seq: Int64)] = []
            for row in rows.prefix(limit) {
                entries.append(
                    (try ExerciseSQL.enumValue(row, "kind"), try row.decode("object_id"), try row.decode("seq")))
            }
            let objects = try await SyncObjectSQL.load(principal, entries.map { ($0.kind, $0.id) }, connection)
            let changes = entries.compactMap { entry -> SyncChange? in
                let object = objects[SyncKey(entry.kind, entry.id)]
                if object == nil, entry.seq <= skipTombstonesThrough { return nil }
                return SyncChange(seq: entry.seq, kind: entry.kind, objectID: entry.id, object: object)
            }
            // With nothing more to send, every change up to the snapshot's last number has been seen.
            let next =
                hasMore
                ? SyncCursor(seq: entries.last!.seq, firstPullThrough: skipTombstonesThrough)
                : SyncCursor(seq: max(cursor.seq, lastSeq))
            return PullPage(changes: changes, cursor: next, hasMore: hasMore, lastMutationID: lastMutationID)
        }
    }

    /// The device's last applied mutation, with its row locked until the transaction ends when
    /// `locking`; `notFound` when the device is not the tenant's.
    private static func lastMutationID(
        _ tenant: TenantID,
        _ device: DeviceID,
        locking: Bool,
        _ connection: PostgresConnection
    ) async throws -> Int64 {
        let select = "SELECT last_mutation_id FROM sync_devices WHERE tenant_id = $1 AND device_id = $2"
        guard
            let last: Int64 = try await connection.query(
                locking ? select + " FOR UPDATE" : select, [tenant.rawValue, device.rawValue]
            ).single?.decode("last_mutation_id")
        else { throw SpotterError.notFound("device_id: no such device; register it first") }
        return last
    }

    public func purge(retentionDays: Int) async throws -> Int {
        try await database.withoutTenant { connection in
            try await connection.query("SELECT spotter_sync_purge($1) AS purged", [retentionDays]).single?.decode(
                "purged") ?? 0
        }
    }
}
