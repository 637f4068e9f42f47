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

    public init(
        exerciseID: ExerciseID,
        targetSets: Int,
        repsMin: Int,
        repsMax: Int,
        targetRPE: Decimal? = nil,
        restSeconds: Int? = nil,
        notes: String = ""
    ) {
        self.exerciseID = exerciseID
        self.targetSets = targetSets
        self.repsMin = repsMin
        self.repsMax = repsMax
        self.targetRPE = targetRPE
        self.restSeconds = restSeconds
        self.notes = notes
    }
}

/// A template's content, validated.
public struct TemplateContent: Sendable, Equatable, Codable {
    public var name: String
    public var notes: String
    public var items: [TemplateItem]

    public init(name: String, notes: String = "", items: [TemplateItem]) {
        self.name = name
        self.notes = notes
        self.items = items
    }

    /// Today's workout from this template: one set per target set at the top of the rep range,
    /// with the target RPE and rest. Weights are left for the lifter.
    public func prefill(templateID: TemplateID, startedAt: Date) -> WorkoutContent {
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
                            weight: nil,
                            rpe: item.targetRPE,
                            restSeconds: item.restSeconds,
                            type: .working
                        ),
                        count: item.targetSets
                    )
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

    public init(
        exerciseID: String,
        targetSets: Int,
        repsMin: Int,
        repsMax: Int = 0,
        targetRPE: Double? = nil,
        restSeconds: Int? = nil,
        notes: String = ""
    ) {
        self.exerciseID = exerciseID
        self.targetSets = targetSets
        self.repsMin = repsMin
        self.repsMax = repsMax
        self.targetRPE = targetRPE
        self.restSeconds = restSeconds
        self.notes = notes
    }
}

/// A template as a client sent it.
public struct TemplateDraft: Sendable, Equatable {
    public var name: String
    public var notes: String
    public var items: [TemplateItemDraft]

    public init(name: String, notes: String = "", items: [TemplateItemDraft]) {
        self.name = name
        self.notes = notes
        self.items = items
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
            validator.check((1...100).contains(item.repsMin), path + ".reps_min", "must be between 1 and 100")
            let repsMax = item.repsMax == 0 ? item.repsMin : item.repsMax
            if item.repsMax != 0 {
                validator.check(
                    item.repsMax >= item.repsMin && item.repsMax <= 100, path + ".reps_max",
                    "must be between reps_min and 100")
            }
            let rpe = validatedRPE(item.targetRPE, path + ".target_rpe", into: &validator)
            if let rest = item.restSeconds {
                validator.check((0...3600).contains(rest), path + ".rest_seconds", "must be between 0 and 3600")
            }
            validator.check(item.notes.count <= 1000, path + ".notes", "must be at most 1000 characters")
            if validator.violations.count == before, let id {
                validItems.append(
                    TemplateItem(
                        exerciseID: id,
                        targetSets: item.targetSets,
                        repsMin: item.repsMin,
                        repsMax: repsMax,
                        targetRPE: rpe,
                        restSeconds: item.restSeconds,
                        notes: item.notes.trimmingCharacters(in: .whitespacesAndNewlines)
                    )
                )
            }
        }
        try validator.validate()
        return TemplateContent(name: name, notes: notes, items: validItems)
    }
}
