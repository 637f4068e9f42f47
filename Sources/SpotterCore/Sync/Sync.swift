import Foundation

/// A client app installation of one tenant. The server makes the id when the device registers.
public struct DeviceID: EntityID {
    public let rawValue: UUID
    public init(rawValue: UUID) { self.rawValue = rawValue }
}

public struct Device: Sendable, Equatable, Codable {
    public var id: DeviceID
    public var label: String
    /// Mutation ids are 1, 2, 3, … per device; the last one the server applied.
    public var lastMutationID: Int64
    public var createdAt: Date

    public init(id: DeviceID, label: String, lastMutationID: Int64, createdAt: Date) {
        self.id = id
        self.label = label
        self.lastMutationID = lastMutationID
        self.createdAt = createdAt
    }
}

/// The kinds of object in a tenant's change feed.
public enum SyncKind: String, Sendable, CaseIterable, Codable {
    case workout, template, exercise, program, profile
    /// The program the lifter follows (one per lifter; its id is the lifter's tenant id).
    case follow
    /// A comment on one of the lifter's workouts, by the lifter or a coach.
    case comment
    /// A coach's template or program given to the lifter.
    case assignment
    /// An achievement the lifter earned (its id: `Award.id`); withdrawn ones are tombstones.
    case achievement
    /// A body measurement.
    case measurement

    /// The kinds a device may change by pushing mutations.
    public var isWritable: Bool {
        switch self {
        case .workout, .template, .exercise, .program, .profile, .measurement: true
        case .follow, .comment, .assignment, .achievement: false
        }
    }
}

/// One change a device made offline, sent in a push.
public struct Mutation: Sendable {
    public enum Change: Sendable {
        /// Create the object (base version 0) or replace it with this content.
        case put(Content)
        case delete
    }

    /// The new content of a put; its case names the kind.
    public enum Content: Sendable {
        case workout(WorkoutDraft)
        case template(TemplateDraft)
        case exercise(ExerciseDraft)
        case program(ProgramDraft)
        case profile(ProfileUpdate)
        case measurement(MeasurementDraft)
    }

    /// Consecutive per device, from 1.
    public var id: Int64
    public var kind: SyncKind
    /// The object's id (a UUID the client made); empty for the profile.
    public var objectID: String
    /// The version of the object the device changed: 0 when it creates the object.
    public var baseVersion: Int64
    public var change: Change
    /// A digest of the mutation as the device sent it (the API's message), to recognise a replay
    /// of this mutation among other changes sent under the same number; `nil` when unknown.
    public var fingerprint: [UInt8]?

    public init(
        id: Int64, kind: SyncKind, objectID: String, baseVersion: Int64, change: Change, fingerprint: [UInt8]? = nil
    ) {
        self.id = id
        self.kind = kind
        self.objectID = objectID
        self.baseVersion = baseVersion
        self.fingerprint = fingerprint
        self.change = change
    }
}

/// What the server did with one mutation. A push sent again answers with the same results.
public struct MutationResult: Sendable, Equatable {
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// Done. `version` is the object's version now (0 after a delete).
        case applied
        /// Based on an old version: the server kept its data. `version` is the server's version,
        /// `baseVersion` the device's; `serverDeleted` says the server's object is deleted.
        case conflict
        /// Invalid or not allowed: `violations` name the fields, or `message` says why.
        case rejected
    }

    public var mutationID: Int64
    public var status: Status
    public var kind: SyncKind
    public var objectID: UUID?
    public var version: Int64
    public var baseVersion: Int64
    public var serverDeleted: Bool
    public var violations: [FieldViolation]
    public var message: String
    /// The fingerprint of the mutation this answers (`Mutation.fingerprint`), when known.
    public var fingerprint: [UInt8]?

    public init(
        mutationID: Int64,
        status: Status,
        kind: SyncKind,
        objectID: UUID?,
        version: Int64,
        baseVersion: Int64,
        serverDeleted: Bool = false,
        violations: [FieldViolation] = [],
        message: String = "",
        fingerprint: [UInt8]? = nil
    ) {
        self.fingerprint = fingerprint
        self.mutationID = mutationID
        self.status = status
        self.kind = kind
        self.objectID = objectID
        self.version = version
        self.baseVersion = baseVersion
        self.serverDeleted = serverDeleted
        self.violations = violations
        self.message = message
    }
}

extension MutationResult {
    /// Whether this stored result can be the answer to `mutation` replayed: the same kind, object,
    /// base version and content. A device whose counter went back (a reinstall restoring its
    /// device id, a client bug) sends new changes under numbers the server has applied already;
    /// answering them "applied" would drop them without a word. Content is compared by fingerprint
    /// where both have one; a result whose object id the server could not read (a rejection) is
    /// compared by kind and base version.
    public func answers(_ mutation: Mutation) -> Bool {
        guard kind == mutation.kind, baseVersion == mutation.baseVersion else { return false }
        if let fingerprint, let sent = mutation.fingerprint, fingerprint != sent { return false }
        guard let objectID, let sent = UUID(hexadecimal: mutation.objectID) else { return true }
        return objectID == sent
    }

    /// The refusal of a push whose mutation at `index` reuses the number of a different change.
    public func reusedNumber(at index: Int, lastApplied: Int64) -> SpotterError {
        let object = objectID.map { " \($0.uuidString.lowercased())" } ?? ""
        return .failedPrecondition(
            "mutations[\(index)].mutation_id: this device's mutation \(mutationID) was another change "
                + "(\(kind.rawValue)\(object) from version \(baseVersion)); numbers are never reused, so push new "
                + "changes from mutation \(lastApplied + 1) on")
    }
}

/// The stored state of a mutation's object, read under a row lock before it is applied.
public struct ObjectState: Sendable, Equatable {
    public var version: Int64
    public var deleted: Bool

    public init(version: Int64, deleted: Bool) {
        self.version = version
        self.deleted = deleted
    }
}

/// A position in a tenant's change feed: every change numbered up to `seq` has been pulled.
public struct SyncCursor: PageCursor, Equatable, Comparable {
    public var seq: Int64
    /// While a first pull (from an empty cursor) goes on: the feed's last number when it began.
    /// Deletions up to it are of objects the new device never had, so none is sent.
    public var firstPullThrough: Int64
    /// Whose feed the numbers count in. A cursor names its tenant so that one account's cursor is
    /// refused by another's pull instead of skipping or replaying that account's changes.
    public var tenant: TenantID?

    public init(seq: Int64, firstPullThrough: Int64 = 0, tenant: TenantID? = nil) {
        self.seq = seq
        self.firstPullThrough = firstPullThrough
        self.tenant = tenant
    }

    public static let start = SyncCursor(seq: 0)

    public var isStart: Bool { seq == 0 && firstPullThrough == 0 }

    public static var tokenPartCount: Int { 4 }
    public var tokenParts: [String] { ["sync", String(seq), String(firstPullThrough), tenant?.description ?? ""] }

    public init?(tokenParts parts: [String]) {
        guard parts[0] == "sync", let seq = Int64(parts[1]), seq >= 0, let through = Int64(parts[2]), through >= 0
        else { return nil }
        var tenant: TenantID?
        if parts.count > 3 {
            guard let id = UUID(hexadecimal: parts[3]) else { return nil }
            tenant = TenantID(rawValue: id)
        }
        self.init(seq: seq, firstPullThrough: through, tenant: tenant)
    }

    /// The cursor in a pull's `cursor` field for `tenant` (`start` when empty). Refuses a cursor
    /// that another account's pull returned; one from before cursors named their tenant (three
    /// parts) is taken as the caller's.
    public static func decode(_ token: String, for tenant: TenantID, field: String = "cursor") throws(SpotterError)
        -> SyncCursor
    {
        var cursor: SyncCursor
        if let named = try? PageToken.cursor(SyncCursor.self, from: token, field: field) {
            guard named.tenant == tenant else {
                throw .invalid(field, "belongs to another account; pull from an empty cursor")
            }
            cursor = named
        } else if let parts = try PageToken.decode(token, parts: 3, field: field) {
            guard let legacy = SyncCursor(tokenParts: parts) else {
                throw .invalid(field, "is not a token this call returned")
            }
            cursor = legacy
        } else {
            return .start
        }
        cursor.tenant = tenant
        return cursor
    }

    public var token: String { isStart ? "" : PageToken.encode(tokenParts) }

    public static func < (lhs: SyncCursor, rhs: SyncCursor) -> Bool { lhs.seq < rhs.seq }
}

/// A coach's assignment as the lifter's device keeps it: the assignment with what it names, at
/// the latest version.
public struct AssignedPlan: Sendable, Equatable {
    public var assignment: Assignment
    /// The assigned template, or the templates of the assigned program.
    public var templates: [Template]
    public var program: Program?

    public init(assignment: Assignment, templates: [Template], program: Program?) {
        self.assignment = assignment
        self.templates = templates
        self.program = program
    }
}

/// An object as it is now, in a pull.
public enum SyncObject: Sendable, Equatable {
    case workout(Workout)
    case template(Template)
    case exercise(Exercise)
    case program(Program)
    case profile(Profile)
    case follow(ProgramFollow)
    case comment(WorkoutComment)
    case assignment(AssignedPlan)
    case achievement(Achievement)
    case measurement(BodyMeasurement)
}

/// One entry of a pull: the object as it is now, or a tombstone (`object == nil`) when it was
/// deleted or the tenant may no longer see it.
public struct SyncChange: Sendable, Equatable {
    public var seq: Int64
    public var kind: SyncKind
    public var objectID: UUID
    public var object: SyncObject?

    public init(seq: Int64, kind: SyncKind, objectID: UUID, object: SyncObject?) {
        self.seq = seq
        self.kind = kind
        self.objectID = objectID
        self.object = object
    }
}

/// One page of a pull.
public struct PullPage: Sendable, Equatable {
    public var changes: [SyncChange]
    /// Where the next pull starts. Equal to the request's cursor when nothing changed.
    public var cursor: SyncCursor
    /// More changes wait after `cursor`: pull again at once.
    public var hasMore: Bool
    /// The last mutation the server applied from the device the pull named, if it named one.
    public var lastMutationID: Int64?

    public init(changes: [SyncChange], cursor: SyncCursor, hasMore: Bool, lastMutationID: Int64?) {
        self.changes = changes
        self.cursor = cursor
        self.hasMore = hasMore
        self.lastMutationID = lastMutationID
    }
}

extension SpotterError {
    /// A pull whose cursor is older than the tombstone retention, or is not this tenant's.
    public static func syncResetRequired(retentionDays: Int) -> SpotterError {
        .syncReset(
            "cursor: changes after it were purged (deletions are kept \(retentionDays) days) or it is not this "
                + "account's; discard the local copy and pull again from an empty cursor")
    }
}
