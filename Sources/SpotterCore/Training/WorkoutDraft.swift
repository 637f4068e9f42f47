import Foundation

/// A weight as a client sent it.
public struct WeightDraft: Sendable, Equatable {
    public var value: Double
    public var unit: WeightUnit?

    public init(value: Double, unit: WeightUnit?) {
        self.value = value
        self.unit = unit
    }

    /// `mass` as a client would send it back: in the unit it was entered in (the one that shows it
    /// exactly to 2 decimals), so it validates to the same mass.
    public init(sending mass: Mass) {
        let unit = WeightUnit.allCases.first { Mass(mass.value(in: $0), $0) == mass } ?? .kg
        self.init(value: mass.doubleValue(in: unit), unit: unit)
    }

    /// The exact mass, or the reasons it is not one (reported under `field`).
    func validated(_ field: String, into validator: inout Validator) -> Mass? {
        guard let unit else {
            validator.add(field + ".unit", "must be set to KG or LB")
            // The value is judged too, by what holds in either unit (pounds allow the larger number).
            _ = WeightDraft(value: value, unit: .lb).validated(field, into: &validator)
            return nil
        }
        if let mass = Self.hundredthsMass(value, unit) {
            guard mass <= Mass.maximum else {
                validator.add(field + ".value", "must be at most 2000 kg (4409.24 lb)")
                return nil
            }
            return mass
        }
        // A finite number too large for a Decimal (1e300) is too heavy, not "not a number".
        if value.isFinite, value > 10_000 {
            validator.add(field + ".value", "must be at most 2000 kg (4409.24 lb)")
            return nil
        }
        guard let value = Decimal(exactly: value), value >= 0 else {
            validator.add(field + ".value", "must be a finite number of at least 0")
            return nil
        }
        guard value.fractionDigits <= 2 else {
            validator.add(field + ".value", "must have at most 2 decimal places")
            return nil
        }
        guard value <= 10_000, case let mass = Mass(value, unit), mass <= Mass.maximum else {
            validator.add(field + ".value", "must be at most 2000 kg (4409.24 lb)")
            return nil
        }
        return mass
    }

    /// The mass of a `value` from 0 to 10,000 with at most two decimal places, in integers
    /// (`Decimal(exactly:)` parses the number's text: a tenth of a logged workout's validation);
    /// `nil` for anything else, which the `Decimal` path above judges. Two decimal places means
    /// `value` is the `Double` nearest to hundredths / 100 — so its shortest form, which
    /// `Decimal(exactly:)` reads, is that number — and then the result is the same: kilograms
    /// × 10⁶ exactly, or pounds × 0.45359237 × 10⁶ rounded half up.
    static func hundredthsMass(_ value: Double, _ unit: WeightUnit) -> Mass? {
        guard value.isFinite, value >= 0, value <= 10_000 else { return nil }
        let hundredths = (value * 100).rounded()
        guard hundredths / 100 == value else { return nil }
        let whole = Int64(hundredths)
        switch unit {
        case .kg: return Mass(micrograms: whole * 10_000)
        // hundredths of a pound × 45,359,237 is kilograms × 10¹⁰.
        case .lb: return Mass(micrograms: (whole * 45_359_237 + 5_000) / 10_000)
        }
    }
}

/// An RPE as a client sent it: 1–10 in steps of 0.5.
func validatedRPE(_ rpe: Double?, _ field: String, into validator: inout Validator) -> Decimal? {
    guard let rpe else { return nil }
    guard rpe >= 1, rpe <= 10, (rpe * 2).rounded() == rpe * 2 else {
        validator.add(field, "must be between 1 and 10 in steps of 0.5")
        return nil
    }
    // Exactly the decimal `Decimal(exactly:)` reads from its text, without the text (0.7 µs a set).
    let halves = Int((rpe * 2).rounded())
    return halves % 2 == 0 ? Decimal(halves / 2) : Decimal(sign: .plus, exponent: -1, significand: Decimal(halves * 5))
}

/// A set as a client sent it.
public struct SetDraft: Sendable, Equatable {
    public var reps: Int?
    public var weight: WeightDraft?
    public var rpe: Double?
    public var restSeconds: Int?
    public var note: String
    /// `nil` means working.
    public var type: SetType?
    public var durationSeconds: Int?
    public var distanceMeters: Int?

    public init(
        reps: Int?,
        weight: WeightDraft? = nil,
        rpe: Double? = nil,
        restSeconds: Int? = nil,
        note: String = "",
        type: SetType? = nil,
        durationSeconds: Int? = nil,
        distanceMeters: Int? = nil
    ) {
        self.reps = reps
        self.weight = weight
        self.rpe = rpe
        self.restSeconds = restSeconds
        self.note = note
        self.type = type
        self.durationSeconds = durationSeconds
        self.distanceMeters = distanceMeters
    }
}

public struct WorkoutExerciseDraft: Sendable, Equatable {
    public var exerciseID: String
    public var notes: String
    public var sets: [SetDraft]
    /// `nil` means main.
    public var section: WorkoutSection?
    public var circuit: Int

    public init(
        exerciseID: String,
        notes: String = "",
        sets: [SetDraft],
        section: WorkoutSection? = nil,
        circuit: Int = 0
    ) {
        self.exerciseID = exerciseID
        self.notes = notes
        self.sets = sets
        self.section = section
        self.circuit = circuit
    }
}

/// A workout as a client sent it: nothing checked yet.
public struct WorkoutDraft: Sendable, Equatable {
    public var name: String
    public var startedAt: Date?
    public var durationSeconds: Int
    public var notes: String
    public var templateID: String
    public var exercises: [WorkoutExerciseDraft]

    public init(
        name: String,
        startedAt: Date?,
        durationSeconds: Int,
        notes: String = "",
        templateID: String = "",
        exercises: [WorkoutExerciseDraft]
    ) {
        self.name = name
        self.startedAt = startedAt
        self.durationSeconds = durationSeconds
        self.notes = notes
        self.templateID = templateID
        self.exercises = exercises
    }

    /// The validated content. Every offending field is reported at once, by its path under
    /// `prefix` (`workout.exercises[2].sets[0].rpe`), so a client can fix them all in one go.
    public func validated(now: Date, prefix: String = "workout.") throws(SpotterError) -> WorkoutContent {
        var validator = Validator()
        let name = WorkoutRules.name(name, prefix + "name", into: &validator)
        let startedAt = WorkoutRules.startedAt(startedAt, now: now, prefix + "started_at", into: &validator)
        WorkoutRules.duration(durationSeconds, prefix + "duration_seconds", into: &validator)
        let notes = WorkoutRules.notes(notes, prefix + "notes", into: &validator)
        let templateID = TemplateID(self.templateID)
        validator.check(
            self.templateID.isEmpty || templateID != nil, prefix + "template_id", "must be a UUID or empty")
        validator.check(!exercises.isEmpty, prefix + "exercises", "must contain at least one exercise")
        validator.check(exercises.count <= 100, prefix + "exercises", "must contain at most 100 exercises")

        var entries: [WorkoutExercise] = []
        for (index, exercise) in exercises.enumerated() {
            let path = "\(prefix)exercises[\(index)]"
            let id = ExerciseID(exercise.exerciseID)
            if exercise.exerciseID.isEmpty {
                validator.add(path + ".exercise_id", "is required")
            } else if id == nil {
                validator.add(path + ".exercise_id", "must be a UUID")
            }
            validator.check(exercise.notes.storedLength <= 1000, path + ".notes", "must be at most 1000 characters")
            validator.check(!exercise.sets.isEmpty, path + ".sets", "must contain at least one set")
            validator.check(exercise.sets.count <= 100, path + ".sets", "must contain at most 100 sets")
            validator.check(
                (0...TimedWork.maximumCircuits).contains(exercise.circuit), path + ".circuit",
                "must be between 0 (no circuit) and \(TimedWork.maximumCircuits)")
            var sets: [WorkoutSet] = []
            for (setIndex, set) in exercise.sets.enumerated() {
                if let set = Self.validated(set, "\(path).sets[\(setIndex)]", into: &validator) { sets.append(set) }
            }
            if let id {
                entries.append(
                    WorkoutExercise(
                        exerciseID: id,
                        notes: exercise.notes.trimmingWhitespacesAndNewlines(),
                        sets: sets,
                        section: exercise.section ?? .main,
                        circuit: exercise.circuit
                    )
                )
            }
        }
        let content =
            validator.violations.isEmpty
            ? WorkoutContent(
                name: name, startedAt: startedAt!, durationSeconds: durationSeconds, notes: notes,
                templateID: templateID, exercises: entries)
            : nil
        // Each set is within bounds, but a hundred exercises of a hundred such sets are not a
        // workout: the total the history keeps has room for 99,999,999 kg.
        if let volume = content?.summary.volume, volume > Self.maximumVolume {
            validator.add(
                prefix + "exercises",
                "come to a volume of \(DisplayFormat.grouped(volume.value(in: .kg).rounded(scale: 0))) kg, "
                    + "more than a workout can hold (99,999,999 kg): check the reps and weights")
        }
        try validator.validate()
        return content!
    }

    /// The most a workout's volume may be (the stored total's precision).
    static let maximumVolume = Mass(micrograms: 99_999_999_000_000)

    static func validated(_ set: SetDraft, _ path: String, into validator: inout Validator) -> WorkoutSet? {
        let before = validator.violations.count
        let timed = set.durationSeconds != nil || set.distanceMeters != nil
        if let reps = set.reps {
            validator.check((0...1000).contains(reps), path + ".reps", "must be between 0 and 1000")
        } else if !timed {
            validator.add(path + ".reps", "is required unless the set has a duration or a distance")
        }
        TimedWork.duration(set.durationSeconds, path + ".duration_seconds", into: &validator)
        TimedWork.distance(set.distanceMeters, path + ".distance_meters", into: &validator)
        let weight = set.weight?.validated(path + ".weight", into: &validator)
        let rpe = validatedRPE(set.rpe, path + ".rpe", into: &validator)
        if let rest = set.restSeconds {
            validator.check((0...3600).contains(rest), path + ".rest_seconds", "must be between 0 and 3600")
        }
        validator.check(set.note.storedLength <= 1000, path + ".note", "must be at most 1000 characters")
        guard validator.violations.count == before else { return nil }
        return WorkoutSet(
            reps: set.reps ?? 0,
            weight: weight,
            rpe: rpe,
            restSeconds: set.restSeconds,
            note: set.note.trimmingWhitespacesAndNewlines(),
            type: set.type ?? .working,
            durationSeconds: set.durationSeconds,
            distanceMeters: set.distanceMeters
        )
    }
}

/// The field rules shared by a whole workout and a patch of it.
enum WorkoutRules {
    /// Clients log offline and clocks drift, so a start a little in the future is accepted.
    static let futureTolerance: TimeInterval = 24 * 3600

    static func name(_ name: String, _ field: String, into validator: inout Validator) -> String {
        let name = name.trimmingWhitespacesAndNewlines()
        validator.check(!name.isEmpty, field, "is required")
        validator.check(name.storedLength <= 100, field, "must be at most 100 characters")
        if let problem = CredentialRules.visibleTextProblem(name) { validator.add(field, problem) }
        return name
    }

    static func startedAt(_ date: Date?, now: Date, _ field: String, into validator: inout Validator) -> Date? {
        // A client that leaves its default Timestamp in place sends 0: that is no start, not 1970.
        guard let date, date.timeIntervalSince1970 != 0 else {
            validator.add(field, date == nil ? "is required" : "must be set: unix_micros 0 is an unset timestamp")
            return nil
        }
        validator.check(date.timeIntervalSince1970 > 0, field, "must not be before 1970")
        validator.check(
            date <= now.addingTimeInterval(futureTolerance), field, "must not be more than a day in the future")
        return date
    }

    static func duration(_ seconds: Int, _ field: String, into validator: inout Validator) {
        validator.check((0...86_400).contains(seconds), field, "must be between 0 and 86400 seconds")
    }

    static func notes(_ notes: String, _ field: String, into validator: inout Validator) -> String {
        let notes = notes.trimmingWhitespacesAndNewlines()
        validator.check(notes.storedLength <= 5000, field, "must be at most 5000 characters")
        return notes
    }
}

extension WorkoutPatch {
    /// Checks the fields that are set, by the same rules as a whole workout.
    public func validated(now: Date) throws(SpotterError) -> WorkoutPatch {
        var validator = Validator()
        var patch = self
        if let name { patch.name = WorkoutRules.name(name, "name", into: &validator) }
        if let startedAt { _ = WorkoutRules.startedAt(startedAt, now: now, "started_at", into: &validator) }
        if let durationSeconds { WorkoutRules.duration(durationSeconds, "duration_seconds", into: &validator) }
        if let notes { patch.notes = WorkoutRules.notes(notes, "notes", into: &validator) }
        try validator.validate()
        return patch
    }
}
