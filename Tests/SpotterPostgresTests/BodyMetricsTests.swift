import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

@Suite("Body metrics on PostgreSQL")
struct BodyMetricsTests {
    /// 2026-09-21 12:00 UTC.
    private let now = Date(timeIntervalSince1970: 1_790_000_000)

    @Test("body tracking is the Pro tier's: free records and reads none, a lapsed Pro keeps the data and may delete it")
    func proTier() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let training = database.trainingServices(clock: clock)
            let sync = database.syncService(clock: clock)
            let needsPro = SpotterError.tierRequired(
                "body weight and measurement tracking needs the Pro tier", tier: .pro)
            let free = try await database.lifter("fay")
            let weighIn = MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-01", value: 80)
            await #expect(throws: needsPro) { try await training.body.record(free, id: "", weighIn) }
            await #expect(throws: needsPro) { try await training.body.series(free, metrics: [], from: "", to: "") }
            var phone = try await SimulatedDevice.register(sync, free, label: "phone")
            let pushed = try await phone.push(
                sync, [phone.put(.measurement(weighIn), UUID(), base: 0)])
            #expect(pushed.map(\.status) == [.rejected])
            #expect(
                pushed.first?.message == "mutations[0]: body weight and measurement tracking needs the Pro tier")

            // A Pro whose tier lapsed: nothing is lost, and what was recorded can still be deleted.
            let ada = try await database.proLifter("ada")
            let kept = try await training.body.record(ada, id: "", weighIn)
            try await database.asOwner { connection in
                try await connection.query(
                    "UPDATE tenants SET tier = 'pro', tier_expires_at = $2 WHERE tenant_id = $1",
                    [ada.tenantID.rawValue, clock.now.addingTimeInterval(-1)])
            }
            await #expect(throws: needsPro) { try await training.body.series(ada, metrics: [], from: "", to: "") }
            try await training.body.delete(ada, id: kept.id.description)
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM body_measurements WHERE tenant_id = $1 AND deleted_at IS NULL",
                    [ada.tenantID.rawValue]) == 0)
        }
    }

    @Test("a value per metric and day, in the lifter's units; refusals name the field and the reason")
    func recordSeriesAndRefusals() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let training = database.trainingServices(clock: clock)
            let accounts = database.accountService(clock: clock)
            let ada = try await database.proLifter("ada")
            let first = try await training.body.record(
                ada, id: "", MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-01", value: 80.4))
            #expect(first.value == Decimal(string: "80.4") && first.version == 1)
            // The same day again replaces the value, keeping the id.
            let again = try await training.body.record(
                ada, id: "", MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-01", value: 80.1))
            #expect(again.id == first.id && again.version == 2 && again.value == Decimal(string: "80.1"))
            // The same value once more changes nothing: no new version for devices to pull.
            let same = try await training.body.record(
                ada, id: "", MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-01", value: 80.1))
            #expect(same == again)
            // Pounds in, kilograms stored; inches for a tape measurement.
            let pounds = try await training.body.record(
                ada, id: "",
                MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-15", value: 176, unit: .lb))
            #expect(pounds.value == Decimal(string: "79.832"))
            #expect(pounds.value(in: .lb) == 176)
            _ = try await training.body.record(
                ada, id: "", MeasurementDraft(metric: "waist", measuredOn: "2026-09-15", value: 32, unit: .in))
            _ = try await training.body.record(
                ada, id: "", MeasurementDraft(metric: "body_fat", measuredOn: "2026-09-15", value: 18.5))

            let all = try await training.body.series(ada, metrics: [], from: "", to: "")
            #expect(all.map(\.metric) == [.bodyWeight, .bodyFat, .waist])
            #expect(all[0].measurements.map(\.measuredOn) == ["2026-09-01", "2026-09-15"])
            #expect(all[2].measurements.first?.value == Decimal(string: "81.28"))
            let ranged = try await training.body.series(
                ada, metrics: ["body_weight", "chest"], from: "2026-09-10", to: "2026-09-30")
            #expect(ranged.map(\.metric) == [.bodyWeight, .chest])
            #expect(ranged[0].measurements.count == 1 && ranged[1].measurements.isEmpty)

            // A lifter who logs in pounds sees pounds and inches.
            _ = try await accounts.updateProfile(ada, ProfileUpdate(unit: .lb))
            #expect(BodyUnit.shown(.waist, for: .lb) == .in && all[2].measurements[0].value(in: .in) == 32)

            func refusal(_ draft: MeasurementDraft) async -> [FieldViolation] {
                do {
                    _ = try await training.body.record(ada, id: "", draft)
                    return []
                } catch SpotterError.invalidArgument(let violations) {
                    return violations
                } catch {
                    return [FieldViolation(field: "?", reason: "\(error)")]
                }
            }
            // Fields are named by their path in the request (RecordMeasurementRequest.measurement).
            let unknown = await refusal(MeasurementDraft(metric: "ankle", measuredOn: "2026-13-01", value: 1))
            #expect(unknown.map(\.field) == ["measurement.metric", "measurement.measured_on"])
            #expect(unknown.last?.reason == "must be a day of the calendar; there is no month 13")
            #expect(
                await refusal(MeasurementDraft(metric: "waist", measuredOn: "2024-02-30", value: 80)).first?.reason
                    == "must be a day of the calendar; Feb 2024 has 29 days")
            #expect(
                await refusal(MeasurementDraft(metric: "waist", measuredOn: "30/02/2024", value: 80)).first?.reason
                    == "must be a date as YYYY-MM-DD, not '30/02/2024'")
            let heavy = await refusal(MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-02", value: 900))
            #expect(heavy.map(\.field) == ["measurement.value"])
            #expect(heavy.first?.reason == "must be from 44.1 to 881.8 lb for body_weight, not 900")
            // The value refused is quoted as sent, not rounded until it looks allowed.
            let edge = await refusal(
                MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-02", value: 400.04, unit: .kg))
            #expect(edge.first?.reason == "must be from 20 to 400 kg for body_weight, not 400.04")
            let huge = await refusal(
                MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-02", value: 1e300, unit: .kg))
            #expect(huge.first?.reason == "must be from 20 to 400 kg for body_weight, not 1e+300", "\(huge)")
            #expect(
                await refusal(MeasurementDraft(metric: "", measuredOn: "2026-09-02", value: 80)).first?.reason
                    .hasPrefix("is required (one of body_weight, body_fat, ") == true)
            #expect(
                await refusal(MeasurementDraft(metric: "body_fat", measuredOn: "2026-09-02", value: 20, unit: .kg))
                    .first?.reason == "kg is not a unit of body_fat, which is given in percent")
            #expect(
                await refusal(MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-02", value: 80, unit: .cm))
                    .first?.reason == "cm is not a unit of body_weight, which is given in kg or lb")
            #expect(
                await refusal(MeasurementDraft(metric: "waist", measuredOn: "2026-09-30", value: 80)).first?.reason
                    .hasPrefix("must not be in the future") == true)
            // Today is the lifter's: at 14:13 UTC it is still the 21st in Los Angeles (the 22nd is
            // tomorrow there, refused), already the 22nd in Auckland (allowed).
            _ = try await accounts.updateProfile(ada, ProfileUpdate(timeZone: "America/Los_Angeles"))
            #expect(
                await refusal(MeasurementDraft(metric: "waist", measuredOn: "2026-09-22", value: 80)).first?.reason
                    == "must not be in the future (it is 2026-09-21 in America/Los_Angeles, your time zone)")
            _ = try await accounts.updateProfile(ada, ProfileUpdate(timeZone: "Pacific/Auckland"))
            #expect(await refusal(MeasurementDraft(metric: "waist", measuredOn: "2026-09-22", value: 80)).isEmpty)
            await #expect(throws: SpotterError.self) {
                _ = try await training.body.series(ada, metrics: ["ankle"], from: "", to: "")
            }
            // Nothing stored was lost by the refusals.
            #expect(
                try await training.body.series(ada, metrics: [], from: "", to: "").flatMap(\.measurements).count == 5)
        }
    }

    @Test("updates check the version; a move onto a day that has a value is refused; deletions leave the series")
    func updateAndDelete() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await database.proLifter("ada")
            let monday = try await training.body.record(
                ada, id: "", MeasurementDraft(metric: "chest", measuredOn: "2026-09-14", value: 100))
            let tuesday = try await training.body.record(
                ada, id: "", MeasurementDraft(metric: "chest", measuredOn: "2026-09-15", value: 101))
            let moved = try await training.body.update(
                ada, id: monday.id.description,
                MeasurementDraft(metric: "chest", measuredOn: "2026-09-13", value: 99.5), expectedVersion: 1)
            #expect(moved.version == 2 && moved.measuredOn == "2026-09-13")
            // A value read in pounds and saved back unchanged keeps the kilograms stored and its
            // version: 83 kg shows as 183 lb, which is 83.007 kg.
            let weight = try await training.body.record(
                ada, id: "", MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-14", value: 83))
            #expect(weight.value(in: .lb) == 183)
            let readBack = try await training.body.update(
                ada, id: weight.id.description,
                MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-14", value: 183, unit: .lb),
                expectedVersion: 1)
            #expect(readBack == weight)
            let again = try await training.body.record(
                ada, id: "", MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-14", value: 183, unit: .lb))
            #expect(again == weight)
            // A note changed beside it: a new version, the kilograms still as stored.
            let noted = try await training.body.update(
                ada, id: weight.id.description,
                MeasurementDraft(
                    metric: "body_weight", measuredOn: "2026-09-14", value: 183, unit: .lb, note: "after travel"),
                expectedVersion: 1)
            #expect(noted.version == 2 && noted.value == 83 && noted.note == "after travel")
            // A value that shows differently is stored as given.
            let changed = try await training.body.update(
                ada, id: weight.id.description,
                MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-14", value: 183.1, unit: .lb),
                expectedVersion: 2)
            #expect(changed.version == 3 && changed.value == Decimal(string: "83.053"))
            await #expect(
                throws: SpotterError.failedPrecondition(
                    "expected_version: the measurement is at version 2, not 1; read it again")
            ) {
                _ = try await training.body.update(
                    ada, id: monday.id.description,
                    MeasurementDraft(metric: "chest", measuredOn: "2026-09-13", value: 99), expectedVersion: 1)
            }
            do {
                _ = try await training.body.update(
                    ada, id: monday.id.description,
                    MeasurementDraft(metric: "chest", measuredOn: "2026-09-15", value: 99), expectedVersion: nil)
                Issue.record("two values on one day")
            } catch SpotterError.alreadyExists(let field, let reason) {
                #expect(field == "measurement.measured_on")
                #expect(reason.contains("chest already has a value on 2026-09-15") && reason.contains("\(tuesday.id)"))
            }
            // An update to the values it holds answers it as it is, at its version.
            let unchanged = try await training.body.update(
                ada, id: moved.id.description,
                MeasurementDraft(metric: "chest", measuredOn: "2026-09-13", value: 99.5), expectedVersion: 2)
            #expect(unchanged == moved)
            try await training.body.delete(ada, id: tuesday.id.description)
            await #expect(throws: SpotterError.notFound("measurement not found")) {
                try await training.body.delete(ada, id: tuesday.id.description)
            }
            await #expect(
                throws: SpotterError.alreadyExists(
                    field: "measurement_id",
                    reason: "belongs to a deleted measurement; ids are not reused, record it with a new one")
            ) {
                _ = try await training.body.create(
                    ada, id: tuesday.id.description,
                    MeasurementDraft(metric: "chest", measuredOn: "2026-09-16", value: 100))
            }
            let series = try await training.body.series(ada, metrics: ["chest"], from: "", to: "")
            #expect(series.first?.measurements.map(\.id) == [monday.id])
            // The day is free again.
            _ = try await training.body.record(
                ada, id: "", MeasurementDraft(metric: "chest", measuredOn: "2026-09-15", value: 102))
        }
    }

    @Test("new values for one day from several devices at once: the last one stays, nothing collides")
    func concurrentNewValuesForOneDay() async throws {
        try await TestDatabase.with { database in
            let training = database.trainingServices(clock: TestClock(now))
            let ada = try await database.proLifter("ada")
            let ids = (0..<8).map { _ in UUID().uuidString }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, id) in ids.enumerated() {
                    group.addTask {
                        _ = try await training.body.createReplacingDay(
                            ada, id: id,
                            MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-20", value: Double(80 + index))
                        )
                    }
                }
                try await group.waitForAll()
            }
            let day = try await training.body.series(
                ada, metrics: ["body_weight"], from: "2026-09-20", to: "2026-09-20")
            #expect(day.first?.measurements.count == 1)
            #expect(ids.map { $0.lowercased() }.contains(day.first?.measurements.first?.id.description ?? ""))
            // An id that is taken is refused, and the day's value is kept.
            let kept = try #require(day.first?.measurements.first)
            do {
                _ = try await training.body.createReplacingDay(
                    ada, id: ids.first { $0.lowercased() != kept.id.description }!,
                    MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-20", value: 70))
                Issue.record("a taken id was stored again")
            } catch SpotterError.alreadyExists(let field, _) {
                #expect(field == "measurement_id")
            }
            let after = try await training.body.series(
                ada, metrics: ["body_weight"], from: "2026-09-20", to: "2026-09-20")
            #expect(after.first?.measurements == [kept])
        }
    }

    @Test("devices push and pull measurements; a coach reads them with the body scope, and the database agrees")
    func syncCoachAndRowLevelSecurity() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(now)
            let training = database.trainingServices(clock: clock)
            let sync = database.syncService(clock: clock)
            let coaching = database.coachingService(clock: clock)
            let ada = try await database.proLifter("ada")
            let coach = try await database.lifter("cora", kind: .coach)
            let other = try await database.lifter("otto", kind: .coach)
            var phone = try await SimulatedDevice.register(sync, ada, label: "phone")
            var tablet = try await SimulatedDevice.register(sync, ada, label: "tablet")
            try await tablet.pullAll(sync)

            let id = UUID()
            let created = try await phone.push(
                sync,
                [
                    phone.put(
                        .measurement(MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-20", value: 82)), id,
                        base: 0)
                ])
            #expect(created.map(\.status) == [.applied] && created.first?.version == 1)
            let pulled = try await tablet.pullAll(sync).filter { $0.kind == .measurement }
            #expect(pulled.map(\.objectID) == [id])
            if case .measurement(let measurement) = pulled.first?.object {
                #expect(measurement.value == 82)
            } else {
                Issue.record("the tablet did not get the measurement")
            }
            let stale = try await phone.push(
                sync,
                [
                    phone.put(
                        .measurement(MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-20", value: 81)), id,
                        base: 1),
                    phone.put(
                        .measurement(MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-20", value: 80)), id,
                        base: 1),
                ])
            #expect(stale.map(\.status) == [.applied, .conflict])
            // A weigh-in made offline on the tablet for the same day, pushed later, replaces the
            // phone's (one value per metric and day, as RecordMeasurement): the phone hears of both.
            _ = try await phone.pullAll(sync)
            let tabletID = UUID()
            let later = try await tablet.push(
                sync,
                [
                    tablet.put(
                        .measurement(MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-20", value: 79)),
                        tabletID, base: 0)
                ])
            #expect(later.map(\.status) == [.applied])
            let heard = try await phone.pullAll(sync).filter { $0.kind == .measurement }
            #expect(Set(heard.map(\.objectID)) == [id, tabletID])
            #expect(heard.first { $0.objectID == id }?.object == nil, "the phone's own is a tombstone")
            let day = try await training.body.series(
                ada, metrics: ["body_weight"], from: "2026-09-20", to: "2026-09-20")
            #expect(day.flatMap(\.measurements).map(\.value) == [79])
            _ = try await tablet.push(sync, [tablet.delete(.measurement, tabletID, base: 1)])
            #expect(
                try await phone.pullAll(sync).filter { $0.kind == .measurement }.map { $0.object == nil } == [true])

            _ = try await training.body.record(
                ada, id: "", MeasurementDraft(metric: "hips", measuredOn: "2026-09-20", value: 95))
            for staff in [coach, other] {
                try await database.asOwner { connection in
                    try await connection.query(
                        "UPDATE tenants SET tier = 'coach' WHERE tenant_id = $1", [staff.tenantID.rawValue])
                }
            }
            try await coaching.link(coach, ada, scopes: ["body"])
            let series = try await coaching.clientMeasurements(
                coach, client: ada.tenantID.description, metrics: [], from: "", to: "")
            #expect(series.map(\.metric) == [.hips])
            await #expect(throws: SpotterError.self) {
                _ = try await coaching.clientMeasurements(
                    other, client: ada.tenantID.description, metrics: [], from: "", to: "")
            }
            // At the SQL level: the body-scoped coach reads the rows, a progress-only coach none.
            try await coaching.link(other, ada, scopes: ["progress", "history", "details"])
            let seen = try await database.asTenant(coach.tenantID) { connection in
                try await connection.query(
                    "SELECT count(*)::int AS n FROM body_measurements WHERE tenant_id = $1 AND deleted_at IS NULL",
                    [ada.tenantID.rawValue]
                ).single!.decode("n") as Int
            }
            let hidden = try await database.asTenant(other.tenantID) { connection in
                try await connection.query(
                    "SELECT count(*)::int AS n FROM body_measurements WHERE tenant_id = $1", [ada.tenantID.rawValue]
                ).single!.decode("n") as Int
            }
            #expect(seen == 1 && hidden == 0)
            let written = try await database.asTenant(coach.tenantID) { connection in
                try await connection.query(
                    "UPDATE body_measurements SET value = 1 WHERE tenant_id = $1", [ada.tenantID.rawValue]
                ).affectedRows
            }
            #expect(written == 0, "a coach cannot change a client's measurements")
        }
    }
}
