import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Synchronization
import Testing

/// Real time, to the second: the feed stamps its rows with the database clock, and the purge
/// compares them with the service clock.
func syncTestStart() -> Date {
    Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
}

/// What the sync test files share: mutations and drafts, pulling to the end, counting rows,
/// and driving two transactions by hand.

/// Where most sync tests start: a sync service on a clock at `start`, the lifter "ada", her phone
/// registered (its device id as a push names it) and the day her workouts happened, an hour before.
func adaWithPhone(_ database: TestDatabase, start: Date) async throws
    -> (sync: SyncService, ada: Principal, phone: String, day: Date)
{
    let clock = TestClock(start)
    let sync = database.syncService(clock: clock)
    let ada = try await database.lifter("ada")
    let phone = try await sync.registerDevice(ada, label: "phone").id.description
    return (sync, ada, phone, start.addingTimeInterval(-3600))
}

func put(_ id: Int64, _ content: Mutation.Content, _ object: UUID, base: Int64 = 0) -> Mutation {
    Mutation(
        id: id, kind: content.kind, objectID: object.uuidString.lowercased(), baseVersion: base,
        change: .put(content))
}

func delete(_ id: Int64, _ kind: SyncKind, _ object: UUID, base: Int64) -> Mutation {
    Mutation(id: id, kind: kind, objectID: object.uuidString.lowercased(), baseVersion: base, change: .delete)
}

func profilePut(_ id: Int64, _ update: ProfileUpdate, base: Int64) -> Mutation {
    Mutation(id: id, kind: .profile, objectID: "", baseVersion: base, change: .put(.profile(update)))
}

func templateDraft(_ name: String, sets: Int = 3) -> TemplateDraft {
    TemplateDraft(
        name: name,
        items: [
            TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: sets, repsMin: 5),
            TemplateItemDraft(exerciseID: Catalog.benchPress.description, targetSets: 3, repsMin: 8, repsMax: 10),
        ])
}

func exerciseDraft(_ name: String) -> ExerciseDraft {
    ExerciseDraft(name: name, category: .squat, muscleGroup: .quadriceps, equipment: .barbell, instructions: "")
}

func programDraft(_ name: String, _ template: UUID, weeks: Int = 4) -> ProgramDraft {
    ProgramDraft(
        name: name, weeks: weeks,
        days: [
            ProgramDraft.Day(week: 1, weekday: 1, templateID: template.uuidString),
            ProgramDraft.Day(week: 1, weekday: 4, templateID: template.uuidString),
        ])
}

func keys(_ ids: [SyncKind: [UUID]]) -> Set<SyncObjectKey> {
    Set(ids.flatMap { kind, ids in ids.map { SyncObjectKey(kind, $0) } })
}

/// Runs `sql` on `connection` in the background; the task answers the statement's error, if any.
func inBackground(_ connection: PostgresConnection, _ sql: String, _ parameters: [any PostgresEncodable])
    -> Task<(any Error)?, Never>
{
    Task {
        do {
            try await connection.query(sql, parameters)
            return nil
        } catch {
            return error
        }
    }
}

/// How many sessions of this database wait for a lock, once at least one does (or after 4 s).
func lockWaiters(_ observer: PostgresConnection) async throws -> Int {
    var waiting = 0
    for _ in 0..<200 where waiting == 0 {
        waiting = try await observer.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ).single!.decode("n")
        if waiting == 0 { try await Task.sleep(for: .milliseconds(20)) }
    }
    return waiting
}

/// The error `body` failed with, or `nil`.
func rpcSafe(_ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}

/// Runs `sql` on `connection` and commits its transaction; rolls back and answers the error on failure.
func runAndCommit(_ connection: PostgresConnection, _ sql: String, _ parameters: [any PostgresEncodable])
    async -> (any Error)?
{
    do {
        try await connection.query(sql, parameters)
        try await connection.execute("COMMIT")
        return nil
    } catch {
        _ = try? await connection.execute("ROLLBACK")
        return error
    }
}

/// Commits `connection`'s transaction when its last statement succeeded, else rolls it back.
func end(_ connection: PostgresConnection, after error: (any Error)?) async throws {
    if error == nil { try await connection.execute("COMMIT") } else { _ = try? await connection.execute("ROLLBACK") }
}

/// Makes `principal`'s feed entries and stored mutation results `days` older.
func age(_ database: TestDatabase, _ principal: Principal, days: Int) async throws {
    try await database.asOwner { owner in
        for table in ["sync_changes SET changed_at = changed_at", "sync_mutations SET applied_at = applied_at"] {
            try await owner.query(
                "UPDATE \(table) - make_interval(days => $2) WHERE tenant_id = $1", [principal.tenantID.rawValue, days])
        }
    }
}

/// Every page from `cursor` on.
func pullAll(
    _ sync: SyncService, _ principal: Principal, from cursor: String = "", pageSize: Int = 100, device: String = ""
) async throws -> (changes: [SyncChange], cursor: SyncCursor, lastMutationID: Int64?) {
    var token = cursor
    var changes: [SyncChange] = []
    for _ in 0..<10_000 {
        let page = try await sync.pull(principal, cursor: token, pageSize: pageSize, deviceID: device)
        changes += page.changes
        token = page.cursor.token
        if !page.hasMore { return (changes, page.cursor, page.lastMutationID) }
    }
    throw PullDidNotEnd()
}

/// What a tenant holds, counted past row-level security.
struct Counts: Equatable, CustomStringConvertible {
    var workouts, templates, exercises, programs, feed, lastSeq, mutations, applied, profileVersion: Int

    var description: String {
        "workouts \(workouts) templates \(templates) exercises \(exercises) programs \(programs) feed \(feed) "
            + "last_seq \(lastSeq) mutations \(mutations) applied \(applied) profile v\(profileVersion)"
    }
}

func counts(_ database: TestDatabase, _ principal: Principal) async throws -> Counts {
    try await database.asOwner { owner in
        let row = try await owner.query(
            """
            SELECT (SELECT count(*) FROM workouts WHERE tenant_id = $1)::int AS workouts,
                   (SELECT count(*) FROM templates WHERE tenant_id = $1)::int AS templates,
                   (SELECT count(*) FROM exercises WHERE tenant_id = $1)::int AS exercises,
                   (SELECT count(*) FROM programs WHERE tenant_id = $1)::int AS programs,
                   (SELECT count(*) FROM sync_changes WHERE tenant_id = $1)::int AS feed,
                   (SELECT last_seq FROM sync_counters WHERE tenant_id = $1)::int AS last_seq,
                   (SELECT count(*) FROM sync_mutations WHERE tenant_id = $1)::int AS mutations,
                   (SELECT coalesce(sum(last_mutation_id), 0) FROM sync_devices WHERE tenant_id = $1)::int AS applied,
                   (SELECT version FROM tenants WHERE tenant_id = $1)::int AS profile_version
            """,
            [principal.tenantID.rawValue]
        ).single!
        return Counts(
            workouts: try row.decode("workouts"), templates: try row.decode("templates"),
            exercises: try row.decode("exercises"), programs: try row.decode("programs"), feed: try row.decode("feed"),
            lastSeq: try row.decode("last_seq"), mutations: try row.decode("mutations"),
            applied: try row.decode("applied"), profileVersion: try row.decode("profile_version"))
    }
}

extension SyncObject {
    var workout: Workout? { if case .workout(let value) = self { value } else { nil } }
    var template: Template? { if case .template(let value) = self { value } else { nil } }
    var exercise: Exercise? { if case .exercise(let value) = self { value } else { nil } }
    var program: Program? { if case .program(let value) = self { value } else { nil } }
    var profile: Profile? { if case .profile(let value) = self { value } else { nil } }
    var follow: ProgramFollow? { if case .follow(let value) = self { value } else { nil } }
    var comment: WorkoutComment? { if case .comment(let value) = self { value } else { nil } }
    var assignment: AssignedPlan? { if case .assignment(let value) = self { value } else { nil } }
}
