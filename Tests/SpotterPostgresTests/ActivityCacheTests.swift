import Foundation
import SpotterCore
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
        let cache = ActivityCache()
        let ada = TenantID(rawValue: UUID())
        let one = workout(1, "00000000-0000-0000-0000-000000000001")
        cache.store(
            ada,
            ActivityCache.Entry(
                feedSeq: 1, timeZone: "UTC", workouts: Array(repeating: one, count: ActivityCache.capacity + 1)))
        #expect(cache.take(ada) == nil)
    }
}
