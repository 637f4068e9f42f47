import Foundation
import Postgres
import SpotterCore
import SpotterTestSupport
import Testing

/// A comment sent while its workout is deleted or replaced, held at the moment that used to lose
/// it: the owner takes the lifter's feed counter first (as a delete or replace does with its
/// UPDATE), so the call waits there, and the test changes the workout before letting it go.
@Suite("Comments racing a workout's delete or replace")
struct CommentRaceTests {
    private let start = Date(timeIntervalSince1970: 1_795_392_000)

    /// Runs `body` in an owner transaction holding the tenant's feed counter; `waiting` runs
    /// meanwhile and must block on it before `body` goes on.
    private func holdingLock<T: Sendable>(
        _ database: TestDatabase, _ tenant: TenantID,
        waiting: @escaping @Sendable () async throws -> T, then body: (PostgresConnection) async throws -> Void
    ) async throws -> Task<T, any Error> {
        let owner = try await database.ownerConnection()
        try await owner.execute("BEGIN")
        try await owner.query("SELECT FROM sync_counters WHERE tenant_id = $1 FOR UPDATE", [tenant.rawValue])
        let task = Task { try await waiting() }
        let watcher = try await database.ownerConnection()
        var waited = false
        for _ in 0..<500 where !waited {
            let blocked = try await watcher.query(
                """
                SELECT count(*)::int AS n FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'
                """
            ).single!.decode("n", as: Int.self)
            waited = blocked > 0
            if !waited { try await Task.sleep(for: .milliseconds(10)) }
        }
        await watcher.close()
        if !waited { Issue.record("the call never waited for the feed counter") }
        try await body(owner)
        try await owner.execute("COMMIT")
        await owner.close()
        return task
    }

    @Test("a comment waiting while its workout is deleted is NOT_FOUND and leaves nothing behind")
    func commentDuringDelete() async throws {
        try await TestDatabase.with { database in
            let coaching = database.coachingService(clock: TestClock(start))
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let workout = try await training.workouts.log(ada, id: "", workoutDraft(at: start, sets: 2))
            let comment = try await holdingLock(database, ada.tenantID) {
                try await coaching.comment(
                    ada, workoutID: workout.id.description, exerciseIndex: nil, setIndex: nil, body: "late")
            } then: { owner in
                try await owner.query(
                    "UPDATE workouts SET deleted_at = now(), version = version + 1 WHERE workout_id = $1",
                    [workout.id.rawValue])
            }
            await #expect(throws: SpotterError.notFound("workout not found")) { try await comment.value }
            #expect(try await database.count("SELECT count(*)::int FROM workout_comments") == 0)
        }
    }

    @Test(
        "a comment on a set waiting while the workout is replaced is refused; one on the workout is kept; a delete waiting for a comment removes it"
    )
    func commentDuringReplaceAndDeleteAfterComment() async throws {
        try await TestDatabase.with { database in
            let coaching = database.coachingService(clock: TestClock(start))
            let training = database.trainingServices(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let workout = try await training.workouts.log(ada, id: "", workoutDraft(at: start, sets: 2))
            let replaced: @Sendable (PostgresConnection) async throws -> Void = { owner in
                try await owner.query(
                    "UPDATE workouts SET version = version + 1 WHERE workout_id = $1", [workout.id.rawValue])
            }
            let onSet = try await holdingLock(database, ada.tenantID) {
                try await coaching.comment(
                    ada, workoutID: workout.id.description, exerciseIndex: 0, setIndex: 1, body: "set two")
            } then: {
                try await replaced($0)
            }
            await #expect(
                throws: SpotterError.failedPrecondition(
                    "the workout was changed while the comment was sent; look at it again and comment on the set as it is now"
                )
            ) { try await onSet.value }
            let onWorkout = try await holdingLock(database, ada.tenantID) {
                try await coaching.comment(
                    ada, workoutID: workout.id.description, exerciseIndex: nil, setIndex: nil, body: "good day")
            } then: {
                try await replaced($0)
            }
            #expect(try await onWorkout.value.body == "good day")

            // The delete's UPDATE waits for the transaction that inserts a comment; its own
            // statements after it see the comment and delete it with the others.
            let delete = try await holdingLock(database, ada.tenantID) {
                try await training.workouts.delete(ada, id: workout.id.description)
            } then: { owner in
                try await owner.query(
                    """
                    INSERT INTO workout_comments (tenant_id, comment_id, workout_id, author_id, body, created_at)
                    VALUES ($1, gen_random_uuid(), $2, $1, 'meanwhile', now())
                    """,
                    [ada.tenantID.rawValue, workout.id.rawValue])
            }
            try await delete.value
            #expect(try await database.count("SELECT count(*)::int FROM workout_comments") == 0)
        }
    }
}
