import Foundation

/// Matches the exercise names other apps write to the catalog and the lifter's own exercises,
/// creating a custom exercise for a name nothing matches. The rules, in order (README "Export and
/// import"):
/// 1. the same name, ignoring case, spaces and punctuation ("Pull Up" is "Pull-Up");
/// 2. Strong's and Hevy's "Name (Equipment)": "Equipment Name" ("Curl (Barbell)" is "Barbell
///    Curl"), then "Name" when that exercise uses the equipment ("Lat Pulldown (Cable)");
/// 3. a few names those apps use for catalog lifts ("Squat (Barbell)" is "Barbell Back Squat").
struct ExerciseResolver {
    private let tenant: TenantID
    private var byKey: [String: Exercise] = [:]
    /// The catalog's exercises alone, for "Name (Equipment)" when the lifter's own "Name" uses
    /// other equipment.
    private var catalogByKey: [String: Exercise] = [:]
    /// Every exercise by its name's words made singular (`singularKey`).
    private var bySingular: [String: Exercise] = [:]
    private var ids: Set<ExerciseID> = []
    private var resolved: [String: ExerciseID] = [:]
    /// Names of the custom exercises created while resolving, in order.
    private(set) var created: [String] = []

    /// Other apps' names for catalog exercises, by normalized key.
    private static let aliases: [String: String] = [
        "squatbarbell": "Barbell Back Squat",
        "backsquatbarbell": "Barbell Back Squat",
        "benchpressbarbell": "Barbell Bench Press",
        "deadliftbarbell": "Barbell Deadlift",
        "bentoverrowbarbell": "Barbell Row",
        "overheadpressbarbell": "Overhead Press",
        "strictmilitarypress": "Overhead Press",
        "militarypress": "Overhead Press",
        "hipthrustbarbell": "Barbell Hip Thrust",
        "inclinebenchpressbarbell": "Incline Bench Press",
        "benchpressdumbbell": "Dumbbell Bench Press",
        "inclinebenchpressdumbbell": "Incline Dumbbell Press",
        "shoulderpressdumbbell": "Dumbbell Shoulder Press",
        "lateralraisedumbbell": "Lateral Raise",
        "bicepcurldumbbell": "Dumbbell Curl",
        "bicepcurlbarbell": "Barbell Curl",
        "tricepspushdowncable": "Triceps Pushdown",
        "triceppushdown": "Triceps Pushdown",
        "legpressmachine": "Leg Press",
        "legextensionmachine": "Leg Extension",
        "seatedrowcable": "Seated Cable Row",
        "pullupassisted": "Assisted Pull-Up",
        // Their names for the variations the catalog gained (0062).
        "benchpresspaused": "Pause Bench Press",
        "benchpresspausedbarbell": "Pause Bench Press",
        "pausedbenchpress": "Pause Bench Press",
        "pausedbenchpressbarbell": "Pause Bench Press",
        "deadliftpaused": "Pause Deadlift",
        "straightlegdeadlift": "Stiff-Leg Deadlift",
        "straightlegdeadliftbarbell": "Stiff-Leg Deadlift",
        "deadlifttrapbar": "Trap Bar Deadlift",
        "hexbardeadlift": "Trap Bar Deadlift",
        "ezbarbicepscurl": "EZ-Bar Curl",
        "ezbarcurlbarbell": "EZ-Bar Curl",
        "abwheel": "Ab Wheel Rollout",
        "abwheelrollout": "Ab Wheel Rollout",
        "safetysquatbarsquat": "Safety Bar Squat",
        "ssbsquat": "Safety Bar Squat",
        "chestsupportedinclinerowdumbbell": "Chest-Supported Dumbbell Row",
        "beltsquatmachine": "Belt Squat",
        "exercisebike": "Stationary Bike",
        "indoorcycling": "Stationary Bike",
        "cyclingindoor": "Stationary Bike",
        "spinbike": "Stationary Bike",
        "rowingmachine": "Rowing Machine",
        "rower": "Rowing Machine",
        // Strong's and Hevy's runs are Spotter's Run (cardio), where time and distance belong.
        "running": "Run",
        "runningtreadmill": "Run",
        "treadmill": "Run",
        "treadmillrun": "Run",
        "outdoorrun": "Run",
        "jogging": "Run",
    ]

    init(tenant: TenantID, index: [Exercise]) {
        self.tenant = tenant
        for exercise in index { add(exercise) }
    }

    func has(_ id: ExerciseID) -> Bool { ids.contains(id) }

    mutating func add(_ exercise: Exercise) {
        ids.insert(exercise.id)
        let key = Self.key(exercise.name)
        if exercise.custom == nil, catalogByKey[key] == nil { catalogByKey[key] = exercise }
        let singular = Self.singularKey(exercise.name)
        if bySingular[singular].map({ rank($0, key: key) < rank(exercise, key: key) }) ?? true {
            bySingular[singular] = exercise
        }
        if let held = byKey[key], rank(held, key: key) >= rank(exercise, key: key) { return }
        byKey[key] = exercise
    }

    /// Which of two exercises of one name an import means: the custom exercise an earlier import
    /// made for it (the catalog has grown since, "Box Squat", and the lifter's imported history of
    /// it stays on one exercise) unless the lifter archived it, then the catalog's, then another
    /// custom exercise of that name.
    private func rank(_ exercise: Exercise, key: String) -> Int {
        guard let custom = exercise.custom else { return 1 }
        return exercise.id == Self.importedID(tenant, key: key) && custom.archivedAt == nil ? 2 : 0
    }

    /// The id an import gives the custom exercise it makes for a name (`key`), so the next finds it.
    private static func importedID(_ tenant: TenantID, key: String) -> ExerciseID {
        .derived(tenant, "exercise", key, namespace: "spotter-import")
    }

    /// The exercise an entry names: its own id when the account has it, else by name, else a
    /// new custom exercise (its id derived from the name, so a second import finds it).
    mutating func resolve(_ entry: ImportedWorkout.Entry, principal: Principal, exercises: ExerciseService)
        async throws -> ExerciseID
    {
        if let id = entry.exerciseID, has(id) { return id }
        // A file names the same few exercises thousands of times.
        if let known = resolved[entry.name] { return known }
        let id = try await resolveByName(entry, principal: principal, exercises: exercises)
        resolved[entry.name] = id
        return id
    }

    private mutating func resolveByName(
        _ entry: ImportedWorkout.Entry, principal: Principal, exercises: ExerciseService
    ) async throws -> ExerciseID {
        if let match = match(entry.name) { return match.id }
        let name = entry.name.trimmingWhitespacesAndNewlines()
        let id = Self.importedID(principal.tenantID, key: Self.key(name))
        let draft = ExerciseDraft(
            name: name.isEmpty ? "Imported exercise" : name.prefix(storedLength: 100), category: .isolation,
            muscleGroup: .fullBody, equipment: Self.equipment(in: name) ?? .other,
            instructions: "Created by an import.")
        let exercise: Exercise
        do {
            exercise = try await exercises.get(principal, id.description)
        } catch SpotterError.notFound {
            do {
                exercise = try await exercises.create(principal, id: id.description, draft)
            } catch SpotterError.alreadyExists {
                // The lifter deleted the one an earlier import created: make a new one.
                exercise = try await exercises.create(principal, id: "", draft)
            }
            created.append(exercise.name)
        }
        add(exercise)
        byKey[Self.key(name)] = exercise
        return exercise.id
    }

    func match(_ name: String) -> Exercise? {
        let key = Self.key(name)
        if let exercise = byKey[key] { return exercise }
        if let (base, equipmentText) = Self.splitEquipment(name) {
            if let exercise = byKey[Self.key(equipmentText + " " + base)] { return exercise }
            for exercise in [byKey[Self.key(base)], catalogByKey[Self.key(base)]].compactMap(\.self)
            where exercise.equipment == Self.equipment(in: name) {
                return exercise
            }
        }
        if let alias = Self.aliases[key] { return byKey[Self.key(alias)] }
        // A plural for the singular a name has ("Dips" is Dip, "Pull Ups" is Pull-Up), as the
        // exercise search reads one.
        return bySingular[Self.singularKey(name)]
    }

    /// The name's key with each word singular ("Pull Ups" → "pullup").
    static func singularKey(_ name: String) -> String {
        name.split(whereSeparator: { $0.isWhitespace || $0 == "-" }).map {
            ExerciseSearch.singular(ExerciseSearch.key(String($0)))
        }.joined()
    }

    /// Lower-case letters and digits only.
    static func key(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }

    /// "Bench Press (Barbell)" → ("Bench Press", "Barbell").
    private static func splitEquipment(_ name: String) -> (String, String)? {
        guard name.hasSuffix(")"), let open = name.lastIndex(of: "(") else { return nil }
        let base = name[..<open].trimmingWhitespaces()
        let inside = name[name.index(after: open)..<name.index(before: name.endIndex)]
        return base.isEmpty ? nil : (base, String(inside))
    }

    /// The equipment a "Name (Equipment)" names.
    static func equipment(in name: String) -> Equipment? {
        guard let (_, text) = splitEquipment(name) else { return nil }
        switch key(text) {
        case "barbell", "ezbar", "trapbar": return .barbell
        case "dumbbell": return .dumbbell
        case "machine", "smithmachine", "plateloaded": return .machine
        case "cable": return .cable
        case "bodyweight", "weightedbodyweight", "assistedbodyweight", "assisted": return .bodyweight
        case "kettlebell": return .kettlebell
        case "band", "resistanceband": return .band
        default: return .other
        }
    }
}
