import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Synchronization
import Testing

/// Conflicts and convergence: devices that edited offline end up holding the same data.
@Suite("Offline-first sync on PostgreSQL: conflicts and convergence")
struct SyncConflictTests {
    private let start = syncTestStart()

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
}
