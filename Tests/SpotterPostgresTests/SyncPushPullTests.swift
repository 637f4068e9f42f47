import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Synchronization
import Testing

/// Push, pull and idempotence: what a device sends is applied once, whatever it sends again.
@Suite("Offline-first sync on PostgreSQL: push, pull and replays")
struct SyncPushPullTests {
    private let start = syncTestStart()

    // MARK: 1. Push and pull

    @Test("push creates, updates and deletes each writable kind; pulls return them, later changes and tombstones")
    func pushAndPull() async throws {
        try await TestDatabase.with { database in
            let (sync, ada, phone, day) = try await adaWithPhone(database, start: start)
            let profileVersion = try await database.profile(ada).version
            let (w, t, e, p) = (UUID(), UUID(), UUID(), UUID())
            let (w2, t2, e2, p2) = (UUID(), UUID(), UUID(), UUID())
            let me = ada.tenantID.rawValue

            let created = try await sync.push(
                ada, deviceID: phone,
                [
                    put(1, .workout(workoutDraft("Push day", at: day)), w),
                    put(2, .template(templateDraft("Squat day")), t),
                    put(3, .exercise(exerciseDraft("Zercher Squat")), e),
                    put(4, .program(programDraft("Block", t)), p),
                    profilePut(5, ProfileUpdate(displayName: "Ada L", timeZone: "Europe/Berlin"), base: profileVersion),
                    put(6, .workout(workoutDraft("Pull day", at: day)), w2),
                    put(7, .template(templateDraft("Old day")), t2),
                    put(8, .exercise(exerciseDraft("Jefferson Curl")), e2),
                    put(9, .program(programDraft("Old block", t)), p2),
                ])
            #expect(created.map(\.mutationID) == Array(1...9))
            #expect(created.map(\.status) == [MutationResult.Status](repeating: .applied, count: 9))
            #expect(created.map(\.objectID) == [w, t, e, p, me, w2, t2, e2, p2])
            #expect(created.map(\.version) == [1, 1, 1, 1, profileVersion + 1, 1, 1, 1, 1])

            // A first pull returns everything, in pages of any size alike.
            let first = try await pullAll(sync, ada, device: phone)
            #expect(first.lastMutationID == 9)
            let firstKeys = first.changes.map(\.key)
            #expect(
                Set(firstKeys)
                    == keys([.workout: [w, w2], .template: [t, t2], .exercise: [e, e2], .program: [p, p2]]).union([
                        SyncObjectKey(.profile, me)
                    ]))
            #expect(firstKeys.count == Set(firstKeys).count, "each object once")
            let byKey = Dictionary(first.changes.map { ($0.key, $0.object) }, uniquingKeysWith: { $1 })
            #expect(byKey[SyncObjectKey(.workout, w)]??.workout?.content.name == "Push day")
            #expect(byKey[SyncObjectKey(.template, t)]??.template?.content.name == "Squat day")
            #expect(byKey[SyncObjectKey(.exercise, e)]??.exercise?.name == "Zercher Squat")
            #expect(byKey[SyncObjectKey(.program, p)]??.program?.content.days.map(\.templateID.rawValue) == [t, t])
            let profile = byKey[SyncObjectKey(.profile, me)]??.profile
            #expect(profile?.displayName == "Ada L" && profile?.timeZone == "Europe/Berlin")
            #expect(profile?.version == profileVersion + 1)
            let paged = try await pullAll(sync, ada, pageSize: 2, device: phone)
            #expect(paged.changes == first.changes)
            #expect(paged.cursor == first.cursor)

            let changed = try await sync.push(
                ada, deviceID: phone,
                [
                    put(10, .workout(workoutDraft("Push day (heavy)", at: day, kilograms: 110)), w, base: 1),
                    put(11, .template(templateDraft("Squat day", sets: 5)), t, base: 1),
                    put(12, .exercise(exerciseDraft("Zercher Box Squat")), e, base: 1),
                    put(13, .program(programDraft("Block", t, weeks: 6)), p, base: 1),
                    profilePut(14, ProfileUpdate(unit: .lb), base: profileVersion + 1),
                    delete(15, .workout, w2, base: 1),
                    delete(16, .template, t2, base: 1),
                    delete(17, .exercise, e2, base: 1),
                    delete(18, .program, p2, base: 1),
                    Mutation(id: 19, kind: .profile, objectID: "", baseVersion: profileVersion + 2, change: .delete),
                ])
            #expect(changed.map(\.status) == [MutationResult.Status](repeating: .applied, count: 9) + [.rejected])
            #expect(changed.map(\.version).prefix(9) == [2, 2, 2, 2, profileVersion + 2, 0, 0, 0, 0])
            #expect(changed[9].violations.map(\.field) == ["mutations[9].delete"])
            // Sent without an object id, the rejected profile mutation still names the profile.
            #expect(changed[9].objectID == me)
            // Deleting what was never there names the id as a field, as other rejections do.
            let unknown = try await sync.push(ada, deviceID: phone, [delete(20, .workout, UUID(), base: 1)])
            #expect(
                unknown.first?.violations == [
                    FieldViolation(field: "mutations[0].object_id", reason: "no such workout")
                ]
                    && unknown.first?.message == "mutations[0].object_id: no such workout", "\(unknown)")

            // An incremental pull: only what changed since, deletions as tombstones.
            let later = try await pullAll(sync, ada, from: first.cursor.token, device: phone)
            #expect(later.lastMutationID == 20, "the unknown deletion, rejected, is the last")
            #expect(later.changes.allSatisfy { $0.seq > first.cursor.seq })
            #expect(later.changes.map(\.seq) == later.changes.map(\.seq).sorted())
            let laterByKey = Dictionary(later.changes.map { ($0.key, $0.object) }, uniquingKeysWith: { $1 })
            #expect(Set(laterByKey.keys) == Set(firstKeys))
            #expect(laterByKey[SyncObjectKey(.workout, w)]??.workout?.content.name == "Push day (heavy)")
            #expect(laterByKey[SyncObjectKey(.workout, w)]??.workout?.version == 2)
            #expect(laterByKey[SyncObjectKey(.template, t)]??.template?.content.items.first?.targetSets == 5)
            #expect(laterByKey[SyncObjectKey(.exercise, e)]??.exercise?.name == "Zercher Box Squat")
            #expect(laterByKey[SyncObjectKey(.program, p)]??.program?.content.weeks == 6)
            #expect(laterByKey[SyncObjectKey(.profile, me)]??.profile?.unit == .lb)
            for key in keys([.workout: [w2], .template: [t2], .exercise: [e2], .program: [p2]]) {
                #expect(laterByKey[key] != nil, "\(key) is in the pull")
                #expect(laterByKey[key] == .some(nil), "\(key) is a tombstone")
            }

            // A new device's first pull has the live objects only: no tombstones.
            let fresh = try await pullAll(sync, ada)
            #expect(
                Set(fresh.changes.map(\.key))
                    == keys([.workout: [w], .template: [t], .exercise: [e], .program: [p]]).union([
                        SyncObjectKey(.profile, me)
                    ]))
            #expect(fresh.changes.allSatisfy { $0.object != nil })
            #expect(fresh.cursor == later.cursor)
            // Also when the first pull takes many pages.
            let freshPaged = try await pullAll(sync, ada, pageSize: 1)
            #expect(
                freshPaged.changes.allSatisfy { $0.object != nil },
                "tombstones in a paged first pull: \(freshPaged.changes.filter { $0.object == nil }.map(\.key))")
            #expect(freshPaged.changes.filter { $0.object != nil } == fresh.changes)

            // Nothing new: the same cursor back, no changes.
            let idle = try await sync.pull(ada, cursor: later.cursor.token, pageSize: 10, deviceID: phone)
            #expect(idle.changes.isEmpty && !idle.hasMore && idle.cursor == later.cursor)
            await #expect(throws: SpotterError.invalid("page_size", "must be between 1 and 1000")) {
                try await sync.pull(ada, cursor: "", pageSize: 1001, deviceID: phone)
            }
            await #expect(throws: SpotterError.invalid("cursor", "is not a token this call returned")) {
                try await sync.pull(ada, cursor: "garbage", pageSize: 10, deviceID: phone)
            }
        }
    }

    @Test("a new lifter's first pull holds their profile, and a verified e-mail reaches the profile in the feed")
    func profileInFeed() async throws {
        try await TestDatabase.with { database in
            let sync = database.syncService(clock: TestClock(start))
            let ada = try await database.lifter("ada")
            let me = SyncObjectKey(.profile, ada.tenantID.rawValue)

            // A device needs the profile (and its version) before it can push a change to it.
            let first = try await pullAll(sync, ada)
            let profile = first.changes.first { $0.key == me }?.object?.profile
            #expect(profile?.username == "ada", "the first pull of a new lifter has no profile")
            #expect(profile?.version == (try await database.profile(ada).version))

            let code = try #require(try await database.emailedCode(to: "ada@example.com", kind: "verify_email"))
            try await database.authService().verifyEmail(token: code)
            let later = try await pullAll(sync, ada, from: first.cursor.token)
            let verified = later.changes.first { $0.key == me }?.object?.profile
            #expect(verified?.emailVerifiedAt != nil, "the verified e-mail does not reach devices")
        }
    }

    @Test("data logged before the sync migration is in a first pull")
    func dataFromBeforeTheMigration() async throws {
        try await TestDatabase.withMigrations(through: 8) { database, migrateRest in
            // Written as the schema of the time had them: today's stores write columns added later.
            let ada = Principal(tenantID: TenantID(rawValue: UUID()), accountID: AccountID(rawValue: UUID()))
            let (workout, template) = (WorkoutID(rawValue: UUID()), TemplateID(rawValue: UUID()))
            try await database.asOwner { connection in
                try await connection.query(
                    "INSERT INTO tenants (tenant_id, kind, display_name) VALUES ($1, 'lifter', 'ada')",
                    [ada.tenantID.rawValue])
                try await connection.query(
                    """
                    INSERT INTO accounts (tenant_id, account_id, email, username, password_hash)
                    VALUES ($1, $2, 'ada@example.com', 'ada', 'unused')
                    """, [ada.tenantID.rawValue, ada.accountID.rawValue])
                try await connection.query(
                    """
                    INSERT INTO workouts (tenant_id, workout_id, name, started_at, duration_seconds, exercise_count,
                                          set_count, rep_count, volume_kg, log_fingerprint, created_at, updated_at)
                    VALUES ($1, $2, 'Before sync', now() - interval '1 day', 3600, 0, 0, 0, 0, '\\x00', now(), now())
                    """, [ada.tenantID.rawValue, workout.rawValue])
                try await connection.query(
                    """
                    INSERT INTO templates (tenant_id, template_id, name, created_at, updated_at)
                    VALUES ($1, $2, 'Legs', now(), now())
                    """, [ada.tenantID.rawValue, template.rawValue])
            }
            try await migrateRest()

            let sync = database.syncService()
            let first = try await pullAll(sync, ada)
            let pulled = Set(first.changes.map(\.key))
            #expect(pulled.contains(SyncObjectKey(.workout, workout.rawValue)), "an old workout is never synced")
            #expect(pulled.contains(SyncObjectKey(.template, template.rawValue)), "an old template is never synced")
            #expect(pulled.contains(SyncObjectKey(.profile, ada.tenantID.rawValue)))
        }
    }

    @Test(
        "text long only in Unicode scalars (combining accents, joined emoji) is one rejected mutation, not a stuck push"
    )
    func scalarLengths() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let ada = try await database.lifter("ada")
            let phone = try await sync.registerDevice(ada, label: "phone").id.description
            let day = clock.now.addingTimeInterval(-3600)
            // 60 characters to Swift's count, 120 to PostgreSQL's length(): over the limit of 100.
            let accented = String(repeating: "e\u{301}", count: 60)
            let families = String(repeating: "👨‍👩‍👧‍👦", count: 20)
            #expect(accented.count == 60 && accented.storedLength == 120 && families.storedLength == 140)
            let (w1, w2, w3, t, e) = (UUID(), UUID(), UUID(), UUID(), UUID())
            let results = try await sync.push(
                ada, deviceID: phone,
                [
                    put(1, .workout(workoutDraft("Mon", at: day)), w1),
                    put(2, .workout(workoutDraft(accented, at: day)), w2),
                    put(3, .template(templateDraft(families)), t),
                    put(4, .exercise(exerciseDraft(accented)), e),
                    put(5, .workout(workoutDraft(String(repeating: "e\u{301}", count: 50), at: day)), w3),
                ])
            #expect(results.map(\.status) == [.applied, .rejected, .rejected, .rejected, .applied])
            #expect(
                results[1].violations.map(\.description) == [
                    "mutations[1].workout.name: must be at most 100 characters"
                ])
            #expect(results[2].violations.map(\.field) == ["mutations[2].template.name"])
            #expect(results[3].violations.map(\.field) == ["mutations[3].exercise.name"])
            let next = try await sync.push(
                ada, deviceID: phone, [put(6, .workout(workoutDraft("Tue", at: day)), UUID())])
            #expect(next.map(\.status) == [.applied], "the device's later changes go on")
        }
    }

    @Test("a CHECK constraint the validation missed refuses the request naming the column, not INTERNAL")
    func checkViolationNamesItsColumn() async throws {
        try await TestDatabase.with { database in
            let ada = try await database.lifter("ada")
            await #expect(
                throws: SpotterError.invalid("name", "is too long or not allowed")
            ) {
                try await SpotterDatabase(pool: database.appPool).withTenant(ada) { connection in
                    try await connection.query(
                        """
                        INSERT INTO exercises (tenant_id, exercise_id, name, category, muscle_group, equipment,
                                               created_at, updated_at)
                        VALUES ($1, $2, $3, 'squat', 'quadriceps', 'barbell', now(), now())
                        """,
                        [ada.tenantID.rawValue, UUID(), String(repeating: "x", count: 101)])
                }
            }
        }
    }

    @Test("a removed device's pushes are refused, its data stays, and no one removes another's device")
    func removeDevice() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let ada = try await database.lifter("ada")
            let bea = try await database.lifter("bea")
            let phone = try await sync.registerDevice(ada, label: "phone").id.description
            let lost = try await sync.registerDevice(ada, label: "old phone").id.description
            let beas = try await sync.registerDevice(bea, label: "phone").id.description
            let w = UUID()
            _ = try await sync.push(
                ada, deviceID: lost, [put(1, .workout(workoutDraft("Mon", at: clock.now.addingTimeInterval(-60))), w)])

            let noSuchDevice = SpotterError.notFound("device_id: no such device")
            await #expect(throws: noSuchDevice) { try await sync.removeDevice(ada, deviceID: beas) }
            #expect(try await sync.devices(bea).map(\.id.description) == [beas], "another's device stays")
            try await sync.removeDevice(ada, deviceID: lost)
            #expect(try await sync.devices(ada).map(\.id.description) == [phone])
            await #expect(throws: SpotterError.notFound("device_id: no such device; register it first")) {
                try await sync.push(ada, deviceID: lost, [put(2, .workout(workoutDraft("Tue", at: clock.now)), UUID())])
            }
            await #expect(throws: noSuchDevice) { try await sync.removeDevice(ada, deviceID: lost) }
            #expect(try await training.workouts.get(ada, id: w.uuidString).content.name == "Mon", "its data stays")
        }
    }

    // MARK: 2. Idempotence

    @Test("a workout pushed again unchanged keeps its version and reaches no other device; a changed set does")
    func unchangedPush() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let ada = try await database.lifter("ada")
            let phone = try await sync.registerDevice(ada, label: "phone").id.description
            let tablet = try await sync.registerDevice(ada, label: "tablet").id.description
            let day = clock.now.addingTimeInterval(-3600)
            let w = UUID()
            let draft = workoutDraft("Mon", at: day, sets: 3)
            #expect(try await sync.push(ada, deviceID: phone, [put(1, .workout(draft), w)]).map(\.version) == [1])
            let seen = try await sync.pull(ada, cursor: "", pageSize: 100, deviceID: tablet)
            // The tablet saves what it pulled: nothing changes, nothing new to pull.
            let same = try await sync.push(ada, deviceID: tablet, [put(1, .workout(draft), w, base: 1)])
            #expect(same.map(\.status) == [.applied] && same.map(\.version) == [1])
            let after = try await sync.pull(ada, cursor: seen.cursor.token, pageSize: 100, deviceID: phone)
            #expect(after.changes.isEmpty)
            // The phone's edit based on version 1 is no conflict.
            var heavier = draft
            heavier.exercises[0].sets[2].weight = WeightDraft(value: 102.5, unit: .kg)
            let edited = try await sync.push(ada, deviceID: phone, [put(2, .workout(heavier), w, base: 1)])
            #expect(edited.map(\.status) == [.applied] && edited.map(\.version) == [2])
            let changed = try await sync.pull(ada, cursor: seen.cursor.token, pageSize: 100, deviceID: tablet)
            #expect(changed.changes.map(\.key) == [SyncObjectKey(.workout, w)])
        }
    }

    @Test("a replayed push answers the same results and changes nothing, also when replays race")
    func replays() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let ada = try await database.lifter("ada")
            let phone = try await sync.registerDevice(ada, label: "phone").id.description
            let tablet = try await sync.registerDevice(ada, label: "tablet").id.description
            let day = clock.now.addingTimeInterval(-3600)
            let (w1, w2, w3, t) = (UUID(), UUID(), UUID(), UUID())
            let batch = [
                put(1, .workout(workoutDraft("Mon", at: day)), w1),
                put(2, .workout(workoutDraft("Tue", at: day)), w2),
                put(3, .template(templateDraft("Legs")), t),
                put(4, .workout(workoutDraft("", at: day)), w3),
                put(5, .workout(workoutDraft("Mon (stale)", at: day)), w1, base: 7),
            ]
            let first = try await sync.push(ada, deviceID: phone, batch)
            #expect(first.map(\.status) == [.applied, .applied, .applied, .rejected, .conflict])
            #expect(first[3].violations.map(\.field) == ["mutations[3].workout.name"])
            #expect(first[4].version == 1 && first[4].baseVersion == 7)
            let after = try await counts(database, ada)
            #expect(after.workouts == 2 && after.templates == 1 && after.mutations == 5 && after.applied == 5)

            for replay in 1...5 {
                let again = try await sync.push(ada, deviceID: phone, batch)
                #expect(again == first, "replay \(replay)")
                #expect(try await counts(database, ada) == after, "replay \(replay)")
            }

            // A number the device used already, sent with another change (its counter went back):
            // refused before anything of the push is applied, not answered "applied".
            let reused = [
                put(2, .workout(workoutDraft("Tue", at: day)), w2),
                put(3, .workout(workoutDraft("Fri", at: day)), UUID()),
                put(6, .workout(workoutDraft("Sat", at: day)), UUID()),
            ]
            await #expect(
                throws: SpotterError.failedPrecondition(
                    "mutations[1].mutation_id: this device's mutation 3 was another change (template \(t.uuidString.lowercased()) from version 0); numbers are never reused, so push new changes from mutation 6 on"
                )
            ) {
                try await sync.push(
                    ada, deviceID: phone,
                    [
                        reused[0], reused[1], put(4, .workout(workoutDraft("", at: day)), w3),
                        put(5, .workout(workoutDraft("Mon (stale)", at: day)), w1, base: 7), reused[2],
                    ])
            }
            await #expect(
                throws: SpotterError.failedPrecondition(
                    "mutations[0].mutation_id: this device's mutation 1 was another change (workout \(w1.uuidString.lowercased()) from version 0); numbers are never reused, so push new changes from mutation 6 on"
                ), "the same object from another base version"
            ) {
                try await sync.push(ada, deviceID: phone, [put(1, .workout(workoutDraft("Mon", at: day)), w1, base: 1)])
            }
            #expect(try await counts(database, ada) == after)

            // Another device changes the object meanwhile: a replay still answers as before and
            // leaves the other device's change alone.
            let edit = try await sync.push(
                ada, deviceID: tablet, [put(1, .workout(workoutDraft("Mon (tablet)", at: day)), w1, base: 1)])
            #expect(edit.map(\.status) == [.applied])
            #expect(try await sync.push(ada, deviceID: phone, batch) == first)
            let stored = try await training.workouts.get(ada, id: w1.uuidString)
            #expect(stored.content.name == "Mon (tablet)" && stored.version == 2)

            // Two copies of one push sent at once (a retry while the first is still running).
            let watch = try await sync.registerDevice(ada, label: "watch").id.description
            let (w4, w5) = (UUID(), UUID())
            let raced = [
                put(1, .workout(workoutDraft("Wed", at: day)), w4), put(2, .workout(workoutDraft("Thu", at: day)), w5),
            ]
            let before = try await counts(database, ada)
            async let one = sync.push(ada, deviceID: watch, raced)
            async let two = sync.push(ada, deviceID: watch, raced)
            let (a, b) = try await (one, two)
            #expect(a == b)
            #expect(a.map(\.status) == [.applied, .applied] && a.map(\.version) == [1, 1])
            let now = try await counts(database, ada)
            #expect(now.workouts == before.workouts + 2 && now.mutations == before.mutations + 2)
        }
    }

    @Test("a push's savepoints, stored results and device update cost one round trip per mutation and one more")
    func bookkeepingRoundTrips() async throws {
        try await TestDatabase.with { database in
            let (sync, ada, phone, day) = try await adaWithPhone(database, start: start)
            let (w1, w2, w3) = (UUID(), UUID(), UUID())
            let batch = [
                put(1, .workout(workoutDraft("Mon", at: day)), w1),
                put(2, .workout(workoutDraft("", at: day)), w2),
                put(3, .workout(workoutDraft("Wed", at: day)), w3),
            ]
            let log = PostgresStatementLog()
            let results = try await PostgresStatementLog.$current.withValue(log) {
                try await sync.push(ada, deviceID: phone, batch)
            }
            #expect(results.map(\.status) == [.applied, .rejected, .applied])
            let after = try await counts(database, ada)
            #expect(after.workouts == 2 && after.mutations == 3 && after.applied == 3)

            // Round trips: a pipeline, or a statement sent alone. Those that only keep the books.
            let trips = log.roundTrips
            func kind(_ sql: String) -> String? {
                let words = sql.split(whereSeparator: \.isWhitespace).prefix(3).joined(separator: " ")
                return [
                    "SAVEPOINT mutation", "RELEASE SAVEPOINT mutation", "ROLLBACK TO SAVEPOINT",
                    "INSERT INTO sync_mutations", "UPDATE sync_devices SET",
                ].first { words.hasPrefix($0) }
            }
            let bookkeeping = trips.filter { $0.contains { kind($0) != nil } }
            #expect(
                bookkeeping.map { $0.map { kind($0) ?? "another statement" } } == [
                    ["SAVEPOINT mutation"],
                    ["RELEASE SAVEPOINT mutation", "INSERT INTO sync_mutations", "SAVEPOINT mutation"],
                    [
                        "ROLLBACK TO SAVEPOINT", "RELEASE SAVEPOINT mutation", "INSERT INTO sync_mutations",
                        "SAVEPOINT mutation",
                    ],
                    ["RELEASE SAVEPOINT mutation", "INSERT INTO sync_mutations", "UPDATE sync_devices SET"],
                ], "\(trips)")
        }
    }

    @Test("a push of 100 runs in two transactions of 50 savepoints, under PostgreSQL's cache of 64 subtransactions")
    func longPushTransactions() async throws {
        try await TestDatabase.with { database in
            let (sync, ada, phone, day) = try await adaWithPhone(database, start: start)
            let batch = (1...Int64(SyncService.maxMutationsPerPush)).map {
                put($0, .workout(workoutDraft("Day \($0)", at: day)), UUID())
            }
            let log = PostgresStatementLog()
            let results = try await PostgresStatementLog.$current.withValue(log) {
                try await sync.push(ada, deviceID: phone, batch)
            }
            #expect(results.map(\.mutationID) == Array(1...100))
            #expect(results.allSatisfy { $0.status == .applied && $0.version == 1 })
            let after = try await counts(database, ada)
            #expect(after.workouts == 100 && after.mutations == 100 && after.applied == 100, "\(after)")

            // Savepoints opened in each transaction, from BEGIN to COMMIT.
            var savepoints: [Int] = []
            for statement in log.statements.map(\.sql) {
                if statement.hasPrefix("BEGIN") { savepoints.append(0) }
                if statement == "SAVEPOINT mutation" { savepoints[savepoints.count - 1] += 1 }
            }
            #expect(savepoints == [50, 50])
            #expect(PostgresSyncStore.mutationsPerTransaction <= 64)

            // Sent again, the whole push is answered from storage.
            let again = try await sync.push(ada, deviceID: phone, batch)
            #expect(again == results)
            #expect(try await counts(database, ada) == after)
        }
    }

    @Test("a failure in a long push's second transaction keeps the first's mutations, which a retry answers")
    func longPushFailsMidway() async throws {
        struct Lost: Error {}
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let ada = try await database.lifter("ada")
            let phone = try await sync.registerDevice(ada, label: "phone")
            let day = clock.now.addingTimeInterval(-3600)
            let batch = (1...Int64(80)).map { put($0, .workout(workoutDraft("Day \($0)", at: day)), UUID()) }
            let spotter = SpotterDatabase(pool: database.appPool)
            let workouts = TrainingServices(database: spotter, now: { clock.now }).workouts
            await #expect(throws: Lost.self) {
                try await PostgresSyncStore(database: spotter).push(ada, device: phone.id, batch, now: clock.now) {
                    mutation in
                    guard mutation.id < 60, case .put(.workout(let draft)) = mutation.change else { throw Lost() }
                    let version = try await workouts.log(ada, id: mutation.objectID, draft).version
                    return MutationResult(
                        mutationID: mutation.id, status: .applied, kind: .workout,
                        objectID: UUID(uuidString: mutation.objectID), version: version, baseVersion: 0)
                }
            }
            let midway = try await counts(database, ada)
            #expect(midway.workouts == 50 && midway.mutations == 50 && midway.applied == 50, "\(midway)")

            let retried = try await sync.push(ada, deviceID: phone.id.description, batch)
            #expect(retried.map(\.mutationID) == Array(1...80))
            #expect(retried.allSatisfy { $0.status == .applied && $0.version == 1 })
            let after = try await counts(database, ada)
            #expect(after.workouts == 80 && after.mutations == 80 && after.applied == 80, "\(after)")
        }
    }

    @Test("overlapping batches apply only new ids; gaps, reordered and non-consecutive batches are refused")
    func overlapsAndGaps() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let ada = try await database.lifter("ada")
            let day = clock.now.addingTimeInterval(-3600)
            let ids = (0..<7).map { _ in UUID() }
            func creation(_ n: Int64) -> Mutation { put(n, .workout(workoutDraft("W\(n)", at: day)), ids[Int(n)]) }

            // 1–3 applied, then 2–5 sent: 2–3 answered from storage, 4–5 applied.
            let phone = try await sync.registerDevice(ada, label: "phone").id.description
            let first = try await sync.push(ada, deviceID: phone, (1...3).map(creation))
            let overlap = try await sync.push(ada, deviceID: phone, (2...5).map(creation))
            #expect(Array(overlap.prefix(2)) == Array(first.suffix(2)))
            #expect(overlap.map(\.mutationID) == [2, 3, 4, 5])
            #expect(overlap.suffix(2).map(\.status) == [.applied, .applied])
            var now = try await counts(database, ada)
            #expect(now.workouts == 5 && now.mutations == 5 && now.applied == 5)

            // A gap: last applied 5, 7–8 sent. Nothing changes; then 6–8 goes through.
            let before = now
            let (t7, t8) = (UUID(), UUID())
            let afterGap = [put(7, .template(templateDraft("T")), t7), put(8, .template(templateDraft("U")), t8)]
            let gapError = await #expect(throws: SpotterError.self) {
                try await sync.push(ada, deviceID: phone, afterGap)
            }
            if case .failedPrecondition(let message)? = gapError {
                #expect(message.contains("up to 5"), "\(message)")
            } else {
                Issue.record("a gap answers failedPrecondition, not \(String(describing: gapError))")
            }
            #expect(try await counts(database, ada) == before)
            #expect(try await sync.devices(ada).map(\.lastMutationID) == [5])
            let filled = try await sync.push(ada, deviceID: phone, [creation(6)] + afterGap)
            #expect(filled.map(\.status) == [.applied, .applied, .applied])
            now = try await counts(database, ada)
            #expect(now.workouts == before.workouts + 1 && now.templates == 2 && now.applied == 8)

            // Reordered batches: 3–4 before 1–2 is a gap; 1–2 then 3–4 works.
            let tablet = try await sync.registerDevice(ada, label: "tablet").id.description
            let later = [put(3, .template(templateDraft("C")), UUID()), put(4, .template(templateDraft("D")), UUID())]
            let early = [put(1, .template(templateDraft("A")), UUID()), put(2, .template(templateDraft("B")), UUID())]
            let reordered = await #expect(throws: SpotterError.self) {
                try await sync.push(ada, deviceID: tablet, later)
            }
            if case .failedPrecondition? = reordered {} else { Issue.record("\(String(describing: reordered))") }
            #expect(try await counts(database, ada).templates == 2)
            #expect(try await sync.push(ada, deviceID: tablet, early).map(\.status) == [.applied, .applied])
            #expect(try await sync.push(ada, deviceID: tablet, later).map(\.status) == [.applied, .applied])
            #expect(try await counts(database, ada).templates == 6)

            // Ids inside one batch must be consecutive and start at 1 or later.
            let watch = try await sync.registerDevice(ada, label: "watch").id.description
            let unchanged = try await counts(database, ada)
            let t = UUID()
            await #expect(
                throws: SpotterError.invalidArgument([
                    FieldViolation(
                        field: "mutations[2].mutation_id", reason: "must be 3, one more than the mutation before it")
                ])
            ) {
                try await sync.push(
                    ada, deviceID: watch,
                    [
                        put(1, .template(templateDraft("A")), t), put(2, .template(templateDraft("B")), UUID()),
                        put(4, .template(templateDraft("C")), UUID()),
                    ])
            }
            await #expect(
                throws: SpotterError.invalidArgument([
                    FieldViolation(
                        field: "mutations[1].mutation_id", reason: "must be 3, one more than the mutation before it")
                ])
            ) {
                try await sync.push(
                    ada, deviceID: watch,
                    [put(2, .template(templateDraft("B")), UUID()), put(1, .template(templateDraft("A")), t)])
            }
            await #expect(
                throws: SpotterError.invalidArgument([
                    FieldViolation(
                        field: "mutations[0].mutation_id", reason: "must be between 1 and 9007199254740991")
                ])
            ) { try await sync.push(ada, deviceID: watch, [put(0, .template(templateDraft("A")), t)]) }
            await #expect(
                throws: SpotterError.invalidArgument([
                    FieldViolation(field: "mutations", reason: "must be at most 100 per push")
                ])
            ) {
                try await sync.push(
                    ada, deviceID: watch, (1...101).map { put($0, .template(templateDraft("T\($0)")), UUID()) })
            }
            #expect(try await counts(database, ada) == unchanged)

            // Devices are the tenant's own and registered.
            await #expect(throws: SpotterError.notFound("device_id: no such device; register it first")) {
                try await sync.push(ada, deviceID: DeviceID.random().description, [creation(1)])
            }
            await #expect(throws: SpotterError.invalid("device_id", "must be a UUID")) {
                try await sync.push(ada, deviceID: "phone", [creation(1)])
            }
            #expect(try await counts(database, ada) == unchanged)
        }
    }
}
