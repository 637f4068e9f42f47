import Foundation
import SpotterCore
import SpotterTestSupport
import Testing

@testable import SpotterPostgres

/// The reconciler's workouts cache: a round takes its lifter's list out and extends it in place, so
/// a lifter who keeps logging does not cost a copy of their whole history per round (which made
/// spotterd's memory grow with the history under `Benchmarks/soak.sh`).
@Suite("Activity workouts cache")
struct ActivityCacheTests {
    private func workout(_ second: Int, _ id: String) -> ActivityWorkout {
        ActivityWorkout(
            id: WorkoutID(rawValue: UUID(uuidString: id)!),
            startedAt: Date(timeIntervalSince1970: Double(second)), durationSeconds: 3600, localDay: 0,
            localMinute: 0)
    }

    /// An hour of squats, one set of 5 at 60 kg, started at `start`.
    private func squatHour(_ start: Date) -> WorkoutDraft {
        WorkoutDraft(
            name: "Squats", startedAt: start, durationSeconds: 3600,
            exercises: [
                WorkoutExerciseDraft(
                    exerciseID: Catalog.squat.description,
                    sets: [SetDraft(reps: 5, weight: WeightDraft(value: 60, unit: .kg))])
            ])
    }

    @Test("new workouts are appended in place, in the database's order, ties at the latest start sorted by id")
    func mergeAppendsInPlace() {
        var workouts = [
            workout(1, "00000000-0000-0000-0000-000000000001"),
            workout(5, "00000000-0000-0000-0000-00000000000C"),
            workout(5, "00000000-0000-0000-0000-00000000000A"),
        ]
        workouts.reserveCapacity(16)
        let buffer = workouts.withUnsafeBufferPointer { $0.baseAddress }
        PostgresActivityStore.merge(
            &workouts,
            [
                workout(5, "00000000-0000-0000-0000-00000000000B"), workout(7, "00000000-0000-0000-0000-000000000002"),
            ])
        #expect(
            workouts.map(\.id.rawValue.uuidString.last) == ["1", "A", "B", "C", "2"],
            "by start, then by id; the earlier workouts keep their places")
        #expect(workouts.withUnsafeBufferPointer { $0.baseAddress } == buffer, "the list was not copied")

        var empty: [ActivityWorkout] = []
        PostgresActivityStore.merge(&empty, [workout(3, "00000000-0000-0000-0000-000000000003")])
        #expect(empty.count == 1)
    }

    @Test("taking a lifter's entry leaves the cache without it until a round stores one back")
    func takeRemoves() {
        let cache = ActivityCache()
        let ada = TenantID(rawValue: UUID())
        var list = [workout(1, "00000000-0000-0000-0000-000000000001")]
        list.reserveCapacity(8)
        cache.store(ada, ActivityCache.Entry(feedSeq: 3, timeZone: "UTC", workouts: list))
        list = []
        var taken = cache.take(ada)
        #expect(taken?.feedSeq == 3)
        #expect(cache.take(ada) == nil, "a concurrent round reads everything instead")
        let buffer = taken?.workouts.withUnsafeBufferPointer { $0.baseAddress }
        taken?.workouts.append(workout(2, "00000000-0000-0000-0000-000000000002"))
        #expect(
            taken?.workouts.withUnsafeBufferPointer { $0.baseAddress } == buffer,
            "the taken list had no other owner, so it grew in place")
        cache.store(ada, taken!)
        #expect(cache.take(ada)?.workouts.count == 2)
    }

    @Test("a list longer than the cache holds is not kept")
    func overCapacity() {
        let cache = ActivityCache(capacity: 4)
        let ada = TenantID(rawValue: UUID())
        let one = workout(1, "00000000-0000-0000-0000-000000000001")
        cache.store(ada, ActivityCache.Entry(feedSeq: 1, timeZone: "UTC", workouts: Array(repeating: one, count: 5)))
        #expect(cache.take(ada) == nil)
    }

    @Test(
        "a full cache evicts the entries stored longest ago once they have settled; before that the newcomer is not kept"
    )
    func fullCache() {
        let cache = ActivityCache(capacity: 10, settled: .seconds(10))
        let start = ContinuousClock.now
        let (ada, bob, cy) = (TenantID(rawValue: UUID()), TenantID(rawValue: UUID()), TenantID(rawValue: UUID()))
        let four = ActivityCache.Entry(
            feedSeq: 1, timeZone: "UTC",
            workouts: Array(repeating: workout(1, "00000000-0000-0000-0000-000000000001"), count: 4))
        cache.store(ada, four, now: start)
        cache.store(bob, four, now: start + .seconds(2))
        // Twelve workouts would not fit, and Ada's entry, the oldest, is three seconds old: Cy goes without, so
        // lifters logging in turn keep their shortcut instead of each evicting the next.
        cache.store(cy, four, now: start + .seconds(3))
        #expect(cache.take(cy) == nil)
        // Ada's has settled: it leaves, the oldest; Bob's stays.
        cache.store(cy, four, now: start + .seconds(11))
        #expect(cache.take(cy) != nil)
        #expect(cache.take(bob) != nil)
        #expect(cache.take(ada) == nil)

        // Only settled entries leave, and only when they make room: Cy's settled four are not
        // enough for eight more beside Bob's fresh four, so nothing is evicted for nothing.
        cache.store(cy, four, now: start + .seconds(20))
        cache.store(bob, four, now: start + .seconds(29))
        let eight = ActivityCache.Entry(
            feedSeq: 1, timeZone: "UTC", workouts: four.workouts + four.workouts)
        cache.store(ada, eight, now: start + .seconds(31))
        #expect(cache.take(ada) == nil)
        #expect(cache.take(cy) != nil, "not evicted without making room")
        #expect(cache.take(bob) != nil)
    }

    @Test("a round that reads everything gets every live workout in order, whatever the cursor's batch")
    func everythingInBatches() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
            let training = database.trainingServices(clock: clock)
            let ada = try await database.lifter("ada")
            func feedNumber(_ tenant: TenantID) async throws -> Int64 {
                try await database.asOwner { connection in
                    let counter = try await connection.query(
                        "SELECT last_seq FROM sync_counters WHERE tenant_id = $1", [tenant.rawValue])
                    return try counter.single?.decode("last_seq") ?? 0
                }
            }
            var logged: [WorkoutID] = []
            for index in 0..<7 {
                let start = clock.now.addingTimeInterval(Double(index) * -86_400)
                logged.append(try await training.workouts.log(ada, id: "", squatHour(start)).id)
            }
            try await training.workouts.delete(ada, id: logged[3].description)
            let live = Array(logged.reversed().filter { $0 != logged[3] })
            for batch in [1, 2, 3, 6, 7, 100] {
                let (seq, workouts) = try await database.asTenant(ada.tenantID) { connection in
                    try await PostgresActivityStore.everything(ada.tenantID, "UTC", connection, batch: batch)
                }
                #expect(workouts.map(\.id) == live, "batch \(batch): oldest first, the deleted one left out")
                #expect(try await feedNumber(ada.tenantID) == seq, "batch \(batch): the feed's number as of the read")
            }
            // Twice in one transaction: the cursor is closed after each read.
            let twice = try await database.asTenant(ada.tenantID) { connection in
                [
                    try await PostgresActivityStore.everything(ada.tenantID, "UTC", connection, batch: 2).workouts,
                    try await PostgresActivityStore.everything(ada.tenantID, "UTC", connection, batch: 2).workouts,
                ]
            }
            #expect(twice.map { $0.map(\.id) } == [live, live])
            let none = try await database.lifter("bob")
            let (seq, workouts) = try await database.asTenant(none.tenantID) { connection in
                try await PostgresActivityStore.everything(none.tenantID, "UTC", connection, batch: 3)
            }
            #expect(workouts.isEmpty, "no workouts: nothing")
            #expect(try await feedNumber(none.tenantID) == seq, "and the feed's number still read")
        }
    }

    @Test("a round of new workouts extends the cached list it took without copying it")
    func factsExtendTheTakenList() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
            let training = database.trainingServices(clock: clock)
            let ada = try await database.lifter("ada")
            func log(_ hoursLater: Double) async throws {
                let start = clock.now.addingTimeInterval(hoursLater * 3600)
                _ = try await training.workouts.log(ada, id: "", squatHour(start))
            }
            try await log(0)
            try await log(1)
            // What a round read and kept, as a round leaves them.
            let read = try await database.asTenant(ada.tenantID) { connection in
                try await PostgresActivityStore.everything(ada.tenantID, "UTC", connection)
            }
            let seq = read.seq
            var list = read.workouts
            list.reserveCapacity(64)
            let buffer = list.withUnsafeBufferPointer { $0.baseAddress }
            var cached: ActivityCache.Entry? = ActivityCache.Entry(feedSeq: seq, timeZone: "UTC", workouts: list)
            list = []
            let kept = PostgresActivityStore.Kept(feedSeq: seq, lastStart: clock.now.addingTimeInterval(3600))
            try await log(2)
            let facts = try await database.asTenant(ada.tenantID) { connection in
                try await PostgresActivityStore.facts(
                    ada.tenantID, now: clock.now, connection, kept: kept, cached: &cached
                ).facts
            }
            #expect(cached == nil, "the entry was used up")
            #expect(facts.workouts.count == 3)
            #expect(facts.workouts.withUnsafeBufferPointer { $0.baseAddress } == buffer, "extended in place")
        }
    }
}
