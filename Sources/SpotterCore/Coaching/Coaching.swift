import Foundation

/// What a lifter lets one coach see. Each scope is granted per link and takes effect on the next
/// call; the database enforces the same rule on its own (migration 0008).
public enum Scope: String, Sendable, CaseIterable, Comparable, Codable {
    /// Workout names, dates and durations.
    case history
    /// Every set, rep, weight, RPE and note; also needed to comment.
    case details
    /// e1RM series, records and statistics.
    case progress
    /// Body weight and measurements.
    case body

    public static func < (lhs: Scope, rhs: Scope) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// Parses scope names, naming `field` and the bad value when one is unknown.
    public static func parse(_ names: [String], field: String = "scopes") throws(SpotterError) -> Set<Scope> {
        var scopes: Set<Scope> = []
        var validator = Validator()
        for (index, name) in names.enumerated() {
            guard let scope = Scope(rawValue: name.lowercased()) else {
                validator.add("\(field)[\(index)]", "'\(name)' is not a scope (history, details, progress, body)")
                continue
            }
            scopes.insert(scope)
        }
        try validator.validate()
        return scopes
    }
}

/// Where a link between a lifter and a coach stands.
public enum LinkStatus: String, Sendable, Codable, CaseIterable {
    /// Asked by one side, waiting for the other.
    case pending
    case active
    case declined
    case ended
}

/// The side of a link.
public enum LinkSide: String, Sendable, Codable, CaseIterable {
    case lifter
    case coach
}

/// A link between a lifter and a coach, as either side sees it.
public struct CoachLink: Sendable, Equatable, Codable {
    public struct ID: EntityID {
        public let rawValue: UUID
        public init(rawValue: UUID) { self.rawValue = rawValue }
    }

    public var id: ID
    public var lifterID: TenantID
    public var coachID: TenantID
    public var status: LinkStatus
    public var requestedBy: LinkSide
    public var scopes: Set<Scope>
    public var createdAt: Date
    public var respondedAt: Date?
    public var endedAt: Date?
    public var endedBy: LinkSide?
    /// The other side's display name.
    public var lifterName: String
    public var coachName: String
    /// Set for the lifter's own active links (`CoachingService.links`): the coach's tier covers
    /// fewer clients than the coach has and this lifter joined after them, so the coach cannot see
    /// the lifter's data until the coach renews or ends another link.
    public var paused = false

    /// When the coaching began: when the other side accepted (a link made by an invite code is
    /// accepted as it is made).
    public var since: Date { respondedAt ?? createdAt }

    /// `paused` is decided per call and left out of exports.
    private enum CodingKeys: String, CodingKey {
        case id, lifterID, coachID, status, requestedBy, scopes, createdAt, respondedAt, endedAt, endedBy
        case lifterName, coachName
    }

    public init(
        id: ID, lifterID: TenantID, coachID: TenantID, status: LinkStatus, requestedBy: LinkSide,
        scopes: Set<Scope>, createdAt: Date, respondedAt: Date? = nil, endedAt: Date? = nil,
        endedBy: LinkSide? = nil, lifterName: String = "", coachName: String = ""
    ) {
        self.id = id
        self.lifterID = lifterID
        self.coachID = coachID
        self.status = status
        self.requestedBy = requestedBy
        self.scopes = scopes
        self.createdAt = createdAt
        self.respondedAt = respondedAt
        self.endedAt = endedAt
        self.endedBy = endedBy
        self.lifterName = lifterName
        self.coachName = coachName
    }
}

/// A coach's single-use invite code. The code itself is shown once, when it is made.
public struct CoachInvite: Sendable, Equatable, Codable {
    @LowercasedUUID public var id: UUID
    /// Only set in the answer to creating the invite.
    public var code: String?
    public var note: String
    public var createdAt: Date
    public var expiresAt: Date
    public var usedAt: Date?
    /// The client who redeemed it.
    public var usedBy: TenantID?

    public init(
        id: UUID, code: String?, note: String, createdAt: Date, expiresAt: Date, usedAt: Date?, usedBy: TenantID? = nil
    ) {
        self.id = id
        self.code = code
        self.note = note
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.usedBy = usedBy
    }
}

/// Invite codes: 10 characters from an alphabet without look-alikes (no 0/O, 1/I/L), about 49 bits
/// of randomness; they are single use, expire, and only their SHA-256 is stored.
public enum InviteCode {
    static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    public static let length = 10
    public static let defaultValidity: TimeInterval = 7 * 86_400
    public static let maxValidity: TimeInterval = 30 * 86_400

    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// The code as typed (case, spaces and dashes ignored), or `nil` when it cannot be a code.
    public static func normalize(_ typed: String) -> String? {
        let code = stripped(typed)
        guard code.count == length, code.allSatisfy(alphabet.contains) else { return nil }
        return code
    }

    /// Why `typed` cannot be a code (`normalize` answers `nil`), as the reason of a field error.
    public static func problem(_ typed: String) -> String {
        let code = stripped(typed)
        guard code.count == length else {
            return code.isEmpty
                ? "is required: the \(length) letters and digits the coach gave you"
                : "must be the \(length) letters and digits the coach gave you (this has \(code.count))"
        }
        return "has a character no code has (codes leave out 0, 1, I, L and O, which look alike): "
            + "check it against the code the coach gave you"
    }

    /// `typed` in capitals without the spaces and dashes a person may type between groups.
    private static func stripped(_ typed: String) -> String {
        typed.uppercased().filter { $0 != " " && $0 != "-" }
    }
}

/// What kind of data a coach call read, for the lifter's access log.
public enum AccessKind: String, Sendable, Codable, CaseIterable {
    case overview
    case history
    case details
    case progress
    case statistics
    case body
}

/// One coach call that read a lifter's data.
public struct AccessLogEntry: Sendable, Equatable, Codable {
    public var id: Int64
    public var coachID: TenantID
    public var coachName: String
    public var accessedAt: Date
    public var kind: AccessKind
    public var method: String
    /// The one workout the call read (a workout, its comments), if it read one.
    public var workout: AccessedWorkout?

    public init(
        id: Int64, coachID: TenantID, coachName: String, accessedAt: Date, kind: AccessKind, method: String,
        workout: AccessedWorkout? = nil
    ) {
        self.id = id
        self.coachID = coachID
        self.coachName = coachName
        self.accessedAt = accessedAt
        self.kind = kind
        self.method = method
        self.workout = workout
    }
}

/// The workout an access-log row names: its name and start while it exists, nil for both once the
/// lifter deleted it.
public struct AccessedWorkout: Sendable, Equatable, Codable {
    public var id: WorkoutID
    public var name: String?
    public var startedAt: Date?

    public init(id: WorkoutID, name: String?, startedAt: Date?) {
        self.id = id
        self.name = name
        self.startedAt = startedAt
    }
}

/// Where an access-log page ends.
public struct AccessLogCursor: PageCursor, Equatable {
    public var accessedAt: Date
    public var id: Int64

    public init(accessedAt: Date, id: Int64) {
        self.accessedAt = accessedAt
        self.id = id
    }

    public static var tokenPartCount: Int { 2 }
    public var tokenParts: [String] { [PageToken.micros(accessedAt), String(id)] }

    public init?(tokenParts parts: [String]) {
        guard let at = try? PageToken.date(micros: parts[0]), let id = Int64(parts[1]) else { return nil }
        self.init(accessedAt: at, id: id)
    }
}

/// What a coach's tier allows. An expired tier counts as free.
public enum CoachEntitlements {
    /// How many active clients a coach may have.
    public static func clientLimit(_ tier: Tier) -> Int {
        switch tier {
        case .coachPro: 200
        case .coach: 20
        case .free, .pro: 1
        }
    }

    /// Refuses a new active link when the coach is at the tier's limit, in words for whoever asked:
    /// the coach ("you have …", with the tier and the next one), or the lifter, who learns only that
    /// the coach cannot take new clients (a coach's tier is never readable across tenants).
    public static func checkCapacity(activeClients: Int, tier: Tier, askedBy side: LinkSide) throws(SpotterError) {
        let limit = clientLimit(tier)
        guard activeClients >= limit else { return }
        // A coach's tier and number of clients are the coach's business: a lifter is told only
        // that the coach cannot take more clients.
        guard side == .coach else {
            throw .failedPrecondition("the coach cannot take new clients at the moment; ask them, or try again later")
        }
        let limitText =
            activeClients == limit
            ? "the limit of the \(tierName(tier)) tier"
            : "more than the \(tierName(tier)) tier's \(limit)"
        throw .failedPrecondition(
            "you have \(DisplayFormat.count(activeClients, "active client")), \(limitText); \(nextTier(after: tier))")
    }

    /// What to do past a tier's number of clients: the next tier and its number.
    private static func nextTier(after tier: Tier) -> String {
        switch tier {
        case .coachPro: "contact support to raise it"
        case .coach: "the Coach Pro tier allows \(clientLimit(.coachPro))"
        case .free, .pro: "the Coach tier allows \(clientLimit(.coach))"
        }
    }

    /// Whether a tier covers the client whose link began after `before` other active links: a
    /// coach with more clients than the tier allows (after a downgrade or an expiry) keeps the
    /// earliest ones; the others' data stays closed until a link ends or the tier rises.
    public static func covers(clientsBefore before: Int, tier: Tier) -> Bool { before < clientLimit(tier) }

    /// The refusal to read (or assign to) a client the tier does not cover.
    public static func beyondLimit(_ client: String, tier: Tier) -> SpotterError {
        let limit = clientLimit(tier)
        let message =
            "\(client) is beyond the \(DisplayFormat.count(limit, "client")) the \(tierName(tier)) tier covers "
            + "(clients count in the order they joined); end a coaching to make room, or move up: \(nextTier(after: tier))"
        switch tier {
        case .coachPro: return .permissionDenied(message)
        case .coach: return .tierRequired(message, tier: .coachPro)
        case .free, .pro: return .tierRequired(message, tier: .coach)
        }
    }

    /// Which clients' exercises a coach's tier opens progress (and record flags) for.
    public enum ClientProgress: Sendable {
        case none
        case bigThree
        case every
    }

    public static func clientProgress(_ tier: Tier) -> ClientProgress {
        switch tier {
        case .coachPro: .every
        case .coach: .bigThree
        case .free, .pro: .none
        }
    }

    /// Whether the tier opens a client's progress for `exercise`, by id (the catalog's squat, bench
    /// press and deadlift, migration 0007, are the big three), for a page's links.
    public static func opensClientProgress(for exercise: ExerciseID, tier: Tier) -> Bool {
        switch clientProgress(tier) {
        case .every: true
        case .bigThree: bigThreeIDs.contains(exercise.description)
        case .none: false
        }
    }

    private static let bigThreeIDs: Set<String> = [
        "c0000000-0000-4000-8000-000000000001", "c0000000-0000-4000-8000-000000000002",
        "c0000000-0000-4000-8000-000000000003",
    ]

    /// A client's progress: the Coach tier covers the big three, Coach Pro every exercise.
    public static func checkClientProgress(for exercise: Exercise, tier: Tier) throws(SpotterError) {
        switch clientProgress(tier) {
        case .every:
            return
        case .bigThree:
            if exercise.bigThree != nil { return }
            throw .tierRequired(
                "a client's progress for \(exercise.name) needs the Coach Pro tier; the Coach tier covers "
                    + "Barbell Back Squat, Barbell Bench Press and Barbell Deadlift",
                tier: .coachPro)
        case .none:
            throw .tierRequired(
                "a client's progress needs the Coach tier (or Coach Pro for every exercise)", tier: .coach)
        }
    }

    /// A client's statistics: any coach tier (they are totals, not per exercise).
    public static func checkClientStatistics(tier: Tier) throws(SpotterError) {
        if clientProgress(tier) == .none {
            throw .tierRequired("a client's statistics need the Coach tier", tier: .coach)
        }
    }

    public static func tierName(_ tier: Tier) -> String {
        switch tier {
        case .free, .pro: "free"
        case .coach: "Coach"
        case .coachPro: "Coach Pro"
        }
    }
}
