import Foundation

/// The formats `TransferService.importWorkouts` reads.
public enum ImportFormat: String, Sendable, CaseIterable {
    case strongCSV = "strong"
    case hevyCSV = "hevy"
    case spotterJSON = "spotter"
}

/// A workout read from a file, before its exercises are matched to the catalog.
struct ImportedWorkout: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        /// The exercise as the file names it.
        var name: String
        /// Set when the file gives a catalog id (Spotter JSON).
        var exerciseID: ExerciseID?
        var notes: String
        var sets: [ImportedSet]
        var section: WorkoutSection? = nil
        var circuit: Int = 0
    }

    /// What the workout's id is derived from: the same key in the same account is the same
    /// workout, so a second import of the file finds it stored.
    var key: String
    var name: String
    var startedAt: Date
    var durationSeconds: Int
    var notes: String
    var entries: [Entry]
    /// A Spotter export's own id, kept (ids are per account).
    var id: WorkoutID? = nil
    var templateID: TemplateID? = nil
}

/// A set read from a file, the weight already exact.
struct ImportedSet: Sendable, Equatable {
    var reps: Int
    var weight: Mass?
    var rpe: Decimal?
    var restSeconds: Int?
    var note: String
    var type: SetType
    var durationSeconds: Int? = nil
    var distanceMeters: Int? = nil
    /// What reading the row left out of the set (an RPE out of range), for the report's notes.
    var dropped: String? = nil
}

/// What a file held besides its workouts, and what was left out while reading it.
struct ImportedFile: Sendable {
    var workouts: [ImportedWorkout]
    /// Custom exercises and templates the file defines (Spotter JSON), with their ids.
    var customExercises: [Exercise] = []
    var templates: [ExportedTemplate] = []
    /// The exported account's own programs (Spotter JSON), with their ids.
    var programs: [Program] = []
    /// Body measurements the file holds (Spotter JSON), with their ids, in stored units.
    var measurements: [BodyMeasurement] = []
    /// Rows left out while reading, each with the reason.
    var notes: [String] = []
}
