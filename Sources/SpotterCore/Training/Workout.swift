import Crypto
import Foundation
import ValueText

public struct WorkoutID: EntityID {
    public let rawValue: UUID
    public init(rawValue: UUID) { self.rawValue = rawValue }
}

public enum SetType: String, Sendable, Codable, CaseIterable {
    case warmUp = "warm_up"
    case working, drop, failure

    /// Warm-up sets are kept and shown but never counted in sets, reps, volume, e1RM or records.
    public var isCounted: Bool { self != .warmUp }
}

/// Where in a workout an exercise belongs (the NTC workouts' warm-up, circuits and cool-down).
public enum WorkoutSection: String, Sendable, Codable, CaseIterable {
    case warmUp = "warm_up"
    case main
    case coolDown = "cool_down"
}

/// One logged set, weights in kilograms. A set records reps, a time, a distance or several of them
/// (a 60 s plank, a 500 m row in 95 s, 8 reps with a 30 s pause).
public struct WorkoutSet: Sendable, Equatable, Codable {
    public var reps: Int
    /// `nil` for bodyweight sets.
    public var weight: Mass?
    /// 1–10 in steps of 0.5.
    public var rpe: Decimal?
    public var restSeconds: Int?
    public var note: String
    public var type: SetType
    /// How long the set took or was held, 1–86,400 s.
    public var durationSeconds: Int?
    /// Metres covered, 1–1,000,000.
    public var distanceMeters: Int?

    public init(
        reps: Int,
        weight: Mass?,
        rpe: Decimal? = nil,
        restSeconds: Int? = nil,
        note: String = "",
        type: SetType = .working,
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

    /// Reps × weight, zero for bodyweight sets.
    public var volume: Mass { (weight ?? .zero) * reps }

    /// The reps as a set says them: `nil` for a timed or distance set without reps (a plank, a
    /// run), which records none rather than 0; 0 for a missed attempt. What the API, the export
    /// and the CSV show, and what a client sends back.
    public var statedReps: Int? {
        reps == 0 && (durationSeconds != nil || distanceMeters != nil) ? nil : reps
    }
}

public struct WorkoutExercise: Sendable, Equatable, Codable {
    public var exerciseID: ExerciseID
    public var notes: String
    public var sets: [WorkoutSet]
    public var section: WorkoutSection
    /// 0 outside a circuit; otherwise the number (1-based) of the template's circuit it was done in.
    public var circuit: Int

    public init(
        exerciseID: ExerciseID,
        notes: String = "",
        sets: [WorkoutSet],
        section: WorkoutSection = .main,
        circuit: Int = 0
    ) {
        self.exerciseID = exerciseID
        self.notes = notes
        self.sets = sets
        self.section = section
        self.circuit = circuit
    }

    private enum CodingKeys: String, CodingKey { case exerciseID, notes, sets, section, circuit }

    /// Exports written before sections existed have neither key: main, no circuit.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            exerciseID: try container.decode(ExerciseID.self, forKey: .exerciseID),
            notes: try container.decode(String.self, forKey: .notes),
            sets: try container.decode([WorkoutSet].self, forKey: .sets),
            section: try container.decodeIfPresent(WorkoutSection.self, forKey: .section) ?? .main,
            circuit: try container.decodeIfPresent(Int.self, forKey: .circuit) ?? 0
        )
    }
}

/// A workout's content: what a client sends, validated.
public struct WorkoutContent: Sendable, Equatable, Codable {
    public var name: String
    public var startedAt: Date
    public var durationSeconds: Int
    public var notes: String
    public var templateID: TemplateID?
    public var exercises: [WorkoutExercise]

    public init(
        name: String,
        startedAt: Date,
        durationSeconds: Int,
        notes: String = "",
        templateID: TemplateID? = nil,
        exercises: [WorkoutExercise]
    ) {
        self.name = name
        self.startedAt = startedAt
        self.durationSeconds = durationSeconds
        self.notes = notes
        self.templateID = templateID
        self.exercises = exercises
    }

    /// Counts over the counted sets.
    public var summary: WorkoutSummary {
        var summary = WorkoutSummary(exerciseCount: exercises.count, setCount: 0, repCount: 0, volume: .zero)
        for set in exercises.lazy.flatMap(\.sets) where set.type.isCounted {
            summary.setCount += 1
            summary.repCount += set.reps
            summary.volume = summary.volume + set.volume
        }
        return summary
    }

    /// This content with the weights of `stored` wherever a set, at the same place of the same
    /// exercise, sends back the stored weight as the API shows it (rounded to 2 decimals, in
    /// kilograms or pounds): a weight logged as 45 lb and read as 20.41 kg stays 45 lb when the
    /// workout is saved again, instead of drifting to 44.997 lb.
    public func keepingWeights(of stored: WorkoutContent) -> WorkoutContent {
        var kept = self
        for (e, exercise) in exercises.enumerated() where e < stored.exercises.count {
            let before = stored.exercises[e]
            guard before.exerciseID == exercise.exerciseID else { continue }
            for (i, set) in exercise.sets.enumerated() where i < before.sets.count {
                guard let sent = set.weight, let weight = before.sets[i].weight, sent != weight else { continue }
                if weight.isShown(as: sent) {
                    kept.exercises[e].sets[i].weight = weight
                }
            }
        }
        return kept
    }

    /// SHA-256 of a canonical encoding: equal content, equal fingerprint. A retried log call is
    /// recognised by it.
    public var fingerprint: [UInt8] {
        // Every field, length-prefixed so no two contents write the same text. The bytes hashed
        // must not change: stored fingerprints decide retries (`fingerprintIsStable` pins one).
        var text: [UInt8] = []
        text.reserveCapacity(64 + exercises.count * 256)
        func field(_ value: String) {
            text.append(contentsOf: String(value.utf8.count).utf8)
            text.append(UInt8(ascii: ":"))
            text.append(contentsOf: value.utf8)
        }
        func field(_ value: Int) { field(String(value)) }
        func field(id: UUID) {
            text.append(contentsOf: "36:".utf8)
            id.appendLowercased(to: &text)
        }
        field(name)
        field(String(UnixMicros.of(startedAt)))
        field(durationSeconds)
        field(notes)
        if let templateID { field(id: templateID.rawValue) } else { field("") }
        for exercise in exercises {
            field(id: exercise.exerciseID.rawValue)
            field(exercise.notes)
            // Fields added later are written only when they differ from what older contents
            // meant, so a retry of a workout logged before they existed is still recognised.
            if exercise.section != .main || exercise.circuit != 0 {
                field("section:\(exercise.section.rawValue):\(exercise.circuit)")
            }
            field(exercise.sets.count)
            for set in exercise.sets {
                field(set.reps)
                field(set.weight.map { String($0.micrograms) } ?? "-")
                field(set.rpe?.plainText ?? "-")
                field(set.restSeconds.map(String.init) ?? "-")
                field(set.note)
                field(set.type.rawValue)
                if set.durationSeconds != nil || set.distanceMeters != nil {
                    field(
                        "timed:\(set.durationSeconds.map(String.init) ?? "-"):\(set.distanceMeters.map(String.init) ?? "-")"
                    )
                }
            }
        }
        return Array(SHA256.hash(data: text))
    }
}

public struct WorkoutSummary: Sendable, Equatable, Codable {
    public var exerciseCount: Int
    public var setCount: Int
    public var repCount: Int
    public var volume: Mass

    public init(exerciseCount: Int, setCount: Int, repCount: Int, volume: Mass) {
        self.exerciseCount = exerciseCount
        self.setCount = setCount
        self.repCount = repCount
        self.volume = volume
    }
}

/// A stored workout.
public struct Workout: Sendable, Equatable {
    public var id: WorkoutID
    public var content: WorkoutContent
    /// The template's version when the workout was logged from it.
    public var templateVersion: Int64?
    /// Current names of the exercises, by id.
    public var exerciseNames: [ExerciseID: String]
    public var summary: WorkoutSummary
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: WorkoutID,
        content: WorkoutContent,
        templateVersion: Int64?,
        exerciseNames: [ExerciseID: String],
        summary: WorkoutSummary,
        version: Int64,
        createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.content = content
        self.templateVersion = templateVersion
        self.exerciseNames = exerciseNames
        self.summary = summary
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// One history entry.
public struct WorkoutEntry: Sendable, Equatable {
    public var id: WorkoutID
    public var name: String
    public var startedAt: Date
    public var durationSeconds: Int
    /// Exercises, sets, reps and volume; `nil` where the reader may not see them (a coach without
    /// the details scope), so a withheld summary is never read as an empty workout.
    public var summary: WorkoutSummary?

    public init(id: WorkoutID, name: String, startedAt: Date, durationSeconds: Int, summary: WorkoutSummary?) {
        self.id = id
        self.name = name
        self.startedAt = startedAt
        self.durationSeconds = durationSeconds
        self.summary = summary
    }
}

/// Field changes of UpdateWorkout; `nil` keeps the stored value.
public struct WorkoutPatch: Sendable, Equatable {
    public var name: String?
    public var startedAt: Date?
    public var durationSeconds: Int?
    public var notes: String?

    public init(name: String? = nil, startedAt: Date? = nil, durationSeconds: Int? = nil, notes: String? = nil) {
        self.name = name
        self.startedAt = startedAt
        self.durationSeconds = durationSeconds
        self.notes = notes
    }
}

/// A history query: newest first, keyset paged.
public struct HistoryQuery: Sendable, Equatable {
    public var from: Date?
    public var to: Date?
    /// Case-insensitive text matched against workout and exercise names; empty matches all.
    public var text: String
    public var limit: Int
    /// The last entry of the previous page.
    public var after: HistoryCursor?

    public init(from: Date? = nil, to: Date? = nil, text: String = "", limit: Int = 20, after: HistoryCursor? = nil) {
        self.from = from
        self.to = to
        self.text = text
        self.limit = limit
        self.after = after
    }
}

/// Where a history page ends.
public struct HistoryCursor: PageCursor, Equatable {
    public var startedAt: Date
    public var id: WorkoutID

    public init(startedAt: Date, id: WorkoutID) {
        self.startedAt = startedAt
        self.id = id
    }

    public static var tokenPartCount: Int { 2 }
    public var tokenParts: [String] { [PageToken.micros(startedAt), id.description] }

    public init?(tokenParts parts: [String]) {
        guard let startedAt = try? PageToken.date(micros: parts[0]), let id = WorkoutID(parts[1]) else { return nil }
        self.init(startedAt: startedAt, id: id)
    }
}
