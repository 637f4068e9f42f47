import Foundation

/// Everything a tenant owns, as one JSON document (`spotterctl export`, and later the product's own
/// export). Secrets are never included: no password hash, no token or token hash, no e-mail
/// bodies (they hold single-use links).
public struct TenantExport: Sendable, Equatable, Codable {
    /// Always `spotter-export`.
    public var format = "spotter-export"
    /// Raised when the document's shape changes incompatibly.
    public var version = Self.currentVersion
    /// 2: a timed or distance set without reps leaves `reps` out (version 1 wrote 0), which a
    /// reader of version 1 would refuse; this server reads both.
    public static let currentVersion = 2
    public var exportedAt: Date
    public var profile: Profile
    public var sessions: [SessionInfo]
    /// The devices registered for sync.
    public var devices: [Device]
    public var emails: [ExportedEmail]
    /// Feedback and bug reports the tenant sent, with the answers.
    public var feedback: [Feedback]
    /// The tenant's custom exercises (built-in ones are referenced by id and name).
    public var exercises: [Exercise]
    public var templates: [ExportedTemplate]
    /// Every live workout with every set, oldest first; weights in kilograms.
    public var workouts: [ExportedWorkout]
    /// Links (as lifter or coach), programs, assignments given or received, comments on the
    /// tenant's workouts or written by it, and the access log of coaches' reads.
    public var coaching: ExportedCoaching
    /// What the tenant published (every version), follows or saved, and its directory listing.
    /// Absent from exports made before Discover.
    public var discover: ExportedDiscover?
    /// Body measurements (kilograms, percent, centimetres), by metric then date. Absent from
    /// exports made before body metrics.
    public var measurements: [BodyMeasurement]?

    public init(
        exportedAt: Date,
        profile: Profile,
        sessions: [SessionInfo],
        devices: [Device] = [],
        emails: [ExportedEmail],
        feedback: [Feedback] = [],
        exercises: [Exercise] = [],
        templates: [ExportedTemplate] = [],
        workouts: [ExportedWorkout] = [],
        coaching: ExportedCoaching = ExportedCoaching(),
        discover: ExportedDiscover? = nil,
        measurements: [BodyMeasurement]? = nil
    ) {
        self.exportedAt = exportedAt
        self.profile = profile
        self.sessions = sessions
        self.devices = devices
        self.emails = emails
        self.feedback = feedback
        self.exercises = exercises
        self.templates = templates
        self.workouts = workouts
        self.coaching = coaching
        self.discover = discover
        self.measurements = measurements
    }
}

extension TenantExport {
    /// The document's JSON: sorted snake_case keys, instants in ISO 8601 UTC to the microsecond
    /// (`2026-03-05T17:30:00.123456Z`; whole seconds without a fraction), so an import restores
    /// a start time exactly.
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Self.instant(date))
        }
        return encoder
    }

    /// Reads what `encoder` writes, and exports from before instants had fractions.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        // Not .convertFromSnakeCase: that reads `exercise_id` as `exerciseId`, while the property
        // (and the key it was written from) is `exerciseID`.
        decoder.keyDecodingStrategy = .custom { path in
            let key = path[path.count - 1]
            guard key.intValue == nil else { return key }
            return ExportKey(camelCase(key.stringValue))
        }
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Self.instant(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\"\(text)\" is not an ISO 8601 UTC time like 2026-03-05T17:30:00Z"
                )
            }
            return date
        }
        return decoder
    }

    /// `exercise_id` → `exerciseID`, `target_rpe` → `targetRPE`: the inverse of the encoder's
    /// snake case for Spotter's property names.
    static func camelCase(_ snake: String) -> String {
        // Leading underscores stay, as in an enum case's `_0`.
        guard !snake.hasPrefix("_") else { return snake }
        let parts = snake.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count > 1 else { return snake }
        return parts.enumerated().map { index, part in
            if index == 0 { return String(part) }
            switch part {
            case "id", "rpe", "url", "uri": return part.uppercased()
            default: return part.prefix(1).uppercased() + part.dropFirst()
            }
        }.joined()
    }

    private struct ExportKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static func instant(_ date: Date) -> String {
        let micros = UnixMicros.of(date)
        let (seconds, fraction) = micros.quotientAndRemainder(dividingBy: 1_000_000)
        let whole = fraction < 0 ? seconds - 1 : seconds
        let text = Date(timeIntervalSince1970: TimeInterval(whole)).formatted(.iso8601)
        let remainder = fraction < 0 ? fraction + 1_000_000 : fraction
        guard remainder != 0 else { return text }
        let digits = String(remainder)
        return String(text.dropLast()) + "." + String(repeating: "0", count: 6 - digits.count) + digits + "Z"
    }

    static func instant(_ text: String) -> Date? {
        guard text.hasSuffix("Z") else { return nil }
        var main = text.dropLast()
        var micros: Int64 = 0
        if let dot = main.firstIndex(of: ".") {
            let digits = main[main.index(after: dot)...]
            guard (1...9).contains(digits.count), digits.allSatisfy(\.isASCII), let value = Int64(digits.prefix(6))
            else {
                return nil
            }
            micros = value * Int64(pow(10, Double(6 - min(digits.count, 6))))
            main = main[..<dot]
        }
        guard let seconds = try? Date(String(main) + "Z", strategy: .iso8601) else { return nil }
        return Date(timeIntervalSince1970: seconds.timeIntervalSince1970 + TimeInterval(micros) / 1_000_000)
    }
}

/// A tenant's coaching data as exported.
public struct ExportedCoaching: Sendable, Equatable, Codable {
    public var links: [CoachLink]
    public var programs: [Program]
    public var assignments: [Assignment]
    public var comments: [WorkoutComment]
    public var accessLog: [AccessLogEntry]
    /// A coach's invites (never their codes: only hashes are stored).
    public var invites: [CoachInvite]
    /// The program the lifter follows, from when.
    public var follow: ProgramFollow?

    public init(
        links: [CoachLink] = [], programs: [Program] = [], assignments: [Assignment] = [],
        comments: [WorkoutComment] = [], accessLog: [AccessLogEntry] = [], invites: [CoachInvite] = [],
        follow: ProgramFollow? = nil
    ) {
        self.links = links
        self.programs = programs
        self.assignments = assignments
        self.comments = comments
        self.accessLog = accessLog
        self.invites = invites
        self.follow = follow
    }
}

/// A tenant's side of Discover as exported. An import leaves it out: a publication is a public
/// record of the account that published it, and the copies a follow made are among the templates
/// and programs.
public struct ExportedDiscover: Sendable, Equatable, Codable {
    public var listedInDirectory: Bool
    public var highlights: [String]
    public var publications: [ExportedPublication]
    public var follows: [PublicationFollow]

    public init(
        listedInDirectory: Bool = false, highlights: [String] = [], publications: [ExportedPublication] = [],
        follows: [PublicationFollow] = []
    ) {
        self.listedInDirectory = listedInDirectory
        self.highlights = highlights
        self.publications = publications
        self.follows = follows
    }
}

/// One of the tenant's publications with every version's snapshot.
public struct ExportedPublication: Sendable, Equatable, Codable {
    public struct Version: Sendable, Equatable, Codable {
        public var version: Int
        public var publishedAt: Date
        public var snapshot: PublishedSnapshot

        public init(version: Int, publishedAt: Date, snapshot: PublishedSnapshot) {
            self.version = version
            self.publishedAt = publishedAt
            self.snapshot = snapshot
        }
    }

    public var id: PublicationID
    public var kind: PublicationKind
    @LowercasedUUID public var sourceID: UUID
    public var title: String
    public var description: String
    public var difficulty: Difficulty
    public var categories: [PublicationCategory]
    public var publishedAt: Date
    public var updatedAt: Date
    public var unpublishedAt: Date?
    public var versions: [Version]

    public init(
        id: PublicationID, kind: PublicationKind, sourceID: UUID, title: String, description: String,
        difficulty: Difficulty, categories: [PublicationCategory], publishedAt: Date, updatedAt: Date,
        unpublishedAt: Date?, versions: [Version]
    ) {
        self.id = id
        self.kind = kind
        self.sourceID = sourceID
        self.title = title
        self.description = description
        self.difficulty = difficulty
        self.categories = categories
        self.publishedAt = publishedAt
        self.updatedAt = updatedAt
        self.unpublishedAt = unpublishedAt
        self.versions = versions
    }
}

/// A template as exported.
public struct ExportedTemplate: Sendable, Equatable, Codable {
    public var id: TemplateID
    public var name: String
    public var notes: String
    public var items: [TemplateItem]
    /// Absent in exports from before circuits.
    public var circuits: [TemplateCircuit]?
    public var archivedAt: Date?
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date
    /// The current names of the exercises its items use, by exercise id. Absent in exports from
    /// before 2026-11-28.
    public var exerciseNames: [String: String]?

    public init(_ template: Template) {
        id = template.id
        exerciseNames = Dictionary(
            template.content.items.compactMap { item in
                template.exerciseNames[item.exerciseID].map { (item.exerciseID.description, $0) }
            }
        ) { first, _ in first }
        name = template.content.name
        notes = template.content.notes
        items = template.content.items
        circuits = template.content.circuits
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
        /// Absent in exports from before sections (main, no circuit).
        public var section: WorkoutSection?
        public var circuit: Int?
    }

    public struct ExportedSet: Sendable, Equatable, Codable {
        public var type: SetType
        /// Absent for a timed or distance set without reps (a plank, a run), as in the CSV.
        public var reps: Int?
        public var weightKg: Decimal?
        public var rpe: Decimal?
        public var restSeconds: Int?
        public var note: String
        public var durationSeconds: Int?
        public var distanceMeters: Int?
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
    /// A run's footsteps as the device sent them (with the positions and headings it had) and what
    /// the server derived from them; absent for other workouts, and in exports made before runs were.
    public var run: ExportedRun?

    /// What a run holds beyond its workout.
    public struct ExportedRun: Sendable, Equatable, Codable {
        public var samples: [FootstepSample]
        public var analysis: RunAnalysis

        public init(samples: [FootstepSample], analysis: RunAnalysis) {
            self.samples = samples
            self.analysis = analysis
        }
    }

    public init(_ workout: Workout, run: ExportedRun? = nil) {
        self.run = run
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
                        type: set.type,
                        reps: set.statedReps,
                        weightKg: set.weight?.kilograms, rpe: set.rpe,
                        restSeconds: set.restSeconds, note: set.note, durationSeconds: set.durationSeconds,
                        distanceMeters: set.distanceMeters)
                },
                section: exercise.section, circuit: exercise.circuit
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
