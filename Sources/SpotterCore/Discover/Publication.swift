import Foundation

public struct PublicationID: EntityID {
    public let rawValue: UUID
    public init(rawValue: UUID) { self.rawValue = rawValue }
}

public enum PublicationKind: String, Sendable, Codable, CaseIterable {
    case template, program
}

public enum Difficulty: String, Sendable, Codable, CaseIterable, Comparable {
    case beginner, intermediate, advanced

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (lhs: Difficulty, rhs: Difficulty) -> Bool { lhs.rank < rhs.rank }
}

/// What a publication is for, chosen by its author (at least one, at most three).
public enum PublicationCategory: String, Sendable, Codable, CaseIterable {
    case strength, hypertrophy, powerlifting, weightlifting
    case generalFitness = "general_fitness"
    case conditioning
    case bodyweight
}

/// One template as published: its content with the exercises' names, frozen.
public struct PublishedTemplate: Sendable, Equatable, Codable {
    /// The template's id in the snapshot (a program's days name it): derived from the author's
    /// template id, never equal to it, so no private id is ever public.
    public var id: TemplateID
    public var content: TemplateContent
    public var exerciseNames: [String]

    public init(id: TemplateID, content: TemplateContent, exerciseNames: [String]) {
        self.id = id
        self.content = content
        self.exerciseNames = exerciseNames
    }
}

/// What one version of a publication holds: a template, or a program and the templates its days use.
public struct PublishedSnapshot: Sendable, Equatable, Codable {
    public var templates: [PublishedTemplate]
    public var program: ProgramContent?

    public init(templates: [PublishedTemplate], program: ProgramContent?) {
        self.templates = templates
        self.program = program
    }

    public var kind: PublicationKind { program == nil ? .template : .program }
    public var title: String { program?.name ?? templates.first?.content.name ?? "" }
}

/// The facets browsing filters on, derived from a snapshot's exercises.
public struct PublicationFacets: Sendable, Equatable {
    public var muscleGroups: [MuscleGroup]
    public var equipment: [Equipment]
    public var exerciseIDs: [ExerciseID]
    public var estimatedMinutes: Int
    public var weeks: Int
    public var sessionsPerWeek: Int

    public init(
        muscleGroups: [MuscleGroup], equipment: [Equipment], exerciseIDs: [ExerciseID], estimatedMinutes: Int,
        weeks: Int, sessionsPerWeek: Int
    ) {
        self.muscleGroups = muscleGroups
        self.equipment = equipment
        self.exerciseIDs = exerciseIDs
        self.estimatedMinutes = estimatedMinutes
        self.weeks = weeks
        self.sessionsPerWeek = sessionsPerWeek
    }
}

/// A public template or program: the latest version's description and facets.
public struct Publication: Sendable, Equatable {
    public var id: PublicationID
    public var authorID: TenantID
    public var authorName: String
    public var kind: PublicationKind
    /// The author's own template or program: set for the author only (it is private).
    public var sourceID: UUID?
    public var version: Int
    public var title: String
    public var description: String
    public var difficulty: Difficulty
    public var categories: [PublicationCategory]
    public var facets: PublicationFacets
    /// Current followers (a template: accounts that saved a copy).
    public var followers: Int
    /// Of those, the ones who started in the last 30 days: the popularity browsing sorts by.
    public var recentFollowers: Int
    public var publishedAt: Date
    public var updatedAt: Date
    /// Set once the author unpublished it (only its followers still see it).
    public var unpublishedAt: Date?

    public init(
        id: PublicationID, authorID: TenantID, authorName: String, kind: PublicationKind, sourceID: UUID?,
        version: Int, title: String, description: String, difficulty: Difficulty, categories: [PublicationCategory],
        facets: PublicationFacets, followers: Int, recentFollowers: Int, publishedAt: Date, updatedAt: Date,
        unpublishedAt: Date?
    ) {
        self.id = id
        self.authorID = authorID
        self.authorName = authorName
        self.kind = kind
        self.sourceID = sourceID
        self.version = version
        self.title = title
        self.description = description
        self.difficulty = difficulty
        self.categories = categories
        self.facets = facets
        self.followers = followers
        self.recentFollowers = recentFollowers
        self.publishedAt = publishedAt
        self.updatedAt = updatedAt
        self.unpublishedAt = unpublishedAt
    }
}

/// A publication with one version's content.
public struct PublicationDetail: Sendable, Equatable {
    public var publication: Publication
    public var version: Int
    public var snapshot: PublishedSnapshot

    public init(publication: Publication, version: Int, snapshot: PublishedSnapshot) {
        self.publication = publication
        self.version = version
        self.snapshot = snapshot
    }
}

/// What the author says when publishing.
public struct PublishDraft: Sendable, Equatable {
    public var kind: PublicationKind?
    public var sourceID: String
    /// Empty: the template's or program's own notes.
    public var description: String
    public var difficulty: String
    public var categories: [String]

    public init(kind: PublicationKind?, sourceID: String, description: String, difficulty: String, categories: [String])
    {
        self.kind = kind
        self.sourceID = sourceID
        self.description = description
        self.difficulty = difficulty
        self.categories = categories
    }
}

/// A version the store is asked to write: the snapshot and what describes it.
public struct PublicationVersion: Sendable, Equatable {
    public var kind: PublicationKind
    public var sourceID: UUID
    public var title: String
    public var description: String
    public var difficulty: Difficulty
    public var categories: [PublicationCategory]
    public var facets: PublicationFacets
    /// Lower-cased title, description and exercise names.
    public var searchText: String
    public var snapshot: PublishedSnapshot

    public init(
        kind: PublicationKind, sourceID: UUID, title: String, description: String, difficulty: Difficulty,
        categories: [PublicationCategory], facets: PublicationFacets, searchText: String, snapshot: PublishedSnapshot
    ) {
        self.kind = kind
        self.sourceID = sourceID
        self.title = title
        self.description = description
        self.difficulty = difficulty
        self.categories = categories
        self.facets = facets
        self.searchText = searchText
        self.snapshot = snapshot
    }
}

/// A tenant's follow of a public program, or save of a public template.
public struct PublicationFollow: Sendable, Equatable, Codable {
    public var publicationID: PublicationID
    public var kind: PublicationKind
    /// The version the copy holds.
    public var version: Int
    /// The program or template in the follower's own account.
    @LowercasedUUID public var copyID: UUID
    public var followedAt: Date

    public init(publicationID: PublicationID, kind: PublicationKind, version: Int, copyID: UUID, followedAt: Date) {
        self.publicationID = publicationID
        self.kind = kind
        self.version = version
        self.copyID = copyID
        self.followedAt = followedAt
    }
}

/// A followed public program as `GetToday` and `FollowPublication` show it: the version taken and
/// a later one the author published, offered (never applied) until the lifter takes it.
public struct PublicationOffer: Sendable, Equatable, Codable {
    public var publicationID: PublicationID
    public var version: Int
    /// A later version, when the author published one and has not unpublished it.
    public var latestVersion: Int?

    public init(publicationID: PublicationID, version: Int, latestVersion: Int?) {
        self.publicationID = publicationID
        self.version = version
        self.latestVersion = latestVersion
    }
}

/// A coach's (or author's) public profile.
public struct AuthorProfile: Sendable, Equatable {
    public var tenantID: TenantID
    public var kind: TenantKind
    public var displayName: String
    /// What `CoachingService.RequestCoach` takes.
    public var username: String
    public var bio: String
    public var specialities: [String]
    public var highlights: [String]
    /// Listed in the coach directory (coaches who chose it).
    public var listed: Bool
    public var followers: Int
    public var recentFollowers: Int

    public init(
        tenantID: TenantID, kind: TenantKind, displayName: String, username: String, bio: String,
        specialities: [String], highlights: [String], listed: Bool, followers: Int, recentFollowers: Int
    ) {
        self.tenantID = tenantID
        self.kind = kind
        self.displayName = displayName
        self.username = username
        self.bio = bio
        self.specialities = specialities
        self.highlights = highlights
        self.listed = listed
        self.followers = followers
        self.recentFollowers = recentFollowers
    }
}

/// A recommendation and the rule behind it, in words.
public struct Recommendation: Sendable, Equatable {
    public enum Rule: String, Sendable, CaseIterable {
        /// A muscle group the lifter trains but has not for a while.
        case muscleGroupRest = "muscle_group_rest"
        /// Close to a template the lifter repeats.
        case similarToRepeated = "similar_to_repeated"
        /// Followed by lifters who follow what the lifter follows.
        case alsoFollowed = "also_followed"
        /// Popular this month among publications for the lifter's equipment (the fallback).
        case popular
    }

    public var publication: Publication
    public var rule: Rule
    public var reason: String

    public init(publication: Publication, rule: Rule, reason: String) {
        self.publication = publication
        self.rule = rule
        self.reason = reason
    }
}
