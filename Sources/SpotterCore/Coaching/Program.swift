import Foundation

/// A named plan of one or more weeks: for each weekday of each week a template, or rest.
public struct Program: Sendable, Equatable, Codable {
    public var id: ProgramID
    public var ownerID: TenantID
    public var content: ProgramContent
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date
    /// Names of the templates the days use.
    public var templateNames: [TemplateID: String]

    public init(
        id: ProgramID, ownerID: TenantID, content: ProgramContent, version: Int64, createdAt: Date, updatedAt: Date,
        templateNames: [TemplateID: String]
    ) {
        self.id = id
        self.ownerID = ownerID
        self.content = content
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.templateNames = templateNames
    }

    private enum CodingKeys: String, CodingKey {
        case id, ownerID, content, version, createdAt, updatedAt, templateNames
    }

    /// Template names by id as an object (`{"<id>": "Heavy Upper"}`), as a template's exercise
    /// names are: a dictionary keyed by anything but strings encodes as a flat array of keys and
    /// values, which exports before 2026-11-28 hold (and still read).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(ownerID, forKey: .ownerID)
        try container.encode(content, forKey: .content)
        try container.encode(version, forKey: .version)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(
            Dictionary(uniqueKeysWithValues: templateNames.map { ($0.key.description, $0.value) }),
            forKey: .templateNames)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(ProgramID.self, forKey: .id)
        ownerID = try container.decode(TenantID.self, forKey: .ownerID)
        content = try container.decode(ProgramContent.self, forKey: .content)
        version = try container.decode(Int64.self, forKey: .version)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        updatedAt = try container.decode(Date.self, forKey: .updatedAt)
        if let names = try? container.decode([String: String].self, forKey: .templateNames) {
            templateNames = Dictionary(
                names.compactMap { key, value in TemplateID(key).map { ($0, value) } }, uniquingKeysWith: { a, _ in a })
        } else {
            templateNames = try container.decodeIfPresent([TemplateID: String].self, forKey: .templateNames) ?? [:]
        }
    }
}

public struct ProgramID: EntityID {
    public let rawValue: UUID
    public init(rawValue: UUID) { self.rawValue = rawValue }
}

/// One training day of a program; days without one are rest.
public struct ProgramDay: Sendable, Hashable, Codable {
    /// 1-based week of the program.
    public var week: Int
    /// ISO weekday: 1 = Monday … 7 = Sunday.
    public var weekday: Int
    public var templateID: TemplateID

    public init(week: Int, weekday: Int, templateID: TemplateID) {
        self.week = week
        self.weekday = weekday
        self.templateID = templateID
    }
}

/// A program's fields, validated.
public struct ProgramContent: Sendable, Equatable, Codable {
    public var name: String
    public var notes: String
    public var weeks: Int
    /// Ordered by week, then weekday.
    public var days: [ProgramDay]

    public init(name: String, notes: String, weeks: Int, days: [ProgramDay]) {
        self.name = name
        self.notes = notes
        self.weeks = weeks
        self.days = days.sorted { ($0.week, $0.weekday) < ($1.week, $1.weekday) }
    }
}

/// A program as a client sent it; `validated()` names every bad field.
public struct ProgramDraft: Sendable {
    public struct Day: Sendable {
        public var week: Int
        public var weekday: Int
        public var templateID: String

        public init(week: Int, weekday: Int, templateID: String) {
            self.week = week
            self.weekday = weekday
            self.templateID = templateID
        }
    }

    public var name: String
    public var notes: String
    public var weeks: Int
    public var days: [Day]

    public init(name: String, notes: String = "", weeks: Int, days: [Day]) {
        self.name = name
        self.notes = notes
        self.weeks = weeks
        self.days = days
    }

    public func validated() throws(SpotterError) -> ProgramContent {
        var validator = Validator()
        let name = name.trimmingWhitespacesAndNewlines()
        validator.check(!name.isEmpty, "program.name", "is required")
        validator.check(name.storedLength <= 100, "program.name", "must be at most 100 characters")
        if let problem = CredentialRules.visibleTextProblem(name) { validator.add("program.name", problem) }
        validator.check(notes.storedLength <= 5000, "program.notes", "must be at most 5000 characters")
        validator.check((1...52).contains(weeks), "program.weeks", "must be between 1 and 52")
        validator.check(!days.isEmpty, "program.days", "must name at least one training day")
        var seen: Set<[Int]> = []
        var parsed: [ProgramDay] = []
        for (index, day) in days.enumerated() {
            let path = "program.days[\(index)]"
            // Against a valid number of weeks only: "between 1 and 0" says nothing.
            if (1...52).contains(weeks) {
                validator.check((1...weeks).contains(day.week), "\(path).week", "must be between 1 and \(weeks)")
            } else {
                validator.check((1...52).contains(day.week), "\(path).week", "must be between 1 and program.weeks")
            }
            validator.check((1...7).contains(day.weekday), "\(path).weekday", "must be between 1 (Monday) and 7")
            validator.check(
                seen.insert([day.week, day.weekday]).inserted, "\(path)",
                "repeats week \(day.week) day \(day.weekday): a day has one template")
            if let id = TemplateID(day.templateID) {
                parsed.append(ProgramDay(week: day.week, weekday: day.weekday, templateID: id))
            } else {
                validator.add("\(path).template_id", day.templateID.isEmpty ? "is required" : "must be a UUID")
            }
        }
        try validator.validate()
        return ProgramContent(name: name, notes: notes, weeks: weeks, days: parsed)
    }
}

/// Calendar arithmetic on local dates ("YYYY-MM-DD") for following a program.
public enum ProgramSchedule {
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = .gmt
        return calendar
    }()

    /// Parses a local date, naming `field` when it is not one.
    public static func date(_ text: String, field: String) throws(SpotterError) -> Date {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, text.count == 10,
            let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])),
            format(date) == text
        else { throw .invalid(field, "must be a date like 2026-11-23") }
        return date
    }

    public static func format(_ date: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(c.year!) + "-" + pad(c.month!) + "-" + pad(c.day!)
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }

    /// The local date at `instant` in `timeZone`, as midnight UTC of that date.
    public static func localDay(_ instant: Date, timeZone: TimeZone) -> Date {
        var local = Calendar(identifier: .iso8601)
        local.timeZone = timeZone
        let c = local.dateComponents([.year, .month, .day], from: instant)
        return calendar.date(from: c)!
    }

    /// The local date at `instant` in the time zone named `timeZoneID` (UTC when unknown).
    public static func localDay(_ instant: Date, timeZoneID: String) -> Date {
        localDay(instant, timeZone: TimeZone(identifier: timeZoneID) ?? .gmt)
    }

    /// ISO weekday of a local day: 1 = Monday.
    public static func weekday(_ day: Date) -> Int {
        (calendar.component(.weekday, from: day) + 5) % 7 + 1
    }

    /// The Monday of the week holding `day`.
    public static func monday(of day: Date) -> Date {
        calendar.date(byAdding: .day, value: 1 - weekday(day), to: day)!
    }

    /// What the program plans on `day` when followed from `start`: week 1 is the seven days from
    /// the start date; each day trains the template set for its week and weekday.
    public static func plan(_ content: ProgramContent, startedOn start: Date, on day: Date) -> PlannedDay {
        let offset = calendar.dateComponents([.day], from: start, to: day).day!
        guard offset >= 0 else {
            return PlannedDay(week: nil, weekday: weekday(day), templateID: nil, state: .notStarted)
        }
        let week = offset / 7 + 1
        guard week <= content.weeks else {
            return PlannedDay(week: nil, weekday: weekday(day), templateID: nil, state: .finished)
        }
        let template = content.days.first { $0.week == week && $0.weekday == weekday(day) }?.templateID
        return PlannedDay(
            week: week, weekday: weekday(day), templateID: template, state: template == nil ? .rest : .training)
    }

    /// How many training days the program plans in the Monday–Sunday week holding `day`.
    /// The template of each training day of the week holding `day` (a template twice for two days).
    public static func plannedTemplates(_ content: ProgramContent, startedOn start: Date, holding day: Date)
        -> [TemplateID]
    {
        let monday = monday(of: day)
        return (0..<7).compactMap { offset in
            let planned = plan(content, startedOn: start, on: calendar.date(byAdding: .day, value: offset, to: monday)!)
            return planned.state == .training ? planned.templateID : nil
        }
    }

    /// Adherence: how many of the week's planned sessions the workouts logged from templates did,
    /// each workout answering one planned day of its template (Day A done twice answers two days of
    /// Day A, not Wednesday's Day B).
    public static func plannedDone(planned: [TemplateID], logged: [TemplateID]) -> Int {
        let done = Dictionary(logged.map { ($0, 1) }, uniquingKeysWith: +)
        return Dictionary(planned.map { ($0, 1) }, uniquingKeysWith: +).reduce(0) { sum, entry in
            sum + min(entry.value, done[entry.key] ?? 0)
        }
    }
}

/// One day of a followed program.
public struct PlannedDay: Sendable, Equatable {
    public enum State: String, Sendable {
        case training
        case rest
        case notStarted = "not_started"
        case finished
    }

    public var week: Int?
    public var weekday: Int
    public var templateID: TemplateID?
    public var state: State

    public init(week: Int?, weekday: Int, templateID: TemplateID?, state: State) {
        self.week = week
        self.weekday = weekday
        self.templateID = templateID
        self.state = state
    }
}

/// The program a lifter follows.
public struct ProgramFollow: Sendable, Equatable, Codable {
    public var program: Program
    /// "YYYY-MM-DD".
    public var startedOn: String
    /// Set when the program is the follower's copy of a public program (Discover).
    public var publication: PublicationOffer?

    public init(program: Program, startedOn: String, publication: PublicationOffer? = nil) {
        self.program = program
        self.startedOn = startedOn
        self.publication = publication
    }
}

/// Today for a lifter: the followed program's plan and, on a training day, the template pre-filled.
public struct TodayPlan: Sendable, Equatable {
    public var date: String
    public var follow: ProgramFollow?
    public var day: PlannedDay?
    public var template: Template?

    public init(date: String, follow: ProgramFollow?, day: PlannedDay?, template: Template?) {
        self.date = date
        self.follow = follow
        self.day = day
        self.template = template
    }
}

/// A coach's template or program given to a client.
public struct Assignment: Sendable, Equatable, Codable {
    public enum Item: Sendable, Equatable, Codable {
        case template(TemplateID)
        case program(ProgramID)

        private enum CodingKeys: String, CodingKey {
            case templateID, programID
            // Exports before 2026-11-28: `{"program": {"_0": "<id>"}}`, the synthesized form.
            case template, program
        }

        private enum Wrapped: String, CodingKey { case value = "_0" }

        /// `{"template_id": "<id>"}` or `{"program_id": "<id>"}`, as every other id in an export.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .template(let id): try container.encode(id, forKey: .templateID)
            case .program(let id): try container.encode(id, forKey: .programID)
            }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let id = try container.decodeIfPresent(TemplateID.self, forKey: .templateID) {
                self = .template(id)
            } else if let id = try container.decodeIfPresent(ProgramID.self, forKey: .programID) {
                self = .program(id)
            } else if container.contains(.template) {
                let old = try container.nestedContainer(keyedBy: Wrapped.self, forKey: .template)
                self = .template(try old.decode(TemplateID.self, forKey: .value))
            } else {
                let old = try container.nestedContainer(keyedBy: Wrapped.self, forKey: .program)
                self = .program(try old.decode(ProgramID.self, forKey: .value))
            }
        }
    }

    @LowercasedUUID public var id: UUID
    public var coachID: TenantID
    public var lifterID: TenantID
    public var item: Item
    /// The template's or program's current name and version: the lifter always sees the latest.
    public var name: String
    public var version: Int64
    public var note: String
    public var createdAt: Date
    public var coachName: String

    public init(
        id: UUID, coachID: TenantID, lifterID: TenantID, item: Item, name: String, version: Int64, note: String,
        createdAt: Date, coachName: String
    ) {
        self.id = id
        self.coachID = coachID
        self.lifterID = lifterID
        self.item = item
        self.name = name
        self.version = version
        self.note = note
        self.createdAt = createdAt
        self.coachName = coachName
    }
}

/// A comment on a lifter's workout, or on one of its sets.
public struct WorkoutComment: Sendable, Equatable, Codable {
    @LowercasedUUID public var id: UUID
    public var workoutID: WorkoutID
    /// Both set, or both `nil` for a comment on the whole workout.
    public var exerciseIndex: Int?
    public var setIndex: Int?
    public var authorID: TenantID
    public var authorSide: LinkSide
    public var authorName: String
    public var body: String
    public var createdAt: Date

    public init(
        id: UUID, workoutID: WorkoutID, exerciseIndex: Int?, setIndex: Int?, authorID: TenantID, authorSide: LinkSide,
        authorName: String, body: String, createdAt: Date
    ) {
        self.id = id
        self.workoutID = workoutID
        self.exerciseIndex = exerciseIndex
        self.setIndex = setIndex
        self.authorID = authorID
        self.authorSide = authorSide
        self.authorName = authorName
        self.body = body
        self.createdAt = createdAt
    }
}

/// One client on a coach's list, with what the granted scopes allow to show.
public struct ClientSummary: Sendable, Equatable {
    public var link: CoachLink
    /// With the history scope.
    public var lastWorkoutAt: Date?
    public var workoutsThisWeek: Int?
    /// Planned training days this week in the followed program, with the history scope.
    public var plannedThisWeek: Int?
    /// Adherence: the planned days done (`ProgramSchedule.plannedDone`), set with `plannedThisWeek`.
    public var plannedDoneThisWeek: Int?
    /// No workout for at least the asked number of days (history scope).
    public var inactive: Bool
    /// The exercise of a new heaviest working set since the coach last opened the client
    /// (progress scope, within the coach's tier).
    public var newRecordExercise: String?
    /// Weeks in the client's current weekly streak (`WeeklyStreak`), counted over the last
    /// `WeeklyStreak.clientListWeeks` weeks; history scope.
    public var streakWeeks: Int?
    /// The client is past the number the coach's tier covers (the latest to join, after a
    /// downgrade): listed, with none of the fields above, and their data closed until there is room.
    public var beyondTierLimit: Bool

    public init(
        link: CoachLink, lastWorkoutAt: Date?, workoutsThisWeek: Int?, plannedThisWeek: Int?,
        plannedDoneThisWeek: Int? = nil, inactive: Bool, newRecordExercise: String?, streakWeeks: Int? = nil,
        beyondTierLimit: Bool = false
    ) {
        self.plannedDoneThisWeek = plannedDoneThisWeek
        self.beyondTierLimit = beyondTierLimit
        self.streakWeeks = streakWeeks
        self.link = link
        self.lastWorkoutAt = lastWorkoutAt
        self.workoutsThisWeek = workoutsThisWeek
        self.plannedThisWeek = plannedThisWeek
        self.inactive = inactive
        self.newRecordExercise = newRecordExercise
    }
}
