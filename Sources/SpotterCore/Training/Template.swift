import Foundation

public struct TemplateID: EntityID {
    public let rawValue: UUID
    public init(rawValue: UUID) { self.rawValue = rawValue }
}

/// One planned exercise of a template.
public struct TemplateItem: Sendable, Equatable, Codable {
    public var exerciseID: ExerciseID
    public var targetSets: Int
    public var repsMin: Int
    public var repsMax: Int
    public var targetRPE: Decimal?
    public var restSeconds: Int?
    public var notes: String
    /// A time to work or hold for, per set.
    public var targetDurationSeconds: Int?
    /// A distance to cover, per set.
    public var targetDistanceMeters: Int?
    public var section: WorkoutSection
    /// 0 outside a circuit; otherwise the number (1-based) of one of the template's `circuits`.
    public var circuit: Int
    /// The load each set prescribes, if any.
    public var targetLoad: TemplateLoad?

    public init(
        exerciseID: ExerciseID,
        targetSets: Int,
        repsMin: Int,
        repsMax: Int,
        targetRPE: Decimal? = nil,
        restSeconds: Int? = nil,
        notes: String = "",
        targetDurationSeconds: Int? = nil,
        targetDistanceMeters: Int? = nil,
        section: WorkoutSection = .main,
        circuit: Int = 0,
        targetLoad: TemplateLoad? = nil
    ) {
        self.exerciseID = exerciseID
        self.targetSets = targetSets
        self.repsMin = repsMin
        self.repsMax = repsMax
        self.targetRPE = targetRPE
        self.restSeconds = restSeconds
        self.notes = notes
        self.targetDurationSeconds = targetDurationSeconds
        self.targetDistanceMeters = targetDistanceMeters
        self.section = section
        self.circuit = circuit
        self.targetLoad = targetLoad
    }

    private enum CodingKeys: String, CodingKey {
        case exerciseID, targetSets, repsMin, repsMax, targetRPE, restSeconds, notes, targetDurationSeconds,
            targetDistanceMeters, section, circuit, targetWeightKg, targetPercentOfMax
        /// Snapshots published on 2026-11-28 before weights were written as kilograms: a `Mass`.
        case targetWeight
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(exerciseID, forKey: .exerciseID)
        try container.encode(targetSets, forKey: .targetSets)
        try container.encode(repsMin, forKey: .repsMin)
        try container.encode(repsMax, forKey: .repsMax)
        try container.encodeIfPresent(targetRPE, forKey: .targetRPE)
        try container.encodeIfPresent(restSeconds, forKey: .restSeconds)
        try container.encode(notes, forKey: .notes)
        try container.encodeIfPresent(targetDurationSeconds, forKey: .targetDurationSeconds)
        try container.encodeIfPresent(targetDistanceMeters, forKey: .targetDistanceMeters)
        try container.encode(section, forKey: .section)
        try container.encode(circuit, forKey: .circuit)
        // Exact kilograms, as an export writes every weight (`weight_kg`).
        try container.encodeIfPresent(targetLoad?.weight?.kilograms, forKey: .targetWeightKg)
        try container.encodeIfPresent(targetLoad?.percentOfMax, forKey: .targetPercentOfMax)
    }

    /// Snapshots published before sections existed have no section or circuit: main, none; before
    /// loads, no load.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            exerciseID: try container.decode(ExerciseID.self, forKey: .exerciseID),
            targetSets: try container.decode(Int.self, forKey: .targetSets),
            repsMin: try container.decode(Int.self, forKey: .repsMin),
            repsMax: try container.decode(Int.self, forKey: .repsMax),
            targetRPE: try container.decodeIfPresent(Decimal.self, forKey: .targetRPE),
            restSeconds: try container.decodeIfPresent(Int.self, forKey: .restSeconds),
            notes: try container.decode(String.self, forKey: .notes),
            targetDurationSeconds: try container.decodeIfPresent(Int.self, forKey: .targetDurationSeconds),
            targetDistanceMeters: try container.decodeIfPresent(Int.self, forKey: .targetDistanceMeters),
            section: try container.decodeIfPresent(WorkoutSection.self, forKey: .section) ?? .main,
            circuit: try container.decodeIfPresent(Int.self, forKey: .circuit) ?? 0,
            targetLoad: TemplateLoad(
                weight: try container.decodeIfPresent(Decimal.self, forKey: .targetWeightKg).map(Mass.init(kilograms:))
                    ?? container.decodeIfPresent(Mass.self, forKey: .targetWeight),
                percentOfMax: try container.decodeIfPresent(Decimal.self, forKey: .targetPercentOfMax))
        )
    }
}

/// The load a template item prescribes for each of its sets.
public enum TemplateLoad: Sendable, Equatable {
    /// This weight.
    case weight(Mass)
    /// This percentage (1–120, in steps of 0.5) of the lifter's estimated one-rep max: the best
    /// estimate (Epley, counting reps in reserve) of their sets of the exercise in the
    /// `TemplateLoad.maxWindow` before the workout.
    case percentOfMax(Decimal)

    /// How far back a percentage's maximum is looked for: a max from longer ago is no guide to today.
    public static let maxWindow: TimeInterval = 180 * 86_400

    /// The load of stored columns: a weight, a percentage, or neither.
    public init?(weight: Mass?, percentOfMax: Decimal?) {
        if let weight {
            self = .weight(weight)
        } else if let percentOfMax {
            self = .percentOfMax(percentOfMax)
        } else {
            return nil
        }
    }

    public var weight: Mass? {
        if case .weight(let weight) = self { return weight }
        return nil
    }

    public var percentOfMax: Decimal? {
        if case .percentOfMax(let percent) = self { return percent }
        return nil
    }

    /// The weight to load in `unit` for a maximum of `maxKilograms`: the percentage of it, to the
    /// nearest 2.5 kg or 5 lb (what plates make); a weight as it is where `unit` shows it exactly,
    /// else to the nearest plates too (100 kg for a lifter in pounds is 220 lb, not 220.46, which
    /// would come back as 99.9996 kg).
    public func resolvedWeight(maxKilograms: Double?, unit: WeightUnit) -> Mass? {
        switch self {
        case .weight(let weight):
            return Mass(weight.value(in: unit), unit) == weight
                ? weight : Self.plates(weight.approximateKilograms, unit)
        case .percentOfMax(let percent):
            guard let maxKilograms, maxKilograms > 0 else { return nil }
            return Self.plates(maxKilograms * percent.doubleValue / 100, unit)
        }
    }

    /// `kilograms` to the nearest 2.5 kg or 5 lb in `unit`, at least one step.
    private static func plates(_ kilograms: Double, _ unit: WeightUnit) -> Mass {
        let step = unit == .kg ? 2.5 : 5
        let value = kilograms / (unit == .kg ? 1 : Mass.kilogramsPerPound.doubleValue)
        return Mass(Decimal(max(step, (value / step).rounded() * step)), unit)
    }
}

/// A group of consecutive items done one after another, then again, for `rounds` rounds.
public struct TemplateCircuit: Sendable, Equatable, Codable {
    public var rounds: Int
    /// Rest after each round.
    public var restSeconds: Int

    public init(rounds: Int, restSeconds: Int = 0) {
        self.rounds = rounds
        self.restSeconds = restSeconds
    }
}

/// A template's content, validated.
public struct TemplateContent: Sendable, Equatable, Codable {
    public var name: String
    public var notes: String
    public var items: [TemplateItem]
    /// Circuit k is `circuits[k - 1]`.
    public var circuits: [TemplateCircuit]

    public init(name: String, notes: String = "", items: [TemplateItem], circuits: [TemplateCircuit] = []) {
        self.name = name
        self.notes = notes
        self.items = items
        self.circuits = circuits
    }

    private enum CodingKeys: String, CodingKey { case name, notes, items, circuits }

    /// Snapshots published before circuits existed have none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            notes: try container.decode(String.self, forKey: .notes),
            items: try container.decode([TemplateItem].self, forKey: .items),
            circuits: try container.decodeIfPresent([TemplateCircuit].self, forKey: .circuits) ?? []
        )
    }

    /// This content with the target weights of `stored` wherever an item sends back, for the same
    /// exercise, a stored weight as the API shows it (as `WorkoutContent.keepingWeights(of:)` does
    /// for sets): 45 lb read as 20.41 kg stays 45 lb, also when the items were moved around.
    public func keepingWeights(of stored: TemplateContent) -> TemplateContent {
        var kept = self
        for (index, item) in items.enumerated() {
            guard let sent = item.targetLoad?.weight,
                let weight = stored.items.lazy.filter({ $0.exerciseID == item.exerciseID })
                    .compactMap({ $0.targetLoad?.weight }).first(where: { $0.isShown(as: sent) })
            else { continue }
            kept.items[index].targetLoad = .weight(weight)
        }
        return kept
    }

    /// How many sets `item` plans in all: its target sets in each of its circuit's rounds.
    public func plannedSets(_ item: TemplateItem) -> Int {
        item.targetSets * (item.circuit > 0 ? circuits[item.circuit - 1].rounds : 1)
    }

    /// Today's workout from this template: one set per planned set (a circuit's items once per
    /// round) at the top of the rep range, with the target time, distance, RPE and rest; each
    /// exercise keeps its section and circuit. A prescribed weight is filled in, and a percentage
    /// of the max as that share of `maxes[exercise]` (kilograms) in plates of `unit`; other weights
    /// are left for the lifter.
    public func prefill(
        templateID: TemplateID, startedAt: Date, maxes: [ExerciseID: Double] = [:], unit: WeightUnit = .kg
    ) -> WorkoutContent {
        WorkoutContent(
            name: name,
            startedAt: startedAt,
            durationSeconds: 0,
            notes: "",
            templateID: templateID,
            exercises: items.map { item in
                WorkoutExercise(
                    exerciseID: item.exerciseID,
                    notes: item.notes,
                    sets: Array(
                        repeating: WorkoutSet(
                            reps: item.repsMax,
                            weight: item.targetLoad?.resolvedWeight(maxKilograms: maxes[item.exerciseID], unit: unit),
                            rpe: item.targetRPE,
                            restSeconds: item.restSeconds,
                            type: .working,
                            durationSeconds: item.targetDurationSeconds,
                            distanceMeters: item.targetDistanceMeters
                        ),
                        count: plannedSets(item)
                    ),
                    section: item.section,
                    circuit: item.circuit
                )
            }
        )
    }
}

/// A stored template.
public struct Template: Sendable, Equatable {
    public var id: TemplateID
    public var content: TemplateContent
    public var archivedAt: Date?
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date
    /// Current names of the exercises, by id.
    public var exerciseNames: [ExerciseID: String]

    public init(
        id: TemplateID,
        content: TemplateContent,
        archivedAt: Date?,
        version: Int64,
        createdAt: Date,
        updatedAt: Date,
        exerciseNames: [ExerciseID: String]
    ) {
        self.id = id
        self.content = content
        self.archivedAt = archivedAt
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.exerciseNames = exerciseNames
    }
}

public struct TemplateItemDraft: Sendable, Equatable {
    public var exerciseID: String
    public var targetSets: Int
    public var repsMin: Int
    /// 0 means the same as `repsMin`.
    public var repsMax: Int
    public var targetRPE: Double?
    public var restSeconds: Int?
    public var notes: String
    public var targetDurationSeconds: Int?
    public var targetDistanceMeters: Int?
    /// `nil` means main.
    public var section: WorkoutSection?
    public var circuit: Int
    public var targetWeight: WeightDraft?
    /// Percent of the lifter's estimated one-rep max.
    public var targetPercentOfMax: Double?

    public init(
        exerciseID: String,
        targetSets: Int,
        repsMin: Int,
        repsMax: Int = 0,
        targetRPE: Double? = nil,
        restSeconds: Int? = nil,
        notes: String = "",
        targetDurationSeconds: Int? = nil,
        targetDistanceMeters: Int? = nil,
        section: WorkoutSection? = nil,
        circuit: Int = 0,
        targetWeight: WeightDraft? = nil,
        targetPercentOfMax: Double? = nil
    ) {
        self.exerciseID = exerciseID
        self.targetSets = targetSets
        self.repsMin = repsMin
        self.repsMax = repsMax
        self.targetRPE = targetRPE
        self.restSeconds = restSeconds
        self.notes = notes
        self.targetDurationSeconds = targetDurationSeconds
        self.targetDistanceMeters = targetDistanceMeters
        self.section = section
        self.circuit = circuit
        self.targetWeight = targetWeight
        self.targetPercentOfMax = targetPercentOfMax
    }

    /// The load, or the reasons it is not one, each under `path`'s field (all of them: a bad
    /// weight sent with a percentage is named too).
    func validatedLoad(_ path: String, into validator: inout Validator) -> TemplateLoad? {
        var weight = targetWeight?.validated(path + ".target_weight", into: &validator)
        if weight == .zero {
            validator.add(path + ".target_weight.value", "must be more than 0 (leave target_weight unset for none)")
            weight = nil
        }
        var percent: Decimal?
        if let value = targetPercentOfMax {
            if value >= 1, value <= 120, (value * 2).rounded() == value * 2 {
                percent = Decimal(Int((value * 2).rounded())) / 2
            } else {
                validator.add(path + ".target_percent_of_max", "must be a percentage from 1 to 120, in steps of 0.5")
            }
        }
        if targetWeight != nil, targetPercentOfMax != nil {
            validator.add(
                path + ".target_percent_of_max",
                "must be unset when target_weight is set: prescribe a weight or a percentage of the max, not both")
            return nil
        }
        return TemplateLoad(weight: weight, percentOfMax: percent)
    }
}

/// A template as a client sent it.
public struct TemplateDraft: Sendable, Equatable {
    public var name: String
    public var notes: String
    public var items: [TemplateItemDraft]
    public var circuits: [TemplateCircuit]

    public init(name: String, notes: String = "", items: [TemplateItemDraft], circuits: [TemplateCircuit] = []) {
        self.name = name
        self.notes = notes
        self.items = items
        self.circuits = circuits
    }

    /// The validated content; every bad field is named by its path under `prefix`.
    public func validated(prefix: String = "template.") throws(SpotterError) -> TemplateContent {
        var validator = Validator()
        let name = WorkoutRules.name(name, prefix + "name", into: &validator)
        let notes = WorkoutRules.notes(notes, prefix + "notes", into: &validator)
        validator.check(!items.isEmpty, prefix + "items", "must contain at least one item")
        validator.check(items.count <= 50, prefix + "items", "must contain at most 50 items")
        var validItems: [TemplateItem] = []
        for (index, item) in items.enumerated() {
            let path = "\(prefix)items[\(index)]"
            let before = validator.violations.count
            let id = ExerciseID(item.exerciseID)
            if item.exerciseID.isEmpty {
                validator.add(path + ".exercise_id", "is required")
            } else if id == nil {
                validator.add(path + ".exercise_id", "must be a UUID")
            }
            validator.check((1...20).contains(item.targetSets), path + ".target_sets", "must be between 1 and 20")
            let timed = item.targetDurationSeconds != nil || item.targetDistanceMeters != nil
            if timed {
                validator.check(
                    (0...100).contains(item.repsMin), path + ".reps_min",
                    "must be between 0 and 100 (0: no rep target beside the time or distance)")
            } else {
                validator.check(
                    (1...100).contains(item.repsMin), path + ".reps_min",
                    "must be between 1 and 100 (0 only with a target time or distance)")
            }
            TimedWork.duration(item.targetDurationSeconds, path + ".target_duration_seconds", into: &validator)
            TimedWork.distance(item.targetDistanceMeters, path + ".target_distance_meters", into: &validator)
            validator.check(
                (0...circuits.count).contains(item.circuit), path + ".circuit",
                circuits.isEmpty
                    ? "must be 0: the template has no circuits"
                    : "must be 0 (no circuit) or one of the template's circuits, 1–\(circuits.count)")
            let repsMax = item.repsMax == 0 ? item.repsMin : item.repsMax
            if item.repsMax != 0 {
                validator.check(
                    item.repsMax >= item.repsMin && item.repsMax <= 100, path + ".reps_max",
                    "must be between reps_min and 100")
            }
            let rpe = validatedRPE(item.targetRPE, path + ".target_rpe", into: &validator)
            let load = item.validatedLoad(path, into: &validator)
            if let rest = item.restSeconds {
                validator.check((0...3600).contains(rest), path + ".rest_seconds", "must be between 0 and 3600")
            }
            validator.check(item.notes.storedLength <= 1000, path + ".notes", "must be at most 1000 characters")
            if validator.violations.count == before, let id {
                validItems.append(
                    TemplateItem(
                        exerciseID: id,
                        targetSets: item.targetSets,
                        repsMin: item.repsMin,
                        repsMax: repsMax,
                        targetRPE: rpe,
                        restSeconds: item.restSeconds,
                        notes: item.notes.trimmingWhitespacesAndNewlines(),
                        targetDurationSeconds: item.targetDurationSeconds,
                        targetDistanceMeters: item.targetDistanceMeters,
                        section: item.section ?? .main,
                        circuit: item.circuit,
                        targetLoad: load
                    )
                )
            }
        }
        checkCircuits(prefix, into: &validator)
        try validator.validate()
        return TemplateContent(name: name, notes: notes, items: validItems, circuits: circuits)
    }

    /// Each circuit: rounds and rest in range, at least one item, its items next to each other and
    /// in one section (a circuit is done as one block).
    private func checkCircuits(_ prefix: String, into validator: inout Validator) {
        validator.check(
            circuits.count <= TimedWork.maximumCircuits, prefix + "circuits",
            "must contain at most \(TimedWork.maximumCircuits) circuits")
        for (index, circuit) in circuits.enumerated() {
            let path = "\(prefix)circuits[\(index)]"
            validator.check(
                (1...TimedWork.maximumRounds).contains(circuit.rounds), path + ".rounds",
                "must be between 1 and \(TimedWork.maximumRounds)")
            validator.check(
                (0...3600).contains(circuit.restSeconds), path + ".rest_seconds", "must be between 0 and 3600")
            let members = items.indices.filter { items[$0].circuit == index + 1 }
            guard let first = members.first, let last = members.last else {
                validator.add(path, "has no items (set an item's circuit to \(index + 1))")
                continue
            }
            if last - first + 1 != members.count {
                validator.add(
                    path, "must be consecutive items: items[\(first)] to items[\(last)] are interrupted by others")
            }
            if Set(members.map { items[$0].section ?? .main }).count > 1 {
                validator.add(path, "must have all its items in one section")
            }
        }
    }
}
