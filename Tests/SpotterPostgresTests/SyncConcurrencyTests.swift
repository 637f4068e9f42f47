import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Synchronization
import Testing

/// The feed's cursor under concurrent writers and pullers: every change seen once, in order.
@Suite("Offline-first sync on PostgreSQL: cursors under concurrency")
struct SyncConcurrencyTests {
    private let start = syncTestStart()

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
            let (sync, ada, phone, day) = try await adaWithPhone(database, start: start)
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
}

private enum Outcome: Sendable {
    case written([UUID])
    case pulled([SyncChange])
}

private struct UnexpectedResults: Error {
    var results: [MutationResult]
}
