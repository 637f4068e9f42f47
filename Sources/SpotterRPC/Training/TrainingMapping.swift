import Foundation
import SpotterCore
import SpotterProto
import SwiftProtobuf

// Spotter's proto enums list the core enum's cases in the same order after UNSPECIFIED = 0, so one
// mapping serves them all (TrainingMappingTests checks every pair by name).
extension CaseIterable where Self: Equatable {
    /// The core case of a proto enum value; `nil` for UNSPECIFIED and unknown values.
    init?<P: SwiftProtobuf.Enum>(proto: P) {
        let cases = Array(Self.allCases)
        let index = proto.rawValue - 1
        guard cases.indices.contains(index) else { return nil }
        self = cases[index]
    }

    /// The core case of a filter's enum: `nil` for UNSPECIFIED (any), `invalidArgument` naming
    /// `field` for a number this server has no value for (rather than no filter at all).
    static func filter<P: SwiftProtobuf.Enum>(_ proto: P, field: String) throws(SpotterError) -> Self? {
        guard proto.rawValue != 0 else { return nil }
        guard let value = Self(proto: proto) else {
            throw .invalid(
                field, "must be one of its values, 1 to \(Self.allCases.count), or unset for any; not \(proto.rawValue)"
            )
        }
        return value
    }

    /// The core case of an enum field whose unset value means `unset` (`nil` then): a number this
    /// server has no value for (from an app built on a newer .proto, or a bug) is recorded as a
    /// violation naming `field` (written only then: a logged workout's sets pass here on every call)
    /// instead of being taken as unset.
    static func unsetMeaning<P: SwiftProtobuf.Enum>(
        _ unset: Self, _ proto: P, _ field: @autoclosure () -> String, into validator: inout Validator
    ) -> Self? {
        known(proto, field(), unset: ", or unset for \(unset.rawText)", into: &validator)
    }

    /// The core case of an enum field, `nil` when unset (the draft's rules then say what unset
    /// means, or that it is required); a number this server has no value for is recorded as a
    /// violation naming `field`, `unset` saying what leaving it out would do.
    static func known<P: SwiftProtobuf.Enum>(
        _ proto: P, _ field: @autoclosure () -> String, unset: @autoclosure () -> String = "",
        into validator: inout Validator
    ) -> Self? {
        guard proto.rawValue != 0 else { return nil }
        guard let value = Self(proto: proto) else {
            validator.add(
                field(), "must be one of its values, 1 to \(Self.allCases.count)\(unset()); not \(proto.rawValue)")
            return nil
        }
        return value
    }

    /// The case as its proto name ends, as messages say it: `warmUp` is "WARM_UP".
    private var rawText: String {
        "\(self)".reduce(into: "") { text, character in
            if character.isUppercase { text += "_" }
            text += character.uppercased()
        }
    }

    func proto<P: SwiftProtobuf.Enum>(_: P.Type = P.self) -> P {
        P(rawValue: Array(Self.allCases).firstIndex(of: self)! + 1)!
    }
}

extension Spotter_V1_Timestamp {
    /// The instant of a request's timestamp field; `invalidArgument` naming `field` outside the
    /// years 1 to 9999. Every timestamp a request carries comes in through here.
    func date(_ field: String) throws(SpotterError) -> Date {
        try UnixMicros.date(unixMicros, field: field)
    }
}

extension Spotter_V1_Weight {
    init(_ mass: Mass, _ unit: WeightUnit) {
        self.init()
        value = mass.doubleValue(in: unit)
        self.unit = unit.proto
    }

    init(kilograms: Double, _ unit: WeightUnit) {
        self.init(Mass(micrograms: Int64((kilograms * 1_000_000).rounded())), unit)
    }

    var draft: WeightDraft { WeightDraft(value: value, unit: WeightUnit(unit)) }
}

extension WorkoutDraft {
    /// The draft a request carries; `invalidArgument` naming every set type and section (under
    /// `prefix`) this server has no value for. The rest is checked by `validated(now:prefix:)`.
    init(_ input: Spotter_V1_WorkoutInput, prefix: String = "workout.") throws(SpotterError) {
        var validator = Validator()
        self.init(
            name: input.name,
            // Any Int64 converts to a Date safely; the draft's rules check the range and name the field.
            startedAt: input.hasStartedAt
                ? Date(timeIntervalSince1970: TimeInterval(input.startedAt.unixMicros) / 1e6) : nil,
            durationSeconds: Int(input.durationSeconds),
            notes: input.notes,
            templateID: input.templateID,
            exercises: input.exercises.enumerated().map { index, exercise in
                WorkoutExerciseDraft(
                    exerciseID: exercise.exerciseID,
                    notes: exercise.notes,
                    sets: exercise.sets.enumerated().map { setIndex, set in
                        SetDraft(set, "\(prefix)exercises[\(index)].sets[\(setIndex)]", into: &validator)
                    },
                    section: .unsetMeaning(
                        .main, exercise.section, "\(prefix)exercises[\(index)].section", into: &validator),
                    circuit: Int(exercise.circuit)
                )
            }
        )
        try validator.validate { () throws(SpotterError) in _ = try self.validated(now: Date(), prefix: prefix) }
    }
}

extension SetDraft {
    /// The set a request carries at `path`; `invalidArgument` naming its type when this server has
    /// no value for it.
    init(_ set: Spotter_V1_SetInput, _ path: @autoclosure () -> String) throws(SpotterError) {
        var validator = Validator()
        self.init(set, path(), into: &validator)
        try validator.validate()
    }

    /// `path` is written only for a refusal.
    init(_ set: Spotter_V1_SetInput, _ path: @autoclosure () -> String, into validator: inout Validator) {
        self.init(
            reps: set.hasReps ? Int(set.reps) : nil,
            weight: set.hasWeight ? set.weight.draft : nil,
            rpe: set.hasRpe ? set.rpe : nil,
            restSeconds: set.hasRestSeconds ? Int(set.restSeconds) : nil,
            note: set.note,
            type: .unsetMeaning(.working, set.type, path() + ".type", into: &validator),
            durationSeconds: set.hasDurationSeconds ? Int(set.durationSeconds) : nil,
            distanceMeters: set.hasDistanceMeters ? Int(set.distanceMeters) : nil
        )
    }
}

extension Spotter_V1_WorkoutInput {
    init(_ content: WorkoutContent, unit: WeightUnit) {
        self.init()
        name = content.name
        startedAt = Spotter_V1_Timestamp(content.startedAt)
        durationSeconds = Int32(content.durationSeconds)
        notes = content.notes
        templateID = content.templateID?.description ?? ""
        exercises = content.exercises.map { exercise in
            .with {
                $0.exerciseID = exercise.exerciseID.description
                $0.notes = exercise.notes
                $0.section = exercise.section.proto()
                $0.circuit = Int32(exercise.circuit)
                $0.sets = exercise.sets.map { set in
                    .with {
                        if let reps = set.statedReps { $0.reps = Int32(reps) }
                        if let weight = set.weight { $0.weight = Spotter_V1_Weight(weight, unit) }
                        if let rpe = set.rpe { $0.rpe = rpe.doubleValue }
                        if let rest = set.restSeconds { $0.restSeconds = Int32(rest) }
                        $0.note = set.note
                        $0.type = set.type.proto()
                        if let seconds = set.durationSeconds { $0.durationSeconds = Int32(seconds) }
                        if let meters = set.distanceMeters { $0.distanceMeters = Int32(meters) }
                    }
                }
            }
        }
    }
}

extension Spotter_V1_WorkoutSummary {
    init(_ summary: WorkoutSummary, unit: WeightUnit) {
        self.init()
        exerciseCount = Int32(summary.exerciseCount)
        setCount = Int32(summary.setCount)
        repCount = Int32(summary.repCount)
        volume = Spotter_V1_Weight(summary.volume, unit)
    }
}

extension Spotter_V1_Workout {
    init(_ workout: Workout, unit: WeightUnit) {
        self.init()
        workoutID = workout.id.description
        name = workout.content.name
        startedAt = Spotter_V1_Timestamp(workout.content.startedAt)
        durationSeconds = Int32(workout.content.durationSeconds)
        notes = workout.content.notes
        templateID = workout.content.templateID?.description ?? ""
        templateVersion = workout.templateVersion ?? 0
        exercises = workout.content.exercises.map { exercise in
            .with {
                $0.exerciseID = exercise.exerciseID.description
                $0.exerciseName = workout.exerciseNames[exercise.exerciseID] ?? ""
                $0.notes = exercise.notes
                $0.sets = exercise.sets.map { Spotter_V1_WorkoutSet($0, unit: unit) }
                $0.section = exercise.section.proto()
                $0.circuit = Int32(exercise.circuit)
            }
        }
        summary = Spotter_V1_WorkoutSummary(workout.summary, unit: unit)
        version = workout.version
        createdAt = Spotter_V1_Timestamp(workout.createdAt)
        updatedAt = Spotter_V1_Timestamp(workout.updatedAt)
    }
}

extension Spotter_V1_WorkoutSet {
    init(_ set: WorkoutSet, unit: WeightUnit) {
        self.init()
        if let reps = set.statedReps { self.reps = Int32(reps) }
        if let weight = set.weight { self.weight = Spotter_V1_Weight(weight, unit) }
        if let rpe = set.rpe { self.rpe = rpe.doubleValue }
        if let rest = set.restSeconds { restSeconds = Int32(rest) }
        note = set.note
        type = set.type.proto()
        if let seconds = set.durationSeconds { durationSeconds = Int32(seconds) }
        if let meters = set.distanceMeters { distanceMeters = Int32(meters) }
    }
}

extension Spotter_V1_Exercise {
    init(_ exercise: Exercise) {
        self.init()
        exerciseID = exercise.id.description
        name = exercise.name
        category = exercise.category.proto()
        muscleGroup = exercise.muscleGroup.proto()
        equipment = exercise.equipment.proto()
        instructions = exercise.instructions
        custom = exercise.isCustom
        archived = exercise.isArchived
        version = exercise.custom?.version ?? 0
    }
}

extension ExerciseDraft {
    /// The draft a request carries; `invalidArgument` naming every category, muscle group or
    /// equipment number (under `prefix`) this server has no value for (unset is "is required", later).
    init(_ input: Spotter_V1_ExerciseInput, prefix: String = "exercise.") throws(SpotterError) {
        var validator = Validator()
        self.init(
            name: input.name,
            category: .known(input.category, prefix + "category", into: &validator),
            muscleGroup: .known(input.muscleGroup, prefix + "muscle_group", into: &validator),
            equipment: .known(input.equipment, prefix + "equipment", into: &validator),
            instructions: input.instructions
        )
        try validator.validate { () throws(SpotterError) in _ = try self.validated(prefix: prefix) }
    }
}

extension Spotter_V1_Template {
    /// The template with its target weights in `unit`, the reader's.
    init(_ template: Template, unit: WeightUnit) {
        self.init()
        templateID = template.id.description
        name = template.content.name
        notes = template.content.notes
        items = template.content.items.map {
            Spotter_V1_TemplateItem($0, exerciseName: template.exerciseNames[$0.exerciseID] ?? "", unit: unit)
        }
        circuits = template.content.circuits.map(Spotter_V1_Circuit.init)
        archived = template.archivedAt != nil
        version = template.version
        createdAt = Spotter_V1_Timestamp(template.createdAt)
        updatedAt = Spotter_V1_Timestamp(template.updatedAt)
    }
}

extension Spotter_V1_Circuit {
    init(_ circuit: TemplateCircuit) {
        self.init()
        rounds = Int32(circuit.rounds)
        restSeconds = Int32(circuit.restSeconds)
    }
}

extension Spotter_V1_TemplateItem {
    init(_ item: TemplateItem, exerciseName: String, unit: WeightUnit) {
        self.init()
        exerciseID = item.exerciseID.description
        self.exerciseName = exerciseName
        targetSets = Int32(item.targetSets)
        repsMin = Int32(item.repsMin)
        repsMax = Int32(item.repsMax)
        if let rpe = item.targetRPE { targetRpe = rpe.doubleValue }
        if let rest = item.restSeconds { restSeconds = Int32(rest) }
        notes = item.notes
        if let seconds = item.targetDurationSeconds { targetDurationSeconds = Int32(seconds) }
        if let meters = item.targetDistanceMeters { targetDistanceMeters = Int32(meters) }
        section = item.section.proto()
        circuit = Int32(item.circuit)
        if let weight = item.targetLoad?.weight { targetWeight = Spotter_V1_Weight(weight, unit) }
        if let percent = item.targetLoad?.percentOfMax { targetPercentOfMax = percent.doubleValue }
    }
}

extension TemplateDraft {
    /// The draft a request carries; `invalidArgument` naming every section (under `prefix`) this
    /// server has no value for. The rest is checked by `validated(prefix:)`.
    init(_ input: Spotter_V1_TemplateInput, prefix: String = "template.") throws(SpotterError) {
        var validator = Validator()
        self.init(
            name: input.name,
            notes: input.notes,
            items: input.items.enumerated().map { index, item in
                TemplateItemDraft(
                    exerciseID: item.exerciseID,
                    targetSets: Int(item.targetSets),
                    repsMin: Int(item.repsMin),
                    repsMax: Int(item.repsMax),
                    targetRPE: item.hasTargetRpe ? item.targetRpe : nil,
                    restSeconds: item.hasRestSeconds ? Int(item.restSeconds) : nil,
                    notes: item.notes,
                    targetDurationSeconds: item.hasTargetDurationSeconds ? Int(item.targetDurationSeconds) : nil,
                    targetDistanceMeters: item.hasTargetDistanceMeters ? Int(item.targetDistanceMeters) : nil,
                    section: .unsetMeaning(.main, item.section, "\(prefix)items[\(index)].section", into: &validator),
                    circuit: Int(item.circuit),
                    targetWeight: item.hasTargetWeight ? item.targetWeight.draft : nil,
                    targetPercentOfMax: item.hasTargetPercentOfMax ? item.targetPercentOfMax : nil
                )
            },
            circuits: input.circuits.map { TemplateCircuit(rounds: Int($0.rounds), restSeconds: Int($0.restSeconds)) }
        )
        try validator.validate()
    }
}

extension RequestContext {
    /// The signed-in tenant's context, as authentication read it.
    static func tenant() throws -> (Principal, TenantContext) {
        let principal = try principal()
        guard let tenant = principal.tenant else {
            throw SpotterError.unavailable("the tenant's settings could not be read; try again")
        }
        return (principal, tenant)
    }
}
