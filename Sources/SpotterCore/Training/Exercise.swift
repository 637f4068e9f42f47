import Foundation

/// An exercise: built-in (catalog) or a tenant's custom one.
public struct ExerciseID: EntityID {
    public let rawValue: UUID
    public init(rawValue: UUID) { self.rawValue = rawValue }

    /// Built-in exercises have ids `c0000000-0000-4000-8000-…` (migration 0007); custom ones never do.
    public var isCatalog: Bool { description.hasPrefix("c0000000-0000-4000-8000-") }
}

/// The movement pattern; `isolation` for single-joint movements.
public enum ExerciseCategory: String, Sendable, Codable, CaseIterable {
    case squat, hinge, lunge, push, pull, carry, core, isolation
    /// Runs (the catalog's Run) and other conditioning.
    case cardio
}

public enum MuscleGroup: String, Sendable, Codable, CaseIterable {
    case chest, back, shoulders, biceps, triceps, forearms, quadriceps, hamstrings, glutes, calves, abs, traps
    case lowerBack = "lower_back"
    case fullBody = "full_body"
}

public enum Equipment: String, Sendable, Codable, CaseIterable {
    case barbell, dumbbell, machine, cable, bodyweight, kettlebell, band, other
}

/// The three lifts the free tier gets progress for.
public enum BigThreeLift: String, Sendable, Codable, CaseIterable {
    case squat
    case benchPress = "bench_press"
    case deadlift
}

public struct Exercise: Sendable, Equatable, Codable {
    public var id: ExerciseID
    public var name: String
    public var category: ExerciseCategory
    public var muscleGroup: MuscleGroup
    public var equipment: Equipment
    public var instructions: String
    /// `nil` for built-in exercises.
    public var custom: CustomExercise?
    /// Set on the built-in squat, bench press and deadlift.
    public var bigThree: BigThreeLift?

    public init(
        id: ExerciseID,
        name: String,
        category: ExerciseCategory,
        muscleGroup: MuscleGroup,
        equipment: Equipment,
        instructions: String,
        custom: CustomExercise? = nil,
        bigThree: BigThreeLift? = nil
    ) {
        self.id = id
        self.name = name
        self.category = category
        self.muscleGroup = muscleGroup
        self.equipment = equipment
        self.instructions = instructions
        self.custom = custom
        self.bigThree = bigThree
    }

    public var isCustom: Bool { custom != nil }
    public var isArchived: Bool { custom?.archivedAt != nil }

    /// The input that would produce this exercise's fields.
    public var input: ExerciseInput {
        ExerciseInput(
            name: name,
            category: category,
            muscleGroup: muscleGroup,
            equipment: equipment,
            instructions: instructions
        )
    }
}

/// What a custom exercise has beyond the catalog fields.
public struct CustomExercise: Sendable, Equatable, Codable {
    public var archivedAt: Date?
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public init(archivedAt: Date?, version: Int64, createdAt: Date, updatedAt: Date) {
        self.archivedAt = archivedAt
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// The editable fields of a custom exercise, validated.
public struct ExerciseInput: Sendable, Equatable, Codable {
    public var name: String
    public var category: ExerciseCategory
    public var muscleGroup: MuscleGroup
    public var equipment: Equipment
    public var instructions: String

    public init(
        name: String,
        category: ExerciseCategory,
        muscleGroup: MuscleGroup,
        equipment: Equipment,
        instructions: String
    ) {
        self.name = name
        self.category = category
        self.muscleGroup = muscleGroup
        self.equipment = equipment
        self.instructions = instructions
    }
}

/// An exercise input as a client sent it: every field may be missing.
public struct ExerciseDraft: Sendable, Equatable {
    public var name: String
    public var category: ExerciseCategory?
    public var muscleGroup: MuscleGroup?
    public var equipment: Equipment?
    public var instructions: String

    public init(
        name: String,
        category: ExerciseCategory?,
        muscleGroup: MuscleGroup?,
        equipment: Equipment?,
        instructions: String
    ) {
        self.name = name
        self.category = category
        self.muscleGroup = muscleGroup
        self.equipment = equipment
        self.instructions = instructions
    }

    /// The validated input; every bad field is reported under `prefix`.
    public func validated(prefix: String = "exercise.") throws(SpotterError) -> ExerciseInput {
        // Runs of spaces inside the name count as one: a page shows "Zercher   Squat" as "Zercher
        // Squat", so two such names could not be told apart.
        let name = name.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let instructions = instructions.trimmingWhitespacesAndNewlines()
        var validator = Validator()
        validator.check(!name.isEmpty, prefix + "name", "is required")
        validator.check(name.storedLength <= 100, prefix + "name", "must be at most 100 characters")
        if let problem = CredentialRules.visibleTextProblem(name) { validator.add(prefix + "name", problem) }
        validator.check(category != nil, prefix + "category", "is required")
        validator.check(muscleGroup != nil, prefix + "muscle_group", "is required")
        validator.check(equipment != nil, prefix + "equipment", "is required")
        validator.check(instructions.storedLength <= 300, prefix + "instructions", "must be at most 300 characters")
        try validator.validate()
        return ExerciseInput(
            name: name,
            category: category!,
            muscleGroup: muscleGroup!,
            equipment: equipment!,
            instructions: instructions
        )
    }
}

/// Which exercises a listing returns.
public struct ExerciseFilter: Sendable, Equatable {
    public var category: ExerciseCategory?
    public var muscleGroup: MuscleGroup?
    public var equipment: Equipment?
    public var customOnly: Bool
    public var includeArchived: Bool
    /// The search text, lower-cased; empty matches every name (`searchAlternatives` says how).
    public var query: String

    public init(
        category: ExerciseCategory? = nil,
        muscleGroup: MuscleGroup? = nil,
        equipment: Equipment? = nil,
        customOnly: Bool = false,
        includeArchived: Bool = false,
        query: String = ""
    ) {
        self.category = category
        self.muscleGroup = muscleGroup
        self.equipment = equipment
        self.customOnly = customOnly
        self.includeArchived = includeArchived
        self.query = query
    }

    /// How `query` matches a name: each alternative is a list of words that must all be in the
    /// name, spaces and punctuation left out of both (`ExerciseSearch.key`): "pull up", "pullup" and
    /// "Pull-Up" match, "squat back" finds "Barbell Back Squat"; a plural finds the singular
    /// ("squats", "pull ups"). A word of one or two letters, or gym shorthand as typed, must be a
    /// word of the name (`^` before it): "db" is not in "Dead Bug", nor "bb" in "Dumbbell", nor "t"
    /// the start of "Thrust". Shorthand is also an alternative spelled out: "rdl" finds "Romanian
    /// Deadlift", "db row" "Dumbbell Row". Empty for no query.
    public var searchAlternatives: [[String]] {
        let words = query.split(whereSeparator: \.isWhitespace).map { ExerciseSearch.key(String($0)) }
            .filter { !$0.isEmpty }.map(ExerciseSearch.singular)
        guard !words.isEmpty else { return [] }
        let literal = words.map { ExerciseSearch.shorthand[$0] != nil || $0.count <= 2 ? "^" + $0 : $0 }
        let spelledOut = words.flatMap { ExerciseSearch.shorthand[$0] ?? [$0] }
        return spelledOut == words ? [literal] : [literal, spelledOut]
    }

    /// The filter as a page token's query (`PageToken.cursor(_:from:query:)`): each field written
    /// out, so a token made by one spotterd reads the same in another.
    public var tokenQuery: [String] {
        [
            category?.rawValue ?? "", muscleGroup?.rawValue ?? "", equipment?.rawValue ?? "", String(customOnly),
            String(includeArchived), query,
        ]
    }
}

/// How exercise names are searched (`ExerciseFilter.searchAlternatives`).
public enum ExerciseSearch {
    /// `text` lower-cased without whitespace, punctuation or symbols ("Pull-Up" → "pullup",
    /// "Farmer’s" → "farmers"), as the database's `regexp_replace(lower(name),
    /// '[[:space:][:punct:]]+', '', 'g')` has a name.
    public static func key(_ text: String) -> String {
        String(
            text.lowercased().unicodeScalars.filter {
                !$0.properties.isWhitespace && !$0.properties.generalCategory.isPunctuationOrSymbol
            }.map(Character.init))
    }

    /// `word` as its singular, which a name has as often ("squats", "pull ups", "presses",
    /// "crunches", "flies"): "-sses", "-xes", "-ches" and "-shes" lose "es", "-ies" is "-y", another
    /// "-s" goes ("ss" stays: "press"). Shorthand stays as it is ("rdls" is its own).
    static func singular(_ word: String) -> String {
        guard word.count >= 3, word.hasSuffix("s"), shorthand[word] == nil else { return word }
        if ["sses", "xes", "ches", "shes"].contains(where: word.hasSuffix) { return String(word.dropLast(2)) }
        if word.hasSuffix("ies"), word.count > 4 { return String(word.dropLast(3)) + "y" }
        return word.hasSuffix("ss") ? word : String(word.dropLast())
    }

    /// Gym shorthand and the words it stands for.
    static let shorthand: [String: [String]] = [
        "rdl": ["romanian", "deadlift"], "rdls": ["romanian", "deadlift"], "sldl": ["stiff", "leg", "deadlift"],
        "ohp": ["overhead", "press"], "cgbp": ["close", "grip", "bench"], "ssb": ["safety", "bar"],
        "db": ["dumbbell"], "bb": ["barbell"], "kb": ["kettlebell"],
        "dl": ["deadlift"], "bp": ["bench", "press"],
    ]
}

extension Unicode.GeneralCategory {
    /// Punctuation or a symbol (`-`, `'`, `(`, `+`, `&` …): what a name's key leaves out.
    fileprivate var isPunctuationOrSymbol: Bool {
        switch self {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            true
        default: false
        }
    }
}
