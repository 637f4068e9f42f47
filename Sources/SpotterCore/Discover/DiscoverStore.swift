import Foundation

public enum PublicationSort: String, Sendable, CaseIterable {
    /// Followers who started in the last 30 days, most first.
    case popular
    /// The latest version's date, newest first.
    case newest
}

/// What browsing asks for; every given condition must hold.
public struct PublicationFilter: Sendable, Equatable {
    public var kind: PublicationKind?
    /// Any of these.
    public var categories: [PublicationCategory] = []
    /// Works any of these.
    public var muscleGroups: [MuscleGroup] = []
    /// The equipment the lifter has: a publication matches when it needs nothing else.
    public var equipment: [Equipment] = []
    /// Any of these.
    public var difficulties: [Difficulty] = []
    public var minMinutes: Int?
    public var maxMinutes: Int?
    public var author: TenantID?
    /// Every word appears in the title, description or an exercise name.
    public var words: [String] = []
    /// Only these publications (what the service asks for; browsing never sets it).
    public var ids: [PublicationID]?
    /// Unpublished ones too, where the principal may still read them (a follower's).
    public var includeUnpublished = false
    public var sort: PublicationSort = .popular

    public init() {}

    /// The filter as a page token's query (`PageToken.cursor(_:from:query:)`): each field written
    /// out, so a token made by one spotterd reads the same in another.
    public var tokenQuery: [String] {
        [
            kind?.rawValue ?? "", categories.map(\.rawValue).joined(separator: ","),
            muscleGroups.map(\.rawValue).joined(separator: ","), equipment.map(\.rawValue).joined(separator: ","),
            difficulties.map(\.rawValue).joined(separator: ","), minMinutes.map(String.init) ?? "",
            maxMinutes.map(String.init) ?? "", author?.description ?? "", words.joined(separator: " "),
            ids?.map(\.description).joined(separator: ",") ?? "-", String(includeUnpublished), sort.rawValue,
        ]
    }
}

/// Where a browse page ends: the sort value and the id.
public struct PublicationCursor: PageCursor, Equatable {
    public var sort: PublicationSort
    /// Recent followers (popular) or the update time in microseconds (newest).
    public var value: Int64
    public var id: PublicationID

    public init(sort: PublicationSort, value: Int64, id: PublicationID) {
        self.sort = sort
        self.value = value
        self.id = id
    }

    public init(_ publication: Publication, sort: PublicationSort) {
        self.init(
            sort: sort,
            value: sort == .popular ? Int64(publication.recentFollowers) : UnixMicros.of(publication.updatedAt),
            id: publication.id)
    }

    public static let tokenPartCount = 3
    public init?(tokenParts: [String]) {
        guard let sort = PublicationSort(rawValue: tokenParts[0]), let value = Int64(tokenParts[1]),
            let id = PublicationID(tokenParts[2])
        else { return nil }
        self.init(sort: sort, value: value, id: id)
    }
    public var tokenParts: [String] { [sort.rawValue, String(value), id.description] }
}

/// Where a coach directory page ends.
public struct DirectoryCursor: PageCursor, Equatable {
    public var recentFollowers: Int
    public var id: TenantID

    public init(recentFollowers: Int, id: TenantID) {
        self.recentFollowers = recentFollowers
        self.id = id
    }

    public static let tokenPartCount = 2
    public init?(tokenParts: [String]) {
        guard let followers = Int(tokenParts[0]), let id = TenantID(tokenParts[1]) else { return nil }
        self.init(recentFollowers: followers, id: id)
    }
    public var tokenParts: [String] { [String(recentFollowers), id.description] }
}

/// What For You reads of the lifter's own recent training.
public struct TrainingDigest: Sendable, Equatable {
    public struct MuscleGroupUse: Sendable, Equatable {
        public var muscleGroup: MuscleGroup
        public var workouts: Int
        public var lastTrainedAt: Date

        public init(muscleGroup: MuscleGroup, workouts: Int, lastTrainedAt: Date) {
            self.muscleGroup = muscleGroup
            self.workouts = workouts
            self.lastTrainedAt = lastTrainedAt
        }
    }

    public struct TemplateUse: Sendable, Equatable {
        public var templateID: TemplateID
        public var name: String
        public var exerciseIDs: [ExerciseID]
        public var workouts: Int
        /// Of the last four ISO weeks (UTC), those with a workout from it.
        public var recentWeeks: Int

        public init(templateID: TemplateID, name: String, exerciseIDs: [ExerciseID], workouts: Int, recentWeeks: Int) {
            self.templateID = templateID
            self.name = name
            self.exerciseIDs = exerciseIDs
            self.workouts = workouts
            self.recentWeeks = recentWeeks
        }
    }

    public var muscleGroups: [MuscleGroupUse]
    public var templates: [TemplateUse]
    public var equipment: [Equipment]

    public init(muscleGroups: [MuscleGroupUse], templates: [TemplateUse], equipment: [Equipment]) {
        self.muscleGroups = muscleGroups
        self.templates = templates
        self.equipment = equipment
    }
}

/// Publications, follows and public profiles.
public protocol DiscoverStore: Sendable {
    /// Runs `body` in one transaction acting as the principal (the training and coaching stores
    /// called inside join it).
    func inOneTransaction<T: Sendable>(_ principal: Principal, _ body: () async throws -> T) async throws -> T

    /// Writes the principal's publication of `version.sourceID`: a new one under `newID`, or the
    /// next version of the existing one (live again if it was unpublished). A snapshot equal to the
    /// latest version's keeps that version. `failedPrecondition` when it would make more than
    /// `maximumLive` live publications (checked under a per-author lock).
    func publish(
        _ principal: Principal, _ version: PublicationVersion, newID: PublicationID, maximumLive: Int, now: Date
    ) async throws -> Publication
    /// Whether a live template with this id is the principal's own (not one a coach assigned).
    func ownsTemplate(_ principal: Principal, _ id: TemplateID) async throws -> Bool
    /// `false` when the principal has no live publication with this id.
    func unpublish(_ principal: Principal, _ id: PublicationID, now: Date) async throws -> Bool
    /// A publication the principal may read (live, its own, or one it follows) with one version
    /// (the latest when `nil`).
    func publication(_ principal: Principal, _ id: PublicationID, version: Int?, now: Date) async throws
        -> PublicationDetail?
    /// Live publications matching `filter`, in its order, after `cursor`.
    func publications(
        _ principal: Principal, _ filter: PublicationFilter, after cursor: PublicationCursor?, limit: Int, now: Date
    ) async throws -> [Publication]
    /// The principal's own publications, live and unpublished, newest first.
    func ownPublications(_ principal: Principal, now: Date) async throws -> [Publication]

    /// Coaches listed in the directory, most recent followers first.
    func directory(
        _ principal: Principal, speciality: String?, words: [String], after cursor: DirectoryCursor?, limit: Int,
        now: Date
    ) async throws -> [AuthorProfile]
    /// A listed coach or an author with a live publication.
    func author(_ principal: Principal, _ id: TenantID, now: Date) async throws -> AuthorProfile?
    /// Whether the principal is listed in the coach directory, and its highlights.
    func listing(_ principal: Principal) async throws -> (listed: Bool, highlights: [String])
    /// Lists (or unlists) the principal in the coach directory with these highlights.
    func setListing(_ principal: Principal, listed: Bool, highlights: [String], now: Date) async throws

    /// The principal's follows and saves.
    func follows(_ principal: Principal) async throws -> [PublicationFollow]
    /// Records (or moves to a new version) the principal's follow.
    func recordFollow(_ principal: Principal, _ follow: PublicationFollow, now: Date) async throws
    /// Publications followed by at least `minimumShared` other tenants who also follow one the
    /// principal follows: (that publication, the principal's one, how many).
    func alsoFollowed(_ principal: Principal, minimumShared: Int) async throws
        -> [(publication: PublicationID, because: PublicationID, shared: Int)]
    /// The principal's training since `since`.
    func digest(_ principal: Principal, since: Date, now: Date) async throws -> TrainingDigest
}
