import Foundation
import SpotterTestSupport
import Testing

@testable import SpotterCore
@testable import SpotterPostgres

/// The reconciler's cache of folded histories: a round takes its lifter's tally out and folds the
/// new workouts into it, so a lifter who keeps logging costs neither a read nor a list of their
/// whole history per round (which made spotterd's memory grow with the history under
/// `Benchmarks/soak.sh`).
@Suite("Activity tally cache")
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

    private func entry(_ feedSeq: Int64) -> ActivityCache.Entry {
        ActivityCache.Entry(
            feedSeq: feedSeq, timeZone: "UTC",
            tally: ActivityTally([workout(1, "00000000-0000-0000-0000-000000000001")], birthday: nil, challenges: []))
    }

    @Test("taking a lifter's entry leaves the cache without it until a round stores one back")
    func takeRemoves() {
        let cache = ActivityCache()
        let ada = TenantID(rawValue: UUID())
        cache.store(ada, entry(3))
        var taken = cache.take(ada)
        #expect(taken?.feedSeq == 3)
        #expect(cache.take(ada) == nil, "a concurrent round reads everything instead")
        taken?.tally.add(workout(2, "00000000-0000-0000-0000-000000000002"))
        cache.store(ada, taken!)
        #expect(cache.take(ada)?.tally.count == 2)
    }

    @Test(
        "a full cache evicts the entry stored longest ago once it has settled; before that the newcomer is not kept"
    )
    func fullCache() {
        let cache = ActivityCache(capacity: 2, settled: .seconds(10))
        let start = ContinuousClock.now
        let (ada, bob, cy) = (TenantID(rawValue: UUID()), TenantID(rawValue: UUID()), TenantID(rawValue: UUID()))
        cache.store(ada, entry(1), now: start)
        cache.store(bob, entry(1), now: start + .seconds(2))
        // A third would not fit, and Ada's entry, the oldest, is three seconds old: Cy goes without, so
        // lifters logging in turn keep their shortcut instead of each evicting the next.
        cache.store(cy, entry(1), now: start + .seconds(3))
        #expect(cache.take(cy) == nil)
        // Ada's has settled: it leaves, the oldest; Bob's stays.
        cache.store(cy, entry(1), now: start + .seconds(11))
        #expect(cache.take(cy) != nil)
        #expect(cache.take(bob) != nil)
        #expect(cache.take(ada) == nil)

        // A lifter already in a full cache replaces their entry without evicting anyone.
        cache.store(ada, entry(1), now: start + .seconds(20))
        cache.store(bob, entry(1), now: start + .seconds(21))
        cache.store(ada, entry(2), now: start + .seconds(40))
        #expect(cache.take(ada)?.feedSeq == 2)
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
            func read(_ tenant: TenantID, batch: Int) async throws -> (seq: Int64, tally: ActivityTally, first: UUID?) {
                try await database.asTenant(tenant) { connection in
                    var first: UUID?
                    let (seq, tally) = try await PostgresActivityStore.everything(
                        tenant, "UTC", connection, batch: batch
                    ) { workout in
                        first = workout?.id.rawValue
                        return ActivityTally(birthday: nil, challenges: [])
                    }
                    return (seq, tally, first)
                }
            }
            let whole = try await read(ada.tenantID, batch: 100)
            let fold = whole.tally.folded
            #expect(whole.first == live[0].rawValue, "the tally starts from the first workout")
            #expect(fold.count == 6, "the deleted one left out")
            #expect(fold.milestones.map(\.id) == [live[0], live[4]], "the 1st and 5th, oldest first")
            #expect(whole.tally.last?.id == live[5])
            #expect(fold.weeks.map(\.workouts).reduce(0, +) == 6)
            for batch in [1, 2, 3, 6, 7] {
                let read = try await read(ada.tenantID, batch: batch)
                #expect(read.tally == whole.tally, "batch \(batch): the same fold")
                #expect(read.first == whole.first)
                #expect(
                    try await feedNumber(ada.tenantID) == read.seq, "batch \(batch): the feed's number as of the read")
            }
            // Twice in one transaction: the cursor is closed after each read.
            let twice = try await database.asTenant(ada.tenantID) { connection in
                [
                    try await PostgresActivityStore.everything(ada.tenantID, "UTC", connection, batch: 2) { _ in
                        ActivityTally(birthday: nil, challenges: [])
                    }.tally,
                    try await PostgresActivityStore.everything(ada.tenantID, "UTC", connection, batch: 2) { _ in
                        ActivityTally(birthday: nil, challenges: [])
                    }.tally,
                ]
            }
            #expect(twice == [whole.tally, whole.tally])
            let none = try await database.lifter("bob")
            let empty = try await read(none.tenantID, batch: 3)
            #expect(empty.tally.count == 0, "no workouts: nothing")
            #expect(empty.first == nil, "and the tally made all the same")
            #expect(try await feedNumber(none.tenantID) == empty.seq, "and the feed's number still read")
        }
    }

    @Test("a round of new workouts folds them into the tally it took, the same as reading everything")
    func factsFoldIntoTheTakenTally() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
            let training = database.trainingServices(clock: clock)
            let ada = try await database.lifter("ada")
            func log(_ hoursLater: Double) async throws {
                let start = clock.now.addingTimeInterval(hoursLater * 3600)
                _ = try await training.workouts.log(ada, id: "", squatHour(start))
            }
            func facts(_ kept: PostgresActivityStore.Kept?, _ cached: ActivityCache.Entry?) async throws
                -> ActivityFacts
            {
                var cached = cached
                let facts = try await database.asTenant(ada.tenantID) { connection in
                    let profile = try PostgresActivityStore.Profile(
                        try await connection.query(
                            PostgresActivityStore.profileSQL(own: true), [ada.tenantID.rawValue, clock.now]))
                    return try await PostgresActivityStore.facts(
                        ada.tenantID, profile: profile, connection, kept: kept, cached: &cached
                    ).facts
                }
                #expect(cached == nil, "the entry was used up")
                return facts
            }
            try await log(0)
            try await log(1)
            // What a round read and kept, as a round leaves them.
            let (seq, tally) = try await database.asTenant(ada.tenantID) { connection in
                try await PostgresActivityStore.everything(ada.tenantID, "UTC", connection) { _ in
                    ActivityTally(birthday: nil, challenges: [])
                }
            }
            let kept = PostgresActivityStore.Kept(feedSeq: seq, lastStart: tally.last?.startedAt)
            // Two more: one later, and one started with the latest (a tie, put in its place by id).
            try await log(2)
            try await log(2)
            let folded = try await facts(kept, ActivityCache.Entry(feedSeq: seq, timeZone: "UTC", tally: tally))
            let read = try await facts(nil, nil)
            #expect(folded.tally.count == 4)
            #expect(folded.tally == read.tally, "the same tally as a round that reads everything")

            // The entry is what the round used: one holding a workout the database does not have shows in the
            // result, so the new workouts were folded into it rather than all read again.
            var marked = tally
            marked.add(workout(Int(tally.latestStart!.timeIntervalSince1970), "ffffffff-0000-0000-0000-000000000000"))
            let used = try await facts(kept, ActivityCache.Entry(feedSeq: seq, timeZone: "UTC", tally: marked))
            #expect(used.tally.count == 5)
            // An entry of another feed number, time zone or birthday is not used.
            for stale in [
                ActivityCache.Entry(feedSeq: seq - 1, timeZone: "UTC", tally: marked),
                ActivityCache.Entry(feedSeq: seq, timeZone: "Europe/Berlin", tally: marked),
                ActivityCache.Entry(
                    feedSeq: seq, timeZone: "UTC",
                    tally: ActivityTally([marked.last!], birthday: "01-01", challenges: [])),
            ] {
                #expect(try await facts(kept, stale).tally == read.tally)
            }
        }
    }
}
