import Foundation

/// Everything a tenant owns, as one JSON document (`spotterctl export`, and later the product's own
/// export). Secrets are never included: no password hash, no token or token hash, no e-mail
/// bodies (they hold single-use links).
public struct TenantExport: Sendable, Equatable, Codable {
    /// Always `spotter-export`.
    public var format = "spotter-export"
    /// Raised when the document's shape changes incompatibly.
    public var version = 1
    public var exportedAt: Date
    public var profile: Profile
    public var sessions: [SessionInfo]
    public var emails: [ExportedEmail]
    /// The tenant's custom exercises (built-in ones are referenced by id and name).
    public var exercises: [Exercise]
    public var templates: [ExportedTemplate]
    /// Every live workout with every set, oldest first; weights in kilograms.
    public var workouts: [ExportedWorkout]
    /// Links (as lifter or coach), programs, assignments given or received, comments on the
    /// tenant's workouts or written by it, and the access log of coaches' reads.
    public var coaching: ExportedCoaching

    public init(
        exportedAt: Date,
        profile: Profile,
        sessions: [SessionInfo],
        emails: [ExportedEmail],
        exercises: [Exercise] = [],
        templates: [ExportedTemplate] = [],
        workouts: [ExportedWorkout] = [],
        coaching: ExportedCoaching = ExportedCoaching()
    ) {
        self.exportedAt = exportedAt
        self.profile = profile
        self.sessions = sessions
        self.emails = emails
        self.exercises = exercises
        self.templates = templates
        self.workouts = workouts
        self.coaching = coaching
    }
}

/// A tenant's coaching data as exported.
public struct ExportedCoaching: Sendable, Equatable, Codable {
    public var links: [CoachLink]
    public var programs: [Program]
    public var assignments: [Assignment]
    public var comments: [WorkoutComment]
    public var accessLog: [AccessLogEntry]

    public init(
        links: [CoachLink] = [], programs: [Program] = [], assignments: [Assignment] = [],
        comments: [WorkoutComment] = [], accessLog: [AccessLogEntry] = []
    ) {
        self.links = links
        self.programs = programs
        self.assignments = assignments
        self.comments = comments
        self.accessLog = accessLog
    }
}

/// A template as exported.
public struct ExportedTemplate: Sendable, Equatable, Codable {
    public var id: TemplateID
    public var name: String
    public var notes: String
    public var items: [TemplateItem]
    public var archivedAt: Date?
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public init(_ template: Template) {
        id = template.id
        name = template.content.name
        notes = template.content.notes
        items = template.content.items
        archivedAt = template.archivedAt
        version = template.version
        createdAt = template.createdAt
        updatedAt = template.updatedAt
    }
}

/// A workout as exported: plain numbers, weights in kilograms.
public struct ExportedWorkout: Sendable, Equatable, Codable {
    public struct Entry: Sendable, Equatable, Codable {
        public var exerciseID: ExerciseID
        public var exerciseName: String
        public var notes: String
        public var sets: [ExportedSet]
    }

    public struct ExportedSet: Sendable, Equatable, Codable {
        public var type: SetType
        public var reps: Int
        public var weightKg: Decimal?
        public var rpe: Decimal?
        public var restSeconds: Int?
        public var note: String
    }

    public var id: WorkoutID
    public var name: String
    public var startedAt: Date
    public var durationSeconds: Int
    public var notes: String
    public var templateID: TemplateID?
    public var templateVersion: Int64?
    public var exercises: [Entry]
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public init(_ workout: Workout) {
        id = workout.id
        name = workout.content.name
        startedAt = workout.content.startedAt
        durationSeconds = workout.content.durationSeconds
        notes = workout.content.notes
        templateID = workout.content.templateID
        templateVersion = workout.templateVersion
        exercises = workout.content.exercises.map { exercise in
            Entry(
                exerciseID: exercise.exerciseID,
                exerciseName: workout.exerciseNames[exercise.exerciseID] ?? "",
                notes: exercise.notes,
                sets: exercise.sets.map { set in
                    ExportedSet(
                        type: set.type, reps: set.reps, weightKg: set.weight?.kilograms, rpe: set.rpe,
                        restSeconds: set.restSeconds, note: set.note)
                }
            )
        }
        version = workout.version
        createdAt = workout.createdAt
        updatedAt = workout.updatedAt
    }
}

/// An e-mail Spotter sent or will send to the tenant, without its body.
public struct ExportedEmail: Sendable, Equatable, Codable {
    public var kind: String
    public var recipient: String
    public var subject: String
    public var status: String
    public var createdAt: Date
    public var sentAt: Date?

    public init(kind: String, recipient: String, subject: String, status: String, createdAt: Date, sentAt: Date?) {
        self.kind = kind
        self.recipient = recipient
        self.subject = subject
        self.status = status
        self.createdAt = createdAt
        self.sentAt = sentAt
    }
}
