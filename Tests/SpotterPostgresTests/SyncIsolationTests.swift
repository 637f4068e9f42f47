import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Synchronization
import Testing

/// What a push may not do: invalid mutations, other tenants' objects, writing the feed.
@Suite("Offline-first sync on PostgreSQL: validation, isolation and privileges")
struct SyncIsolationTests {
    private let start = syncTestStart()

    // MARK: 5. Validation

    @Test("an invalid mutation is rejected naming the mutation and the field; the rest of the batch applies")
    func validation() async throws {
        try await TestDatabase.with { database in
            let (sync, ada, phone, day) = try await adaWithPhone(database, start: start)
            let profileVersion = try await database.profile(ada).version
            let (w0, w1, w2, w3, w4, t, t2, e, p) = (
                UUID(), UUID(), UUID(), UUID(), UUID(), UUID(), UUID(), UUID(), UUID()
            )
            let (e2, e3) = (UUID(), UUID())
            let results = try await sync.push(
                ada, deviceID: phone,
                [
                    put(1, .workout(workoutDraft("Mon", at: day)), w0),
                    put(2, .workout(workoutDraft("  ", at: day, rpe: 11)), w1),
                    put(3, .workout(workoutDraft("Wed", at: day)), w2),
                    profilePut(4, ProfileUpdate(timeZone: "Mars/Olympus_Mons"), base: profileVersion),
                    put(5, .template(TemplateDraft(name: "Empty", items: [])), t),
                    put(
                        6,
                        .exercise(
                            ExerciseDraft(
                                name: "Zercher", category: nil, muscleGroup: .quadriceps, equipment: .barbell,
                                instructions: "")), e),
                    put(7, .program(programDraft("Block", t2, weeks: 0)), p),
                    put(8, .workout(workoutDraft("Unknown lift", at: day, exercises: [ExerciseID.random()])), w3),
                    Mutation(
                        id: 9, kind: .workout, objectID: "not-a-uuid", baseVersion: 0,
                        change: .put(.workout(workoutDraft("Fri", at: day)))),
                    Mutation(id: 10, kind: .comment, objectID: UUID().uuidString, baseVersion: 1, change: .delete),
                    put(11, .workout(workoutDraft("Sat", at: day)), w4, base: -1),
                    put(12, .template(templateDraft("Legs")), t2),
                    // A database constraint (unique names) fails inside the mutation's savepoint only.
                    put(13, .exercise(exerciseDraft("Zercher Squat")), e2),
                    put(14, .exercise(exerciseDraft("zercher squat")), e3),
                ])
            let expected: [MutationResult.Status] =
                [.applied, .rejected, .applied] + [MutationResult.Status](repeating: .rejected, count: 8) + [
                    .applied, .applied, .rejected,
                ]
            #expect(results.map(\.status) == expected)
            #expect(results.map(\.mutationID) == Array(1...14))

            let workoutFields = results[1].violations.map(\.field)
            #expect(
                !workoutFields.isEmpty && workoutFields.allSatisfy { $0.hasPrefix("mutations[1].workout.") },
                "\(workoutFields)")
            #expect(workoutFields.contains("mutations[1].workout.name"))
            #expect(workoutFields.contains("mutations[1].workout.exercises[0].sets[0].rpe"))
            #expect(results[3].violations.map(\.field) == ["mutations[3].profile.time_zone"])
            #expect(results[4].violations.map(\.field) == ["mutations[4].template.items"])
            #expect(results[5].violations.map(\.field) == ["mutations[5].exercise.category"])
            #expect(results[6].violations.map(\.field) == ["mutations[6].program.weeks"])
            #expect(results[7].violations.map(\.field) == ["mutations[7].workout.exercises[0].exercise_id"])
            #expect(results[8].violations.map(\.field) == ["mutations[8].object_id"])
            #expect(results[9].violations.map(\.field) == ["mutations[9].kind"])
            #expect(results[10].violations.map(\.field) == ["mutations[10].base_version"])
            let duplicate = results[13].violations.map(\.field)
            #expect(
                !duplicate.isEmpty && duplicate.allSatisfy { $0.hasPrefix("mutations[13].exercise.") }, "\(duplicate)")
            #expect(results.filter { $0.status == .rejected }.allSatisfy { !$0.message.isEmpty })

            // A replay in a batch that starts elsewhere names each mutation's place in that batch.
            let replayed = try await sync.push(ada, deviceID: phone, [put(8, .workout(workoutDraft("X", at: day)), w3)])
            #expect(replayed.map(\.status) == [.rejected])
            #expect(replayed.first?.violations.map(\.field) == ["mutations[0].workout.exercises[0].exercise_id"])
            #expect(replayed.first?.message.hasPrefix("mutations[0].workout.exercises[0].exercise_id: ") == true)
            let tail = try await sync.push(
                ada, deviceID: phone,
                [put(13, .exercise(exerciseDraft("A")), e2), put(14, .exercise(exerciseDraft("B")), e3)])
            #expect(tail.map(\.status) == [.applied, .rejected])
            #expect(tail.last?.violations.allSatisfy { $0.field.hasPrefix("mutations[1].exercise.") } == true)
            // A kind and content that disagree are named at the kind, in words.
            let mismatch = try await sync.push(
                ada, deviceID: phone,
                [
                    Mutation(
                        id: 15, kind: .template, objectID: UUID().uuidString, baseVersion: 0,
                        change: .put(.workout(workoutDraft("Sun", at: day))))
                ])
            #expect(
                mismatch.first?.violations == [
                    FieldViolation(
                        field: "mutations[0].kind", reason: "is template, but the mutation carries a workout")
                ])

            // Only the valid mutations changed anything; the rejected ones still used their ids.
            let now = try await counts(database, ada)
            #expect(now.workouts == 2 && now.templates == 1 && now.exercises == 1 && now.programs == 0)
            #expect(now.applied == 15)
            let profile = try await database.profile(ada)
            #expect(profile.version == profileVersion && profile.timeZone != "Mars/Olympus_Mons")

            // Fixed and sent again under a new id, it applies.
            let fixed = try await sync.push(ada, deviceID: phone, [put(16, .workout(workoutDraft("Tue", at: day)), w1)])
            #expect(fixed.map(\.status) == [.applied])
        }
    }

    // MARK: 6. Cross-tenant

    @Test("another tenant's device id or objects are refused and change nothing; pulls show only the own tenant")
    func crossTenant() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let ada = try await database.lifter("ada")
            let bob = try await database.lifter("bob")
            let adaPhone = try await sync.registerDevice(ada, label: "ada's phone").id.description
            let bobPhone = try await sync.registerDevice(bob, label: "bob's phone").id.description
            let day = clock.now.addingTimeInterval(-3600)
            let w = UUID()
            let adaWorkouts = [w] + (0..<4).map { _ in UUID() }
            _ = try await sync.push(
                ada, deviceID: adaPhone,
                adaWorkouts.enumerated().map {
                    put(Int64($0.offset + 1), .workout(workoutDraft("Ada \($0.offset)", at: day)), $0.element)
                })
            let adaPull = try await pullAll(sync, ada, device: adaPhone)
            let before = try await counts(database, ada)

            // Bob names Ada's device.
            await #expect(throws: SpotterError.notFound("device_id: no such device; register it first")) {
                try await sync.push(
                    bob, deviceID: adaPhone, [put(6, .workout(workoutDraft("Hijack", at: day)), UUID())])
            }
            await #expect(throws: SpotterError.notFound("device_id: no such device; register it first")) {
                try await sync.push(
                    bob, deviceID: adaPhone, [put(1, .workout(workoutDraft("Hijack", at: day)), w, base: 1)])
            }
            await #expect(throws: SpotterError.notFound("device_id: no such device; register it first")) {
                try await sync.pull(bob, cursor: "", pageSize: 10, deviceID: adaPhone)
            }
            #expect(try await sync.devices(bob).map(\.id.description) == [bobPhone])

            // Bob names Ada's objects.
            let results = try await sync.push(
                bob, deviceID: bobPhone,
                [
                    put(1, .workout(workoutDraft("Hijacked", at: day)), w, base: 1),
                    delete(2, .workout, w, base: 1),
                    delete(3, .workout, w, base: 5),
                    Mutation(
                        id: 4, kind: .profile, objectID: ada.tenantID.description, baseVersion: 1,
                        change: .put(.profile(ProfileUpdate(displayName: "Bob was here")))),
                ])
            #expect(results.map(\.status) == [.rejected, .rejected, .rejected, .rejected])
            #expect(results[0].message == "mutations[0].object_id: no such workout")
            #expect(results[3].violations.map(\.field) == ["mutations[3].object_id"])
            #expect(try await counts(database, ada) == before)
            let kept = try await training.workouts.get(ada, id: w.uuidString)
            #expect(kept.content.name == "Ada 0" && kept.version == 1)
            #expect(try await database.profile(ada).displayName != "Bob was here")

            // The same id in Bob's own space is Bob's own object; Ada's is untouched.
            _ = try await sync.push(bob, deviceID: bobPhone, [put(5, .workout(workoutDraft("Bob's", at: day)), w)])
            #expect(try await training.workouts.get(ada, id: w.uuidString).content.name == "Ada 0")
            #expect(try await counts(database, ada) == before)

            // Ada's feed did not move; Bob's holds only Bob's objects.
            let adaLater = try await sync.pull(ada, cursor: adaPull.cursor.token, pageSize: 100, deviceID: adaPhone)
            #expect(adaLater.changes.isEmpty)
            let bobPull = try await pullAll(sync, bob)
            #expect(!bobPull.changes.isEmpty)
            for change in bobPull.changes {
                #expect(change.objectID != ada.tenantID.rawValue)
                if let workout = change.object?.workout { #expect(workout.content.name == "Bob's") }
                #expect(!(adaWorkouts.dropFirst()).contains(change.objectID))
            }
            // Ada's cursors are refused for Bob, whether beyond Bob's feed or within it.
            #expect(adaPull.cursor.seq > bobPull.cursor.seq)
            let foreign = SpotterError.invalid("cursor", "belongs to another account; pull from an empty cursor")
            await #expect(throws: foreign) {
                try await sync.pull(bob, cursor: adaPull.cursor.token, pageSize: 10, deviceID: bobPhone)
            }
            var early = adaPull.cursor
            early.seq = 1
            await #expect(throws: foreign) {
                try await sync.pull(bob, cursor: early.token, pageSize: 10, deviceID: bobPhone)
            }
            // A cursor from before cursors named their account (three parts) is still taken as the
            // caller's: devices in the field keep syncing.
            let legacy = PageToken.encode(["sync", String(bobPull.cursor.seq), "0"])
            #expect(try await sync.pull(bob, cursor: legacy, pageSize: 10, deviceID: bobPhone).changes.isEmpty)
        }
    }

    // MARK: 10. Privileges

    @Test("the app role cannot write the feed or call its writer, and sees only its own tenant's sync rows")
    func feedPrivileges() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let ada = try await database.lifter("ada")
            let bob = try await database.lifter("bob")
            let day = clock.now.addingTimeInterval(-3600)
            for person in [ada, bob] {
                let device = try await sync.registerDevice(person, label: "phone").id.description
                _ = try await sync.push(
                    person, deviceID: device, [put(1, .workout(workoutDraft("Mon", at: day)), UUID())])
            }
            let bobDevice = try await sync.devices(bob)[0].id.rawValue
            let feed = "SELECT count(*)::int FROM sync_changes"
            let feedBefore = try await database.count(feed)
            let counters = {
                try await database.asOwner {
                    try await $0.query(
                        "SELECT string_agg(tenant_id::text || ':' || last_seq || ':' || purged_seq, ',' ORDER BY tenant_id) FROM sync_counters"
                    ).single!.decode(0) as String?
                }
            }
            let countersBefore = try await counters()

            let me = ada.tenantID.rawValue
            let refused: [(String, [any PostgresEncodable])] = [
                (
                    "INSERT INTO sync_changes (tenant_id, kind, object_id, seq, deleted, changed_at) "
                        + "VALUES ($1, 'workout', gen_random_uuid(), 999, false, now())", [me]
                ),
                ("UPDATE sync_counters SET last_seq = last_seq + 1 WHERE tenant_id = $1", [me]),
                ("UPDATE sync_counters SET purged_seq = 0 WHERE tenant_id = $1", [me]),
                ("DELETE FROM sync_changes WHERE tenant_id = $1", [me]),
                ("SELECT spotter_record_change($1, 'workout', gen_random_uuid(), false)", [me]),
                ("SELECT spotter_record_change($1, 'workout', gen_random_uuid(), true)", [bob.tenantID.rawValue]),
                ("SELECT spotter_record_changes('no_such_cursor')", []),
                (
                    "INSERT INTO sync_devices (tenant_id, device_id, created_at) VALUES ($1, gen_random_uuid(), now())",
                    [bob.tenantID.rawValue]
                ),
                (
                    "INSERT INTO sync_mutations (tenant_id, device_id, mutation_id, status, kind, version, base_version, "
                        + "applied_at) VALUES ($1, $2, 2, 'applied', 'workout', 1, 0, now())",
                    [bob.tenantID.rawValue, bobDevice]
                ),
            ]
            for (sql, parameters) in refused {
                let error = await #expect(throws: PostgresError.self, "\(sql)") {
                    try await database.asTenant(ada.tenantID) { connection in
                        try await connection.query(sql, parameters)
                    }
                }
                #expect(
                    error?.sqlState == PostgresError.Code.insufficientPrivilege, "\(sql): \(String(describing: error))")
            }
            // The app may purge, but only what is at least a day old by the database's clock.
            for retention in ["0", "-30", "NULL"] {
                let error = await #expect(throws: PostgresError.self) {
                    try await database.asTenant(ada.tenantID) { connection in
                        try await connection.query("SELECT spotter_sync_purge(\(retention))")
                    }
                }
                #expect(error?.sqlState == "22023", "\(retention): \(String(describing: error))")
            }

            // Reads and updates are limited to the own tenant.
            try await database.asTenant(ada.tenantID) { connection in
                for table in ["sync_changes", "sync_counters", "sync_devices", "sync_mutations"] {
                    let other: Int = try await connection.query(
                        "SELECT count(*)::int AS n FROM \(table) WHERE tenant_id = $1", [bob.tenantID.rawValue]
                    ).single!.decode("n")
                    #expect(other == 0, "\(table)")
                    let own: Int = try await connection.query(
                        "SELECT count(*)::int AS n FROM \(table) WHERE tenant_id = $1", [me]
                    ).single!.decode("n")
                    #expect(own > 0, "\(table)")
                }
                let moved = try await connection.query(
                    "UPDATE sync_devices SET last_mutation_id = 0 WHERE tenant_id = $1", [bob.tenantID.rawValue])
                #expect(moved.affectedRows == 0)
            }
            #expect(try await database.count(feed) == feedBefore)
            #expect(try await counters() == countersBefore)
            #expect(try await sync.devices(bob).map(\.lastMutationID) == [1])
        }
    }
}
