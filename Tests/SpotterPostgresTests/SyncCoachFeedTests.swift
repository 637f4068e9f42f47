import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Synchronization
import Testing

/// Coach-side changes in lifters' feeds, and the one lock order of the feed counters.
@Suite("Offline-first sync on PostgreSQL: coach-side changes and lock order")
struct SyncCoachFeedTests {
    private let start = syncTestStart()

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

            // The lifter replaces the workout: a comment on a set follows its exercise to its new
            // place, one whose set is gone stays on the workout, and devices pull both changes.
            let benchSet = try await coaching.commentAsCoach(
                coach, client: client, workoutID: w.uuidString, exerciseIndex: 0, setIndex: 2, body: "Bar path")
            try await phone.pullAll(sync)
            // The workout was three sets of bench press; squats now come first.
            let replaced = workoutDraft(
                "Squats", at: clock.now.addingTimeInterval(-600), exercises: [Catalog.squat, Catalog.benchPress])
            _ = try await phone.push(sync, [phone.put(.workout(replaced), w, base: 1)])
            var moved = try await coaching.comments(ada, workoutID: w.uuidString)
            #expect(moved.first { $0.id == benchSet.id }.map { [$0.exerciseIndex, $0.setIndex] } == [1, 2])
            changes = try await phone.pullAll(sync)
            #expect(changes.contains { $0.key == SyncObjectKey(.comment, benchSet.id) })
            var shorter = replaced
            shorter.exercises[1].sets = Array(shorter.exercises[1].sets.prefix(2))  // bench's third set gone
            _ = try await phone.push(sync, [phone.put(.workout(shorter), w, base: 2)])
            moved = try await coaching.comments(ada, workoutID: w.uuidString)
            #expect(moved.first { $0.id == benchSet.id }.map { [$0.exerciseIndex, $0.setIndex] } == [nil, nil])
            try await coaching.deleteCommentAsCoach(coach, client: client, id: benchSet.id.uuidString)

            // The lifter deletes a commented workout: its comments go with it, in the pull as deletions.
            let second = try await coaching.commentAsCoach(
                coach, client: client, workoutID: w.uuidString, exerciseIndex: 0, setIndex: 0, body: "Watch me")
            try await phone.pullAll(sync)
            _ = try await phone.push(sync, [phone.delete(.workout, w, base: 3)])
            changes = try await phone.pullAll(sync)
            #expect(Set(changes.map(\.key)) == [SyncObjectKey(.workout, w), SyncObjectKey(.comment, second.id)])
            #expect(changes.allSatisfy { $0.object == nil })
            var tablet = try await SimulatedDevice.register(sync, ada, label: "tablet")
            try await tablet.pullAll(sync)
            #expect(
                !tablet.objects.keys.contains { $0.kind == .comment },
                "a new device gets no comment of a deleted workout")

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
