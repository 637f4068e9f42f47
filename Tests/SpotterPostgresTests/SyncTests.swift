import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Synchronization
import Testing

/// Offline-first sync (issue 5) on PostgreSQL: push, pull, conflicts, idempotence, the change
/// feed's cursor under concurrency, coach-side changes, purging and the feed's privileges.
@Suite("Offline-first sync on PostgreSQL")
struct SyncTests {
    /// Real time, to the second: the feed stamps its rows with the database clock, and the purge
    /// compares them with the service clock.
    private let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))

    // MARK: 1. Push and pull

    @Test("push creates, updates and deletes each writable kind; pulls return them, later changes and tombstones")
    func pushAndPull() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let ada = try await database.lifter("ada")
            let phone = try await sync.registerDevice(ada, label: "phone").id.description
            let profileVersion = try await database.profile(ada).version
            let day = clock.now.addingTimeInterval(-3600)
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

            // An incremental pull: only what changed since, deletions as tombstones.
            let later = try await pullAll(sync, ada, from: first.cursor.token, device: phone)
            #expect(later.lastMutationID == 19)
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
            let training = database.trainingServices()
            let ada = try await database.lifter("ada")
            let workout = try await training.workouts.log(
                ada, id: "", workoutDraft("Before sync", at: Date().addingTimeInterval(-86_400)))
            let template = try await training.templates.create(ada, id: "", templateDraft("Legs"))
            try await migrateRest()

            let sync = database.syncService()
            let first = try await pullAll(sync, ada)
            let pulled = Set(first.changes.map(\.key))
            #expect(pulled.contains(SyncObjectKey(.workout, workout.id.rawValue)), "an old workout is never synced")
            #expect(pulled.contains(SyncObjectKey(.template, template.id.rawValue)), "an old template is never synced")
            #expect(pulled.contains(SyncObjectKey(.profile, ada.tenantID.rawValue)))
        }
    }

    // MARK: 2. Idempotence

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

    // MARK: 3. Conflicts

    @Test("a mutation from an old version is a conflict that keeps the server's data; the rest of the batch applies")
    func conflicts() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let ada = try await database.lifter("ada")
            let phone = try await sync.registerDevice(ada, label: "phone").id.description
            let tablet = try await sync.registerDevice(ada, label: "tablet").id.description
            let day = clock.now.addingTimeInterval(-3600)
            let (w, w3, w4, t) = (UUID(), UUID(), UUID(), UUID())

            #expect(
                try await sync.push(ada, deviceID: phone, [put(1, .workout(workoutDraft("Leg day", at: day)), w)])
                    .map(\.status) == [.applied])
            // Both devices edit version 1: the first wins, the second is told.
            let won = try await sync.push(
                ada, deviceID: phone, [put(2, .workout(workoutDraft("Leg day (phone)", at: day)), w, base: 1)])
            #expect(
                won == [
                    MutationResult(
                        mutationID: 2, status: .applied, kind: .workout, objectID: w, version: 2, baseVersion: 1)
                ])
            let lost = try await sync.push(
                ada, deviceID: tablet,
                [
                    put(1, .workout(workoutDraft("Leg day (tablet)", at: day)), w, base: 1),
                    put(2, .workout(workoutDraft("Arms", at: day)), w3),
                ])
            #expect(
                lost[0]
                    == MutationResult(
                        mutationID: 1, status: .conflict, kind: .workout, objectID: w, version: 2, baseVersion: 1,
                        serverDeleted: false))
            #expect(lost[1].status == .applied && lost[1].version == 1)
            let kept = try await training.workouts.get(ada, id: w.uuidString)
            #expect(kept.content.name == "Leg day (phone)" && kept.version == 2)
            #expect(try await training.workouts.get(ada, id: w3.uuidString).content.name == "Arms")

            // An edit of a deleted object is a conflict saying so; a second delete is fine.
            let deleted = try await sync.push(ada, deviceID: phone, [delete(3, .workout, w, base: 2)])
            #expect(deleted.map(\.status) == [.applied] && deleted.map(\.version) == [0])
            let late = try await sync.push(
                ada, deviceID: tablet,
                [
                    put(3, .workout(workoutDraft("Leg day (late)", at: day)), w, base: 2),
                    delete(4, .workout, w, base: 2),
                ])
            #expect(late[0].status == .conflict && late[0].serverDeleted && late[0].baseVersion == 2)
            #expect(late[1].status == .applied && !late[1].serverDeleted)
            await #expect(throws: SpotterError.notFound("workout not found")) {
                try await training.workouts.get(ada, id: w.uuidString)
            }

            // Deleting an object that changed since is a conflict too: nothing silently dropped.
            _ = try await sync.push(
                ada, deviceID: phone,
                [
                    put(4, .workout(workoutDraft("Back day", at: day)), w4),
                    put(5, .workout(workoutDraft("Back day (edited)", at: day)), w4, base: 1),
                ])
            let staleDelete = try await sync.push(ada, deviceID: tablet, [delete(5, .workout, w4, base: 1)])
            #expect(
                staleDelete == [
                    MutationResult(
                        mutationID: 5, status: .conflict, kind: .workout, objectID: w4, version: 2, baseVersion: 1)
                ])
            #expect(try await training.workouts.get(ada, id: w4.uuidString).content.name == "Back day (edited)")

            // Two devices create the same object: the second create is a conflict.
            #expect(
                try await sync.push(ada, deviceID: tablet, [put(6, .template(templateDraft("Legs")), t)]).map(\.status)
                    == [.applied])
            let twice = try await sync.push(ada, deviceID: phone, [put(6, .template(templateDraft("Legs (phone)")), t)])
            #expect(
                twice == [
                    MutationResult(
                        mutationID: 6, status: .conflict, kind: .template, objectID: t, version: 1, baseVersion: 0)
                ])
            #expect(try await training.templates.get(ada, id: t.uuidString).content.name == "Legs")

            // The profile too has versions.
            let profileVersion = try await database.profile(ada).version
            _ = try await sync.push(
                ada, deviceID: phone, [profilePut(7, ProfileUpdate(displayName: "Ada P"), base: profileVersion)])
            let profileConflict = try await sync.push(
                ada, deviceID: tablet, [profilePut(7, ProfileUpdate(displayName: "Ada T"), base: profileVersion)])
            #expect(profileConflict.map(\.status) == [.conflict] && profileConflict[0].version == profileVersion + 1)
            #expect(try await database.profile(ada).displayName == "Ada P")
        }
    }

    // MARK: 4. Convergence

    @Test("two devices edit offline, sync, and converge to the same state as a new device; every conflict is reported")
    func convergence() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let ada = try await database.lifter("ada")
            let day = clock.now.addingTimeInterval(-3600)
            var phone = try await SimulatedDevice.register(sync, ada, label: "phone")
            var tablet = try await SimulatedDevice.register(sync, ada, label: "tablet")
            let (w1, w2, w3, w4, w5) = (UUID(), UUID(), UUID(), UUID(), UUID())
            let (t1, e1) = (UUID(), UUID())
            let profileVersion = try await database.profile(ada).version

            let seed = [
                phone.put(.workout(workoutDraft("Mon", at: day)), w1, base: 0),
                phone.put(.workout(workoutDraft("Tue", at: day)), w2, base: 0),
                phone.put(.workout(workoutDraft("Wed", at: day)), w3, base: 0),
                phone.put(.template(templateDraft("Legs")), t1, base: 0),
                phone.put(.exercise(exerciseDraft("Zercher Squat")), e1, base: 0),
            ]
            #expect(try await phone.push(sync, seed).allSatisfy { $0.status == .applied })
            try await phone.pullAll(sync, pageSize: 2)
            try await tablet.pullAll(sync, pageSize: 3)
            #expect(phone.canonicalDump == tablet.canonicalDump)
            #expect(phone.objects.count == 6, "five objects and the profile")

            // Offline on both devices.
            let phoneEdits = [
                phone.put(.workout(workoutDraft("Mon (phone)", at: day)), w1, base: 1),
                phone.delete(.workout, w2, base: 1),
                phone.put(.workout(workoutDraft("Fri", at: day)), w4, base: 0),
                phone.put(.template(templateDraft("Legs (phone)")), t1, base: 1),
                phone.put(.profile(ProfileUpdate(displayName: "Ada Phone")), nil, base: profileVersion),
            ]
            let tabletEdits = [
                tablet.put(.workout(workoutDraft("Mon (tablet)", at: day)), w1, base: 1),
                tablet.put(.workout(workoutDraft("Tue (tablet)", at: day)), w2, base: 1),
                tablet.put(.workout(workoutDraft("Wed (tablet)", at: day)), w3, base: 1),
                tablet.put(.workout(workoutDraft("Sat", at: day)), w5, base: 0),
                tablet.delete(.exercise, e1, base: 1),
                tablet.put(.template(templateDraft("Legs (tablet)")), t1, base: 1),
                tablet.put(.profile(ProfileUpdate(timeZone: "Asia/Tokyo")), nil, base: profileVersion),
            ]
            let phoneResults = try await phone.push(sync, phoneEdits)
            let tabletResults = try await tablet.push(sync, tabletEdits)
            #expect(phoneResults.allSatisfy { $0.status == .applied })
            #expect(
                tabletResults.map(\.status) == [
                    .conflict, .conflict, .applied, .applied, .applied, .conflict, .conflict,
                ])
            let conflicts = tabletResults.filter { $0.status == .conflict }
            #expect(conflicts.map(\.mutationID) == [1, 2, 6, 7])
            #expect(conflicts.map(\.serverDeleted) == [false, true, false, false])
            #expect(conflicts.map(\.objectID) == [w1, w2, t1, ada.tenantID.rawValue])

            try await phone.pullAll(sync, pageSize: 1)
            try await tablet.pullAll(sync, pageSize: 4)
            var fresh = try await SimulatedDevice.register(sync, ada, label: "laptop")
            try await fresh.pullAll(sync, pageSize: 3)
            #expect(phone.canonicalDump == tablet.canonicalDump)
            #expect(try await database.sha256(phone.canonicalDump) == (try await database.sha256(tablet.canonicalDump)))
            #expect(phone.canonicalDump == fresh.canonicalDump)
            #expect(phone.objects == fresh.objects)

            // What they converged to.
            func name(_ id: UUID) -> String? { phone.objects[SyncObjectKey(.workout, id)]?.workout?.content.name }
            #expect(name(w1) == "Mon (phone)" && name(w2) == nil && name(w3) == "Wed (tablet)")
            #expect(name(w4) == "Fri" && name(w5) == "Sat")
            #expect(phone.objects[SyncObjectKey(.exercise, e1)] == nil)
            #expect(phone.objects[SyncObjectKey(.template, t1)]?.template?.content.name == "Legs (phone)")
            let profile = phone.objects[SyncObjectKey(.profile, ada.tenantID.rawValue)]?.profile
            #expect(profile?.displayName == "Ada Phone" && profile?.timeZone != "Asia/Tokyo")

            // The tablet rebases its lost edit on what it pulled; then all agree again.
            let rebased = [
                tablet.put(
                    .workout(workoutDraft("Mon (tablet)", at: day)), w1,
                    base: try #require(tablet.version(.workout, w1)))
            ]
            #expect(try await tablet.push(sync, rebased).map(\.status) == [.applied])
            try await phone.pullAll(sync)
            try await tablet.pullAll(sync)
            try await fresh.pullAll(sync)
            #expect(name(w1) == "Mon (tablet)")
            #expect(phone.canonicalDump == tablet.canonicalDump && tablet.canonicalDump == fresh.canonicalDump)
        }
    }

    @Test("objects naming others stay current on every device: exercise and template names, the followed program")
    func renamesReachDependents() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let ada = try await database.lifter("ada")
            let day = clock.now.addingTimeInterval(-3600)
            var phone = try await SimulatedDevice.register(sync, ada, label: "phone")
            let (e, w, t, p) = (UUID(), UUID(), UUID(), UUID())
            let created = try await phone.push(
                sync,
                [
                    phone.put(.exercise(exerciseDraft("Zercher Squat")), e, base: 0),
                    phone.put(
                        .workout(workoutDraft("Legs", at: day, exercises: [ExerciseID(rawValue: e), Catalog.squat])), w,
                        base: 0),
                    phone.put(.template(templateDraft("Legs")), t, base: 0),
                    phone.put(.program(programDraft("Block", t)), p, base: 0),
                ])
            #expect(created.allSatisfy { $0.status == .applied })
            _ = try await database.coachingService(clock: clock).follow(ada, programID: p.uuidString, startOn: "")
            try await phone.pullAll(sync)
            let following = SyncObjectKey(.follow, ada.tenantID.rawValue)
            #expect(phone.objects[following]?.follow?.program.version == 1)
            // Renames: the workout and the program naming them are not changed themselves.
            let renamed = try await phone.push(
                sync,
                [
                    phone.put(.exercise(exerciseDraft("Zercher Box Squat")), e, base: 1),
                    phone.put(.template(templateDraft("Legs B")), t, base: 1),
                ])
            #expect(renamed.allSatisfy { $0.status == .applied })
            try await phone.pullAll(sync)
            var fresh = try await SimulatedDevice.register(sync, ada, label: "laptop")
            try await fresh.pullAll(sync)
            let names = phone.objects[SyncObjectKey(.workout, w)]?.workout?.exerciseNames
            #expect(names?[ExerciseID(rawValue: e)] == "Zercher Box Squat", "the phone shows the old name")
            let templateNames = phone.objects[SyncObjectKey(.program, p)]?.program?.templateNames
            #expect(templateNames?[TemplateID(rawValue: t)] == "Legs B", "the phone shows the old name")
            #expect(phone.canonicalDump == fresh.canonicalDump)

            // The followed program changes: the follow holds a copy of it.
            let edited = try await phone.push(
                sync, [phone.put(.program(programDraft("Block", t, weeks: 6)), p, base: 1)])
            #expect(edited.map(\.status) == [.applied])
            try await phone.pullAll(sync)
            try await fresh.pullAll(sync)
            var newest = try await SimulatedDevice.register(sync, ada, label: "watch")
            try await newest.pullAll(sync)
            let followed = phone.objects[following]?.follow?.program
            #expect(followed?.version == 2 && followed?.content.weeks == 6, "the phone follows the old program")
            #expect(phone.canonicalDump == newest.canonicalDump)

            // The custom exercise is deleted; the workout that used it stays.
            let deleted = try await phone.push(sync, [phone.delete(.exercise, e, base: 2)])
            #expect(deleted.map(\.status) == [.applied])
            try await phone.pullAll(sync)
            var last = try await SimulatedDevice.register(sync, ada, label: "tv")
            try await last.pullAll(sync)
            let held = phone.objects[SyncObjectKey(.workout, w)]?.workout?.exerciseNames[ExerciseID(rawValue: e)]
            let served = last.objects[SyncObjectKey(.workout, w)]?.workout?.exerciseNames[ExerciseID(rawValue: e)]
            #expect(held == served, "the phone shows \(held ?? "nil"), a new device \(served ?? "nil")")
            #expect(phone.canonicalDump == last.canonicalDump)
        }
    }

    @Test("display names shown on assignments and comments stay current on every device")
    func displayNamesStayCurrent() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let coaching = database.coachingService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let accounts = database.accountService(clock: clock)
            let coach = try await database.lifter("cora", kind: .coach)
            let ada = try await database.lifter("ada")
            let client = ada.tenantID.description
            try await coaching.link(coach, ada, scopes: ["details"])
            let template = try await training.templates.create(coach, id: "", templateDraft("Coach squats"))
            let assignment = try await coaching.assign(
                coach, client: client, templateID: template.id.description, programID: "", note: "")
            var phone = try await SimulatedDevice.register(sync, ada, label: "phone")
            let w = UUID()
            _ = try await phone.push(
                sync, [phone.put(.workout(workoutDraft("Squats", at: clock.now.addingTimeInterval(-600))), w, base: 0)])
            let fromCoach = try await coaching.commentAsCoach(
                coach, client: client, workoutID: w.uuidString, exerciseIndex: nil, setIndex: nil, body: "Nice")
            let fromAda = try await coaching.comment(
                ada, workoutID: w.uuidString, exerciseIndex: nil, setIndex: nil, body: "Thanks")
            try await phone.pullAll(sync)
            let assigned = SyncObjectKey(.assignment, assignment.id)
            #expect(phone.objects[assigned]?.assignment != nil)

            _ = try await accounts.updateProfile(coach, ProfileUpdate(displayName: "Coach Cora"))
            _ = try await accounts.updateProfile(ada, ProfileUpdate(displayName: "Ada Lovelace"))
            try await phone.pullAll(sync)
            var fresh = try await SimulatedDevice.register(sync, ada, label: "laptop")
            try await fresh.pullAll(sync)
            #expect(phone.objects[assigned]?.assignment?.assignment.coachName == "Coach Cora")
            #expect(phone.objects[SyncObjectKey(.comment, fromCoach.id)]?.comment?.authorName == "Coach Cora")
            #expect(phone.objects[SyncObjectKey(.comment, fromAda.id)]?.comment?.authorName == "Ada Lovelace")
            #expect(phone.canonicalDump == fresh.canonicalDump)
        }
    }

    // MARK: 5. Validation

    @Test("an invalid mutation is rejected naming the mutation and the field; the rest of the batch applies")
    func validation() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let ada = try await database.lifter("ada")
            let phone = try await sync.registerDevice(ada, label: "phone").id.description
            let profileVersion = try await database.profile(ada).version
            let day = clock.now.addingTimeInterval(-3600)
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

            // Only the valid mutations changed anything; the rejected ones still used their ids.
            let now = try await counts(database, ada)
            #expect(now.workouts == 2 && now.templates == 1 && now.exercises == 1 && now.programs == 0)
            #expect(now.applied == 14)
            let profile = try await database.profile(ada)
            #expect(profile.version == profileVersion && profile.timeZone != "Mars/Olympus_Mons")

            // Fixed and sent again under a new id, it applies.
            let fixed = try await sync.push(ada, deviceID: phone, [put(15, .workout(workoutDraft("Tue", at: day)), w1)])
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

    // MARK: 7. Cursor safety under concurrency

    @Test("concurrent writers and pullers: every puller sees every committed change exactly once, in order")
    func cursorUnderConcurrency() async throws {
        try await TestDatabase.with { database in
            let sync = database.syncService()
            let ada = try await database.lifter("ada")
            var registered: [String] = []
            for index in 0..<4 {
                registered.append(try await sync.registerDevice(ada, label: "writer \(index)").id.description)
            }
            let devices = registered
            let day = Date().addingTimeInterval(-3600)
            let writersDone = Flag()
            let perWriter: Int64 = 25

            let (created, pulls) = try await withThrowingTaskGroup(of: Outcome.self) { group in
                for device in devices {
                    group.addTask {
                        var ids: [UUID] = []
                        for mutation in 1...perWriter {
                            let id = UUID()
                            let results = try await sync.push(
                                ada, deviceID: device,
                                [put(mutation, .workout(workoutDraft("W\(mutation)", at: day)), id)])
                            guard results.map(\.status) == [.applied] else { throw UnexpectedResults(results: results) }
                            ids.append(id)
                        }
                        return .written(ids)
                    }
                }
                for pageSize in [1, 3, 7] {
                    group.addTask {
                        var cursor = ""
                        var seen: [SyncChange] = []
                        for _ in 0..<100_000 {
                            let finished = writersDone.isSet
                            let page = try await sync.pull(ada, cursor: cursor, pageSize: pageSize, deviceID: "")
                            seen += page.changes
                            cursor = page.cursor.token
                            if !page.hasMore {
                                if finished { return .pulled(seen) }
                                try await Task.sleep(for: .milliseconds(1))
                            }
                        }
                        throw PullDidNotEnd()
                    }
                }
                var created: [UUID] = []
                var pulls: [[SyncChange]] = []
                var writers = 0
                for try await outcome in group {
                    switch outcome {
                    case .written(let ids):
                        created += ids
                        writers += 1
                        if writers == devices.count { writersDone.set() }
                    case .pulled(let changes):
                        pulls.append(changes)
                    }
                }
                return (created, pulls)
            }

            #expect(created.count == 100)
            #expect(pulls.count == 3)
            for (index, changes) in pulls.enumerated() {
                let ids = changes.filter { $0.kind == .workout }.map(\.objectID)
                #expect(ids.count == created.count, "puller \(index) saw \(ids.count) workouts")
                #expect(Set(ids).count == ids.count, "puller \(index) saw duplicates")
                #expect(Set(ids) == Set(created), "puller \(index) missed \(Set(created).subtracting(ids).count)")
                let seqs = changes.map(\.seq)
                #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 }, "puller \(index): seqs not increasing")
                #expect(changes.allSatisfy { $0.object != nil })
            }
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM sync_changes WHERE tenant_id = $1 AND kind = 'workout'",
                    [ada.tenantID.rawValue])
                    == 100)
        }
    }

    @Test("pages read ahead hold what a direct read holds; a change committed between pages arrives once")
    func readAhead() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let ada = try await database.lifter("ada")
            let phone = try await sync.registerDevice(ada, label: "phone").id.description
            let day = clock.now.addingTimeInterval(-3600)
            let ids = (0..<25).map { _ in UUID() }
            _ = try await sync.push(
                ada, deviceID: phone,
                ids.enumerated().map { put(Int64($0 + 1), .workout(workoutDraft("W\($0)", at: day)), $1) })

            // Page 2 is read ahead while page 1 is answered; a workout pushed then is on page 3.
            let first = try await sync.pull(ada, cursor: "", pageSize: 10, deviceID: phone)
            #expect(first.hasMore && first.changes.count == 10)
            let late = UUID()
            _ = try await sync.push(ada, deviceID: phone, [put(26, .workout(workoutDraft("Late", at: day)), late)])
            var changes = first.changes
            var page = first
            var pages = 1
            while page.hasMore {
                page = try await sync.pull(ada, cursor: page.cursor.token, pageSize: 10, deviceID: phone)
                changes += page.changes
                pages += 1
            }
            #expect(sync.pagesReadAhead == pages - 1)
            let workouts = changes.filter { $0.kind == .workout }.map(\.objectID)
            #expect(workouts.count == 26 && Set(workouts) == Set(ids + [late]))
            #expect(page.lastMutationID == 26)
            #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.seq < $1.seq })

            // One page of everything, which reads nothing ahead, holds the same.
            let direct = try await sync.pull(ada, cursor: "", pageSize: 1000, deviceID: phone)
            #expect(!direct.hasMore && sync.pagesReadAhead == pages - 1)
            #expect(direct.changes.map(\.objectID) == changes.map(\.objectID))
            #expect(direct.changes.map(\.object) == changes.map(\.object))
        }
    }

    @Test("devices racing to edit one object from the same version: exactly one wins, the others conflict")
    func racingEdits() async throws {
        try await TestDatabase.with { database in
            let sync = database.syncService()
            let training = database.trainingServices()
            let ada = try await database.lifter("ada")
            let day = Date().addingTimeInterval(-3600)
            let w = UUID()
            var registered: [String] = []
            for index in 0..<6 {
                registered.append(try await sync.registerDevice(ada, label: "device \(index)").id.description)
            }
            let devices = registered
            _ = try await sync.push(ada, deviceID: devices[0], [put(1, .workout(workoutDraft("Start", at: day)), w)])
            for round in Int64(1)...3 {
                let results = try await withThrowingTaskGroup(of: MutationResult.self) { group in
                    for (index, device) in devices.enumerated() {
                        let id = index == 0 ? round + 1 : round
                        group.addTask {
                            try await sync.push(
                                ada, deviceID: device,
                                [put(id, .workout(workoutDraft("Round \(round) by \(index)", at: day)), w, base: round)]
                            )[0]
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let winners = results.filter { $0.status == .applied }
                #expect(winners.count == 1, "round \(round): \(results.map(\.status))")
                #expect(winners.first?.version == round + 1)
                let losers = results.filter { $0.status == .conflict }
                #expect(losers.count == devices.count - 1)
                #expect(losers.allSatisfy { $0.version == round + 1 && $0.baseVersion == round })
                let stored = try await training.workouts.get(ada, id: w.uuidString)
                #expect(stored.version == round + 1)
            }
        }
    }

    // MARK: 8. Coach-side changes

    @Test(
        "a coach's assignments, template edits and comments reach the lifter's pull; ending the link leaves tombstones")
    func coachSideChanges() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock)
            let coaching = database.coachingService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let coach = try await database.lifter("cora", kind: .coach)
            let ada = try await database.lifter("ada")
            let client = ada.tenantID.description
            try await coaching.link(coach, ada, scopes: ["history", "details"])
            let template = try await training.templates.create(coach, id: "", templateDraft("Coach squats"))
            let program = try await coaching.createProgram(
                coach, id: "", programDraft("Coach block", template.id.rawValue))

            var phone = try await SimulatedDevice.register(sync, ada, label: "phone")
            try await phone.pullAll(sync)
            #expect(!phone.objects.keys.contains { $0.kind == .assignment || $0.kind == .template })

            // Assigned: the lifter's pull has the assignment with what it names.
            let assigned = try await coaching.assign(
                coach, client: client, templateID: template.id.description, programID: "", note: "Twice a week")
            let assignedProgram = try await coaching.assign(
                coach, client: client, templateID: "", programID: program.id.description, note: "")
            let templateKey = SyncObjectKey(.assignment, assigned.id)
            let programKey = SyncObjectKey(.assignment, assignedProgram.id)
            var changes = try await phone.pullAll(sync)
            #expect(Set(changes.map(\.key)) == [templateKey, programKey])
            let plan = phone.objects[templateKey]?.assignment
            #expect(plan?.assignment.note == "Twice a week" && plan?.assignment.coachID == coach.tenantID)
            #expect(plan?.templates.map(\.id) == [template.id] && plan?.program == nil)
            #expect(plan?.templates.first?.content.name == "Coach squats" && plan?.assignment.version == 1)
            let programPlan = phone.objects[programKey]?.assignment
            #expect(programPlan?.program?.id == program.id && programPlan?.templates.map(\.id) == [template.id])

            // The coach edits the template: both assignments come again, at the new version.
            _ = try await training.templates.update(
                coach, id: template.id.description, templateDraft("Coach squats v2", sets: 5), expectedVersion: 1)
            changes = try await phone.pullAll(sync)
            #expect(Set(changes.map(\.key)) == [templateKey, programKey])
            let edited = phone.objects[templateKey]?.assignment
            #expect(edited?.templates.first?.version == 2 && edited?.templates.first?.content.name == "Coach squats v2")
            #expect(edited?.assignment.version == 2)
            #expect(phone.objects[programKey]?.assignment?.templates.first?.content.items.first?.targetSets == 5)

            // A coach's comment on the lifter's workout.
            let w = UUID()
            _ = try await phone.push(
                sync, [phone.put(.workout(workoutDraft("Squats", at: clock.now.addingTimeInterval(-600))), w, base: 0)])
            try await phone.pullAll(sync)
            let comment = try await coaching.commentAsCoach(
                coach, client: client, workoutID: w.uuidString, exerciseIndex: 0, setIndex: 1, body: "Great bar speed")
            changes = try await phone.pullAll(sync)
            #expect(changes.map(\.key) == [SyncObjectKey(.comment, comment.id)])
            let pulled = phone.objects[SyncObjectKey(.comment, comment.id)]?.comment
            #expect(
                pulled?.body == "Great bar speed" && pulled?.authorSide == .coach && pulled?.workoutID.rawValue == w)
            try await coaching.deleteCommentAsCoach(coach, client: client, id: comment.id.uuidString)
            changes = try await phone.pullAll(sync)
            #expect(changes.map(\.key) == [SyncObjectKey(.comment, comment.id)] && changes.first?.object == nil)

            // The coach takes the program back: a tombstone.
            try await coaching.unassign(coach, id: assignedProgram.id.uuidString)
            changes = try await phone.pullAll(sync)
            #expect(changes.map(\.key) == [programKey] && changes.first?.object == nil)

            // The lifter ends the link: a tombstone for the assignment left.
            _ = try await coaching.endLink(ada, other: coach.tenantID.description)
            changes = try await phone.pullAll(sync)
            #expect(changes.map(\.key) == [templateKey] && changes.first?.object == nil)
            #expect(!phone.objects.keys.contains { $0.kind == .assignment })

            // The coach's later edits stay out of the lifter's feed.
            _ = try await training.templates.update(
                coach, id: template.id.description, templateDraft("Coach squats v3"), expectedVersion: 2)
            changes = try await phone.pullAll(sync)
            #expect(changes.allSatisfy { $0.object != nil && $0.kind != .assignment })

            // A new device of the lifter starts clean: no assignment, no tombstones.
            let fresh = try await pullAll(sync, ada)
            #expect(
                fresh.changes.allSatisfy { $0.object != nil },
                "tombstones in a first pull: \(fresh.changes.filter { $0.object == nil }.map(\.key))")
            #expect(!fresh.changes.contains { $0.kind == .assignment })
        }
    }

    // MARK: 9. Purge and reset

    @Test("purging old tombstones makes older cursors reset; newer and empty cursors still work")
    func purgeAndReset() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock, retentionDays: 30)
            let ada = try await database.lifter("ada")
            var phone = try await SimulatedDevice.register(sync, ada, label: "phone")
            let (w1, w2, w3) = (UUID(), UUID(), UUID())
            let day = clock.now.addingTimeInterval(-3600)
            let seed = [
                phone.put(.workout(workoutDraft("Mon", at: day)), w1, base: 0),
                phone.put(.workout(workoutDraft("Tue", at: day)), w2, base: 0),
            ]
            _ = try await phone.push(sync, seed)
            try await phone.pullAll(sync)
            let beforeDelete = phone.cursor
            _ = try await phone.push(sync, [phone.delete(.workout, w1, base: 1)])
            try await phone.pullAll(sync)
            let afterDelete = phone.cursor

            // Within the retention period nothing goes. Time passes for the feed's rows, which
            // the database's clock stamped and the purge compares with that clock.
            try await age(database, ada, days: 29)
            #expect(try await sync.purge() == 0)
            let kept = try await pullAll(sync, ada, from: beforeDelete)
            #expect(kept.changes.map(\.key) == [SyncObjectKey(.workout, w1)] && kept.changes.first?.object == nil)

            try await age(database, ada, days: 2)
            _ = try await phone.push(sync, [phone.put(.workout(workoutDraft("Wed", at: clock.now)), w3, base: 0)])
            #expect(try await sync.purge() == 1)
            #expect(try await database.count("SELECT count(*)::int FROM sync_changes WHERE deleted") == 0)

            // A cursor from before the purged tombstone must start over.
            await #expect(throws: SpotterError.syncResetRequired(retentionDays: 30)) {
                try await sync.pull(ada, cursor: beforeDelete, pageSize: 10, deviceID: "")
            }
            // One that saw the tombstone goes on.
            let later = try await pullAll(sync, ada, from: afterDelete)
            #expect(later.changes.map(\.key) == [SyncObjectKey(.workout, w3)])
            // An empty cursor always works.
            let fresh = try await pullAll(sync, ada)
            #expect(
                Set(fresh.changes.map(\.key))
                    == [
                        SyncObjectKey(.workout, w2), SyncObjectKey(.workout, w3),
                        SyncObjectKey(.profile, ada.tenantID.rawValue),
                    ])
            // A cursor ahead of the feed is not this account's.
            await #expect(throws: SpotterError.syncResetRequired(retentionDays: 30)) {
                try await sync.pull(
                    ada, cursor: SyncCursor(seq: 10_000, tenant: ada.tenantID).token, pageSize: 10, deviceID: "")
            }

            // Stored results went with the retention: a replay answers "applied" and changes nothing.
            let before = try await counts(database, ada)
            let replay = try await phone.push(sync, seed)
            #expect(replay.map(\.status) == [.applied, .applied])
            #expect(replay.allSatisfy { !$0.message.isEmpty })
            #expect(try await counts(database, ada) == before)
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

    // MARK: Lock order

    @Test("a coach's edits of assigned templates take the feed locks in one order: no deadlock")
    func coachFeedLockOrder() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let coaching = database.coachingService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let coach = try await database.lifter("cora", kind: .coach)
            let ada = try await database.lifter("ada")
            try await coaching.link(coach, ada, scopes: ["history"])
            let own = try await training.templates.create(coach, id: "", templateDraft("Not assigned"))
            var assigned: [TemplateID] = []
            for name in ["Assigned A", "Assigned B"] {
                let template = try await training.templates.create(coach, id: "", templateDraft(name))
                _ = try await coaching.assign(
                    coach, client: ada.tenantID.description, templateID: template.id.description, programID: "",
                    note: "")
                assigned.append(template.id)
            }
            let edit =
                "UPDATE templates SET notes = $3, version = version + 1 WHERE tenant_id = $1 AND template_id = $2"
            let tenant = coach.tenantID.rawValue

            // Transaction 1 (say, a push whose batch edits the coach's own template, then an
            // assigned one) and transaction 2 (an edit of another assigned template) overlap.
            let first = try await database.ownerConnection()
            let second = try await database.ownerConnection()
            let observer = try await database.ownerConnection()
            defer {
                Task {
                    await first.close()
                    await second.close()
                    await observer.close()
                }
            }
            try await first.execute("BEGIN")
            try await first.query(edit, [tenant, own.id.rawValue, "one"])
            try await second.execute("BEGIN")
            let blocked = inBackground(second, edit, [tenant, assigned[0].rawValue, "two"])
            // Wait until transaction 2 waits for a lock held by transaction 1.
            #expect(try await lockWaiters(observer) == 1)
            let firstError = await runAndCommit(first, edit, [tenant, assigned[1].rawValue, "three"])
            let secondError = await blocked.value
            try await end(second, after: secondError)
            #expect(firstError == nil, "transaction 1: \(String(describing: firstError))")
            #expect(secondError == nil, "transaction 2: \(String(describing: secondError))")
        }
    }

    /// Coaches Cora and Cole (Coach tier), each linked with lifters Ada and Bob and each with one
    /// template assigned to each lifter: `templates[c][l]` is coach c's template for lifter l.
    private func twoCoachesSharingTwoClients(_ database: TestDatabase) async throws
        -> (coaches: [Principal], templates: [[UUID]])
    {
        let clock = TestClock(start)
        let coaching = database.coachingService(clock: clock)
        let training = database.trainingServices(clock: clock)
        let coaches = [
            try await database.lifter("cora", kind: .coach), try await database.lifter("cole", kind: .coach),
        ]
        let lifters = [try await database.lifter("ada"), try await database.lifter("bob")]
        var templates: [[UUID]] = []
        for coach in coaches {
            try await database.asOwner { owner in
                try await owner.query(
                    "UPDATE tenants SET tier = 'coach' WHERE tenant_id = $1", [coach.tenantID.rawValue])
            }
            var row: [UUID] = []
            for (index, lifter) in lifters.enumerated() {
                try await coaching.link(coach, lifter, scopes: ["history"])
                let template = try await training.templates.create(coach, id: "", templateDraft("For \(index)"))
                _ = try await coaching.assign(
                    coach, client: lifter.tenantID.description, templateID: template.id.description, programID: "",
                    note: "")
                row.append(template.id.rawValue)
            }
            templates.append(row)
        }
        return (coaches, templates)
    }

    @Test(
        "two coaches editing shared clients' templates in opposite order, feed locks first: the second waits, both commit"
    )
    func twoCoachesLockOrder() async throws {
        try await TestDatabase.with { database in
            let (coaches, templates) = try await twoCoachesSharingTwoClients(database)
            let owner = try await database.ownerConnection()
            defer { Task { await owner.close() } }
            let edit =
                "UPDATE templates SET notes = $3, version = version + 1 WHERE tenant_id = $1 AND template_id = $2"
            let (cora, cole) = (coaches[0].tenantID.rawValue, coaches[1].tenantID.rawValue)

            // Two pushes of several mutations each, begun as the stores begin them (the acting
            // tenant, then spotter_lock_feeds()): Cora edits her templates for Bob, then Ada; Cole
            // his for Ada, then Bob. Statement by statement these orders once deadlocked (40P01).
            let first = try await database.ownerConnection()
            let second = try await database.ownerConnection()
            defer {
                Task {
                    await first.close()
                    await second.close()
                }
            }
            for (connection, tenant) in [(first, cora), (second, cole)] {
                try await connection.execute("BEGIN")
                try await connection.query("SELECT set_config('spotter.tenant_id', $1, true)", [tenant.uuidString])
            }
            try await first.query("SELECT spotter_lock_feeds()")
            try await first.query(edit, [cora, templates[0][1], "one"])
            // Cole's transaction waits at its first statement, holding nothing another needs.
            let blocked = inBackground(second, "SELECT spotter_lock_feeds()", [])
            #expect(try await lockWaiters(owner) == 1)
            let firstError = await runAndCommit(first, edit, [cora, templates[0][0], "three"])
            let lockError = await blocked.value
            var secondError = lockError
            if secondError == nil {
                secondError = await rpcSafe {
                    try await second.query(edit, [cole, templates[1][0], "two"])
                    try await second.query(edit, [cole, templates[1][1], "four"])
                }
            }
            try await end(second, after: secondError)
            #expect(firstError == nil, "Cora: \(String(describing: firstError))")
            #expect(secondError == nil, "Cole: \(String(describing: secondError))")
            let committed =
                try await owner.query(
                    "SELECT count(*)::int AS n FROM templates WHERE notes IN ('one', 'two', 'three', 'four')"
                ).single!.decode("n") as Int
            #expect(committed == 4)
        }
    }

    @Test("two coaches pushing edits of shared clients' templates in opposite orders, many times: no deadlock")
    func twoCoachesPushing() async throws {
        try await TestDatabase.with { database in
            let sync = database.syncService(clock: TestClock(start))
            let (coaches, templates) = try await twoCoachesSharingTwoClients(database)
            var devices: [String] = []
            for coach in coaches {
                devices.append(try await sync.registerDevice(coach, label: "laptop").id.description)
            }
            // Cora edits for Bob, then Ada; Cole for Ada, then Bob; each push two mutations.
            var failures: [String] = []
            for round in Int64(0)..<20 {
                let base = round + 1
                async let cora = sync.push(
                    coaches[0], deviceID: devices[0],
                    [
                        put(2 * round + 1, .template(templateDraft("Bob \(round)")), templates[0][1], base: base),
                        put(2 * round + 2, .template(templateDraft("Ada \(round)")), templates[0][0], base: base),
                    ])
                async let cole = sync.push(
                    coaches[1], deviceID: devices[1],
                    [
                        put(2 * round + 1, .template(templateDraft("Ada \(round)")), templates[1][0], base: base),
                        put(2 * round + 2, .template(templateDraft("Bob \(round)")), templates[1][1], base: base),
                    ])
                var outcomes: [[MutationResult]] = []
                do { outcomes.append(try await cora) } catch { failures.append("Cora: \(error)") }
                do { outcomes.append(try await cole) } catch { failures.append("Cole: \(error)") }
                for results in outcomes where !results.allSatisfy({ $0.status == .applied }) {
                    failures.append("\(results.map(\.status))")
                }
            }
            #expect(failures.isEmpty, "\(failures)")
        }
    }
}

// MARK: - Helpers

private func put(_ id: Int64, _ content: Mutation.Content, _ object: UUID, base: Int64 = 0) -> Mutation {
    Mutation(
        id: id, kind: content.kind, objectID: object.uuidString.lowercased(), baseVersion: base,
        change: .put(content))
}

private func delete(_ id: Int64, _ kind: SyncKind, _ object: UUID, base: Int64) -> Mutation {
    Mutation(id: id, kind: kind, objectID: object.uuidString.lowercased(), baseVersion: base, change: .delete)
}

private func profilePut(_ id: Int64, _ update: ProfileUpdate, base: Int64) -> Mutation {
    Mutation(id: id, kind: .profile, objectID: "", baseVersion: base, change: .put(.profile(update)))
}

private func templateDraft(_ name: String, sets: Int = 3) -> TemplateDraft {
    TemplateDraft(
        name: name,
        items: [
            TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: sets, repsMin: 5),
            TemplateItemDraft(exerciseID: Catalog.benchPress.description, targetSets: 3, repsMin: 8, repsMax: 10),
        ])
}

private func exerciseDraft(_ name: String) -> ExerciseDraft {
    ExerciseDraft(name: name, category: .squat, muscleGroup: .quadriceps, equipment: .barbell, instructions: "")
}

private func programDraft(_ name: String, _ template: UUID, weeks: Int = 4) -> ProgramDraft {
    ProgramDraft(
        name: name, weeks: weeks,
        days: [
            ProgramDraft.Day(week: 1, weekday: 1, templateID: template.uuidString),
            ProgramDraft.Day(week: 1, weekday: 4, templateID: template.uuidString),
        ])
}

private func keys(_ ids: [SyncKind: [UUID]]) -> Set<SyncObjectKey> {
    Set(ids.flatMap { kind, ids in ids.map { SyncObjectKey(kind, $0) } })
}

/// Runs `sql` on `connection` in the background; the task answers the statement's error, if any.
private func inBackground(_ connection: PostgresConnection, _ sql: String, _ parameters: [any PostgresEncodable])
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
private func lockWaiters(_ observer: PostgresConnection) async throws -> Int {
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
private func rpcSafe(_ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}

/// Runs `sql` on `connection` and commits its transaction; rolls back and answers the error on failure.
private func runAndCommit(_ connection: PostgresConnection, _ sql: String, _ parameters: [any PostgresEncodable])
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
private func end(_ connection: PostgresConnection, after error: (any Error)?) async throws {
    if error == nil { try await connection.execute("COMMIT") } else { _ = try? await connection.execute("ROLLBACK") }
}

/// Makes `principal`'s feed entries and stored mutation results `days` older.
private func age(_ database: TestDatabase, _ principal: Principal, days: Int) async throws {
    try await database.asOwner { owner in
        for table in ["sync_changes SET changed_at = changed_at", "sync_mutations SET applied_at = applied_at"] {
            try await owner.query(
                "UPDATE \(table) - make_interval(days => $2) WHERE tenant_id = $1", [principal.tenantID.rawValue, days])
        }
    }
}

/// Every page from `cursor` on.
private func pullAll(
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
private struct Counts: Equatable, CustomStringConvertible {
    var workouts, templates, exercises, programs, feed, lastSeq, mutations, applied, profileVersion: Int

    var description: String {
        "workouts \(workouts) templates \(templates) exercises \(exercises) programs \(programs) feed \(feed) "
            + "last_seq \(lastSeq) mutations \(mutations) applied \(applied) profile v\(profileVersion)"
    }
}

private func counts(_ database: TestDatabase, _ principal: Principal) async throws -> Counts {
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

private enum Outcome: Sendable {
    case written([UUID])
    case pulled([SyncChange])
}

private struct UnexpectedResults: Error {
    var results: [MutationResult]
}

/// Set once, read by many tasks.
private final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

extension SyncObject {
    fileprivate var workout: Workout? { if case .workout(let value) = self { value } else { nil } }
    fileprivate var template: Template? { if case .template(let value) = self { value } else { nil } }
    fileprivate var exercise: Exercise? { if case .exercise(let value) = self { value } else { nil } }
    fileprivate var program: Program? { if case .program(let value) = self { value } else { nil } }
    fileprivate var profile: Profile? { if case .profile(let value) = self { value } else { nil } }
    fileprivate var follow: ProgramFollow? { if case .follow(let value) = self { value } else { nil } }
    fileprivate var comment: WorkoutComment? { if case .comment(let value) = self { value } else { nil } }
    fileprivate var assignment: AssignedPlan? { if case .assignment(let value) = self { value } else { nil } }
}
