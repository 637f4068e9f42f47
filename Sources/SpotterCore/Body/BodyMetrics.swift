import Foundation

public struct MeasurementID: EntityID {
    public let rawValue: UUID
    public init(rawValue: UUID) { self.rawValue = rawValue }
}

/// What a body measurement measures.
public enum BodyMetric: String, Sendable, Codable, CaseIterable {
    case bodyWeight = "body_weight"
    case bodyFat = "body_fat"
    case neck, shoulders, chest, waist, hips
    case armLeft = "arm_left"
    case armRight = "arm_right"
    case forearmLeft = "forearm_left"
    case forearmRight = "forearm_right"
    case thighLeft = "thigh_left"
    case thighRight = "thigh_right"
    case calfLeft = "calf_left"
    case calfRight = "calf_right"

    public enum Quantity: Sendable {
        /// Kilograms stored; kilograms or pounds shown.
        case mass
        /// Percent.
        case percent
        /// Centimetres stored; centimetres or inches shown (inches for a lifter who uses pounds).
        case length
    }

    public var quantity: Quantity {
        switch self {
        case .bodyWeight: .mass
        case .bodyFat: .percent
        default: .length
        }
    }

    /// What a value may be, in stored units (kilograms, percent, centimetres).
    public var range: ClosedRange<Decimal> {
        switch quantity {
        case .mass: 20...400
        case .percent: 2...75
        case .length: 5...300
        }
    }
}

/// The unit a measurement's value is given or shown in.
public enum BodyUnit: String, Sendable, Codable, CaseIterable {
    case kg, lb, cm, `in`, percent

    /// The unit a lifter who logs in `unit` sees `metric` in.
    public static func shown(_ metric: BodyMetric, for unit: WeightUnit) -> BodyUnit {
        switch metric.quantity {
        case .mass: unit == .lb ? .lb : .kg
        case .percent: .percent
        case .length: unit == .lb ? .in : .cm
        }
    }

    /// How a value shows it: `kg`, `in`, `%`.
    public var symbol: String { self == .percent ? "%" : rawValue }

    /// Whether a value of `metric` may be given in this unit.
    func fits(_ metric: BodyMetric) -> Bool {
        switch metric.quantity {
        case .mass: self == .kg || self == .lb
        case .percent: self == .percent
        case .length: self == .cm || self == .in
        }
    }

    /// Stored units (kilograms, percent, centimetres) per one of this unit.
    var factor: Decimal {
        switch self {
        case .kg, .cm, .percent: 1
        case .lb: Decimal(string: "0.45359237")!
        case .in: Decimal(string: "2.54")!
        }
    }
}

/// A measurement as a client sends it.
public struct MeasurementDraft: Sendable, Equatable {
    public var metric: String
    /// The lifter's local date, `YYYY-MM-DD`.
    public var measuredOn: String
    public var value: Double
    /// `nil`: the lifter's own unit for the metric.
    public var unit: BodyUnit?
    public var note: String

    public init(metric: String, measuredOn: String, value: Double, unit: BodyUnit? = nil, note: String = "") {
        self.metric = metric
        self.measuredOn = measuredOn
        self.value = value
        self.unit = unit
        self.note = note
    }
}

/// A validated measurement in stored units.
public struct MeasurementInput: Sendable, Equatable {
    public var metric: BodyMetric
    public var measuredOn: String
    /// Kilograms, percent or centimetres, to 3 decimals.
    public var value: Decimal
    public var note: String
    /// The unit the value was given in, and the value as given to the one decimal shown.
    public var typedUnit: BodyUnit
    public var typedValue: Decimal

    /// The input with `current`'s exact value when what was typed is what `current` shows in that
    /// unit: 83 kg, shown as 183 lb and sent back as 183 lb, stays 83 kg (183 lb is 83.007 kg), so
    /// saving a value unchanged changes nothing.
    public func keepingValue(of current: BodyMeasurement) -> MeasurementInput {
        guard current.metric == metric, typedUnit.fits(metric), current.value(in: typedUnit) == typedValue,
            current.value != value
        else { return self }
        var kept = self
        kept.value = current.value
        return kept
    }
}

/// One stored measurement.
public struct BodyMeasurement: Sendable, Equatable, Codable {
    public var id: MeasurementID
    public var metric: BodyMetric
    public var measuredOn: String
    /// Kilograms, percent or centimetres.
    public var value: Decimal
    public var note: String
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: MeasurementID, metric: BodyMetric, measuredOn: String, value: Decimal, note: String, version: Int64,
        createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.metric = metric
        self.measuredOn = measuredOn
        self.value = value
        self.note = note
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The value in `unit` (which must fit the metric), to one decimal.
    public func value(in unit: BodyUnit) -> Decimal {
        (value / unit.factor).rounded(1)
    }
}

/// One metric's values over a range, oldest first.
public struct MeasurementSeries: Sendable, Equatable {
    public var metric: BodyMetric
    public var measurements: [BodyMeasurement]

    public init(metric: BodyMetric, measurements: [BodyMeasurement]) {
        self.metric = metric
        self.measurements = measurements
    }

    /// The last value minus the first, in `unit`; `nil` with fewer than two.
    public func change(in unit: BodyUnit) -> Decimal? {
        guard measurements.count > 1, let first = measurements.first, let last = measurements.last else { return nil }
        return last.value(in: unit) - first.value(in: unit)
    }
}

extension Decimal {
    /// Rounded half up to `places` decimals.
    func rounded(_ places: Int) -> Decimal {
        var value = self
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, places, .plain)
        return rounded
    }
}

extension MeasurementDraft {
    /// The draft in stored units, for a lifter who logs in `unit`, measured by `now`;
    /// `invalidArgument` naming each field that is wrong, under `prefix` (the request's path to it).
    public func validated(
        prefix: String = "measurement.", unit lifterUnit: WeightUnit, timeZone: String? = nil, now: Date
    ) throws(SpotterError) -> MeasurementInput {
        var validator = Validator()
        let metric = BodyMetric(rawValue: metric)
        let metrics = BodyMetric.allCases.map(\.rawValue).joined(separator: ", ")
        validator.check(
            metric != nil, prefix + "metric",
            self.metric.isEmpty ? "is required (one of \(metrics))" : "must be one of \(metrics), not '\(self.metric)'")
        if let problem = CivilDate.pastDateProblem(
            measuredOn, now: now, timeZone: timeZone)
        {
            validator.add(prefix + "measured_on", problem)
        }
        validator.check(note.storedLength <= 500, prefix + "note", "must be at most 500 characters")
        var stored: Decimal = 0
        var unit = BodyUnit.kg
        if let metric {
            unit = self.unit ?? BodyUnit.shown(metric, for: lifterUnit)
            if !unit.fits(metric) {
                let fitting = BodyUnit.allCases.filter { $0.fits(metric) }.map(\.rawValue)
                validator.add(
                    prefix + "unit",
                    "\(unit.rawValue) is not a unit of \(metric.rawValue), which is given in \(fitting.joined(separator: " or "))"
                )
            } else if !value.isFinite {
                validator.add(prefix + "value", "must be a number")
            } else {
                stored = (Decimal(value) * unit.factor).rounded(3)
                let low = metric.range.lowerBound / unit.factor
                let high = metric.range.upperBound / unit.factor
                // As typed; a number past Decimal's range (1e300) as the Double writes it, not "NaN".
                let typed = abs(value) < 1e15 ? "\(Decimal(string: "\(value)") ?? Decimal(value))" : "\(value)"
                validator.check(
                    metric.range.contains(stored), prefix + "value",
                    "must be from \(low.rounded(1)) to \(high.rounded(1)) \(unit.symbol) for \(metric.rawValue), not \(typed)"
                )
            }
        }
        try validator.validate()
        return MeasurementInput(
            metric: metric!, measuredOn: measuredOn, value: stored, note: note, typedUnit: unit,
            typedValue: Decimal(value).rounded(1))
    }

}
