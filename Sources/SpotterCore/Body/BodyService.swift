import Foundation

/// Where body measurements are kept.
public protocol BodyStore: Sendable {
    /// Stores a new measurement under `id`; `alreadyExists` naming `measurement.measured_on` when the metric has
    /// a live value that day.
    func create(_ principal: Principal, _ id: MeasurementID, _ input: MeasurementInput, now: Date) async throws
        -> BodyMeasurement
    /// Replaces the metric's live value on that day if there is one (keeping its id), else stores a
    /// new one under `id`.
    func record(_ principal: Principal, _ id: MeasurementID, _ input: MeasurementInput, now: Date) async throws
        -> BodyMeasurement
    /// Stores a new measurement under `id`; the metric's other live value that day, if any, is
    /// deleted (its tombstone reaches every device) in the same transaction.
    func createReplacingDay(_ principal: Principal, _ id: MeasurementID, _ input: MeasurementInput, now: Date)
        async throws
        -> BodyMeasurement
    /// Replaces a live measurement at `expectedVersion` (any when `nil`); `notFound` without it,
    /// `failedPrecondition` at another version.
    func update(
        _ principal: Principal, _ id: MeasurementID, _ input: MeasurementInput, expectedVersion: Int64?, now: Date
    ) async throws -> BodyMeasurement
    /// Marks it deleted; `false` when there is no live one.
    func delete(_ principal: Principal, _ id: MeasurementID, now: Date) async throws -> Bool
    /// The principal's tenant's live measurements of `metrics` (every metric when empty) measured
    /// in `[from, to]` (either end open when `nil`), by metric then date.
    func measurements(_ principal: Principal, metrics: [BodyMetric], from: String?, to: String?) async throws
        -> [BodyMeasurement]
}

/// Body weight, body-fat percentage and tape measurements: one value per metric and day, shown in
/// the lifter's units (kilograms and centimetres, or pounds and inches).
public struct BodyService: Sendable {
    private let store: any BodyStore
    private let contexts: any TenantContextStore
    private let now: @Sendable () -> Date

    public init(
        store: any BodyStore, contexts: any TenantContextStore, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.contexts = contexts
        self.now = now
    }

    /// Records the metric's value for the day: replaces that day's value if there is one, else
    /// stores a new measurement (under the client's id when it sent one).
    public func record(_ principal: Principal, id: String, _ draft: MeasurementDraft) async throws -> BodyMeasurement {
        let input = try await validated(principal, draft)
        return try await store.record(principal, try Self.id(id, new: true), input, now: now())
    }

    /// A device's new measurement (a push), under its id. One value per metric and day, as
    /// `record` keeps: a day that has another measurement loses it (deleted, so its tombstone
    /// reaches every device) to the one pushed later, in the push's transaction.
    public func createReplacingDay(_ principal: Principal, id: String, _ draft: MeasurementDraft) async throws
        -> BodyMeasurement
    {
        let input = try await validated(principal, draft)
        return try await store.createReplacingDay(principal, try Self.id(id, new: true), input, now: now())
    }

    /// Creates a measurement under the client's id (a device's push).
    public func create(_ principal: Principal, id: String, _ draft: MeasurementDraft) async throws -> BodyMeasurement {
        let input = try await validated(principal, draft)
        return try await store.create(principal, try Self.id(id, new: true), input, now: now())
    }

    public func update(_ principal: Principal, id: String, _ draft: MeasurementDraft, expectedVersion: Int64?)
        async throws -> BodyMeasurement
    {
        let input = try await validated(principal, draft)
        return try await store.update(
            principal, try Self.id(id, new: false), input, expectedVersion: expectedVersion, now: now())
    }

    public func delete(_ principal: Principal, id: String) async throws {
        guard try await store.delete(principal, try Self.id(id, new: false), now: now()) else { throw Self.notFound }
    }

    /// A series per metric asked for (every metric with a value when none is named), measured
    /// from `from` to `to` (local dates, both included; either may be empty).
    public func series(_ principal: Principal, metrics: [String], from: String, to: String) async throws
        -> [MeasurementSeries]
    {
        let context = try await principal.context(from: contexts)
        try Entitlements.checkBodyTracking(tier: context.tier.effective(at: now()), kind: context.kind)
        return try await storedSeries(principal, metrics: metrics, from: from, to: to)
    }

    /// `series` without the owner's tier: a coach's read of a client (`CoachingService`), which the
    /// body scope and the coach's coverage of the client (the tier's number of clients) decide.
    func storedSeries(_ principal: Principal, metrics: [String], from: String, to: String) async throws
        -> [MeasurementSeries]
    {
        var validator = Validator()
        var wanted: [BodyMetric] = []
        for (index, name) in metrics.enumerated() {
            if let metric = BodyMetric(rawValue: name) {
                wanted.append(metric)
            } else {
                validator.add("metrics[\(index)]", "'\(name)' is not a metric")
            }
        }
        let start = from.isEmpty ? nil : CivilDate.dayNumber(from)
        let end = to.isEmpty ? nil : CivilDate.dayNumber(to)
        if !from.isEmpty, start == nil { validator.add("from", CivilDate.notADate(from)) }
        if !to.isEmpty, end == nil { validator.add("to", CivilDate.notADate(to)) }
        if let start, let end { validator.check(start <= end, "to", "must not be before from") }
        try validator.validate()
        let rows = try await store.measurements(
            principal, metrics: wanted, from: from.isEmpty ? nil : from, to: to.isEmpty ? nil : to)
        let order = wanted.isEmpty ? BodyMetric.allCases : wanted
        let byMetric = Dictionary(grouping: rows, by: \.metric)
        return order.compactMap { metric in
            guard let values = byMetric[metric] else {
                return wanted.isEmpty ? nil : .init(metric: metric, measurements: [])
            }
            return MeasurementSeries(metric: metric, measurements: values)
        }
    }

    private func validated(_ principal: Principal, _ draft: MeasurementDraft) async throws -> MeasurementInput {
        let context = try await principal.context(from: contexts)
        try Entitlements.checkBodyTracking(tier: context.tier.effective(at: now()), kind: context.kind)
        return try draft.validated(unit: context.unit, timeZone: context.timeZone, now: now())
    }

    /// Whether the principal's tier records and reads body measurements.
    public func isTracked(_ principal: Principal) async throws -> Bool {
        let context = try await principal.context(from: contexts)
        return (try? Entitlements.checkBodyTracking(tier: context.tier.effective(at: now()), kind: context.kind)) != nil
    }

    static let notFound = SpotterError.notFound("measurement not found")

    static func id(_ text: String, new: Bool) throws(SpotterError) -> MeasurementID {
        if text.isEmpty {
            guard new else { throw .invalid("measurement_id", "is required") }
            return .random()
        }
        guard let id = MeasurementID(text) else { throw .invalid("measurement_id", "must be a UUID") }
        return id
    }
}
