import Foundation
import GRPCCore
import SpotterCore
import SpotterProto
import SwiftProtobuf

/// `spotter.v1.DiscoverService`: publishing, browsing, the coach directory, following and For You.
public struct DiscoverHandler: Spotter_V1_DiscoverService.SimpleServiceProtocol {
    private let discover: DiscoverService

    public init(discover: DiscoverService) {
        self.discover = discover
    }

    public func publish(request: Spotter_V1_PublishRequest, context: ServerContext) async throws
        -> Spotter_V1_Publication
    {
        // A kind or difficulty number this server has no value for is named, not read as unset.
        var validator = Validator()
        let draft = PublishDraft(
            kind: .known(request.kind, "kind", into: &validator), sourceID: request.sourceID,
            description: request.description_p,
            difficulty: Difficulty.known(request.difficulty, "difficulty", unset: ", or unset", into: &validator)?
                .rawValue ?? "",
            categories: request.categories.map { Self.text(PublicationCategory.self, $0) })
        try validator.validate()
        return Spotter_V1_Publication(try await discover.publish(try RequestContext.principal(), draft))
    }

    public func unpublish(request: Spotter_V1_UnpublishRequest, context: ServerContext) async throws
        -> Spotter_V1_UnpublishResponse
    {
        try await discover.unpublish(try RequestContext.principal(), id: request.publicationID)
        return Spotter_V1_UnpublishResponse()
    }

    public func listMyPublications(request: Spotter_V1_ListMyPublicationsRequest, context: ServerContext)
        async throws -> Spotter_V1_ListPublicationsResponse
    {
        let publications = try await discover.ownPublications(try RequestContext.principal())
        return .with { $0.publications = publications.map(Spotter_V1_Publication.init) }
    }

    public func getPublication(request: Spotter_V1_GetPublicationRequest, context: ServerContext) async throws
        -> Spotter_V1_PublicationDetail
    {
        let (principal, tenant) = try RequestContext.tenant()
        return Spotter_V1_PublicationDetail(
            try await discover.publication(principal, id: request.publicationID, version: Int(request.version)),
            unit: tenant.unit)
    }

    public func browsePublications(request: Spotter_V1_BrowsePublicationsRequest, context: ServerContext)
        async throws -> Spotter_V1_ListPublicationsResponse
    {
        var browse = DiscoverService.BrowseRequest()
        browse.kind = try PublicationKind.filter(request.kind, field: "kind")
        switch request.sort {
        case .newest: browse.sort = .newest
        case .popular, .unspecified: browse.sort = .popular
        case .UNRECOGNIZED(let number):
            throw SpotterError.invalid("sort", "must be POPULAR or NEWEST, or unset for POPULAR; not \(number)")
        }
        browse.categories = request.categories.map { Self.text(PublicationCategory.self, $0) }
        browse.muscleGroups = request.muscleGroups.map { Self.text(MuscleGroup.self, $0) }
        browse.equipment = request.equipment.map { Self.text(Equipment.self, $0) }
        browse.difficulties = request.difficulties.map { Self.text(Difficulty.self, $0) }
        browse.minMinutes = Int(request.minMinutes)
        browse.maxMinutes = Int(request.maxMinutes)
        browse.authorID = request.authorID
        browse.text = request.text
        let page = try await discover.browse(
            try RequestContext.principal(), browse, pageSize: Int(request.page.pageSize),
            pageToken: request.page.pageToken)
        return .with {
            $0.publications = page.items.map(Spotter_V1_Publication.init)
            $0.nextPageToken = page.nextToken
        }
    }

    public func listCoaches(request: Spotter_V1_ListCoachesRequest, context: ServerContext) async throws
        -> Spotter_V1_ListCoachesResponse
    {
        let page = try await discover.directory(
            try RequestContext.principal(), speciality: request.speciality, text: request.text,
            pageSize: Int(request.page.pageSize), pageToken: request.page.pageToken)
        return .with {
            $0.coaches = page.items.map(Spotter_V1_CoachProfile.init)
            $0.nextPageToken = page.nextToken
        }
    }

    public func getCoachProfile(request: Spotter_V1_GetCoachProfileRequest, context: ServerContext) async throws
        -> Spotter_V1_CoachProfileResponse
    {
        let (profile, publications) = try await discover.author(try RequestContext.principal(), id: request.coachID)
        return .with {
            $0.coach = Spotter_V1_CoachProfile(profile)
            $0.publications = publications.map(Spotter_V1_Publication.init)
        }
    }

    public func setDirectoryListing(request: Spotter_V1_SetDirectoryListingRequest, context: ServerContext)
        async throws -> Spotter_V1_SetDirectoryListingResponse
    {
        let profile = try await discover.setListing(
            try RequestContext.principal(), listed: request.listed, highlights: request.highlights)
        return .with { response in
            if let profile { response.coach = Spotter_V1_CoachProfile(profile) }
        }
    }

    public func followPublication(request: Spotter_V1_FollowPublicationRequest, context: ServerContext)
        async throws -> Spotter_V1_FollowedProgram
    {
        let follow = try await discover.follow(
            try RequestContext.principal(), id: request.publicationID, startOn: request.startOn)
        return Spotter_V1_FollowedProgram(follow)
    }

    public func savePublication(request: Spotter_V1_SavePublicationRequest, context: ServerContext) async throws
        -> Spotter_V1_Template
    {
        let (principal, tenant) = try RequestContext.tenant()
        return Spotter_V1_Template(try await discover.save(principal, id: request.publicationID), unit: tenant.unit)
    }

    public func listFollowedPublications(
        request: Spotter_V1_ListFollowedPublicationsRequest, context: ServerContext
    ) async throws -> Spotter_V1_ListFollowedPublicationsResponse {
        let followed = try await discover.followed(try RequestContext.principal())
        return .with {
            $0.publications = followed.map { follow, publication in
                .with {
                    $0.publication = Spotter_V1_Publication(publication)
                    $0.version = Int32(follow.version)
                    $0.copyID = follow.copyID.lowercasedString
                    $0.followedAt = Spotter_V1_Timestamp(follow.followedAt)
                }
            }
        }
    }

    public func forYou(request: Spotter_V1_ForYouRequest, context: ServerContext) async throws
        -> Spotter_V1_ForYouResponse
    {
        let recommendations = try await discover.forYou(try RequestContext.principal())
        return .with {
            $0.recommendations = recommendations.map { recommendation in
                .with {
                    $0.publication = Spotter_V1_Publication(recommendation.publication)
                    $0.rule = recommendation.rule.proto()
                    $0.reason = recommendation.reason
                }
            }
        }
    }

    /// A proto enum value as the core case's name, or its number when it has none (the service
    /// then names the field and the values it takes).
    static func text<Value: CaseIterable & Equatable & RawRepresentable, P: SwiftProtobuf.Enum>(
        _: Value.Type, _ value: P
    ) -> String where Value.RawValue == String {
        Value(proto: value)?.rawValue ?? String(value.rawValue)
    }
}

extension Spotter_V1_Publication {
    init(_ publication: Publication) {
        self.init()
        publicationID = publication.id.description
        authorID = publication.authorID.description
        authorName = publication.authorName
        kind = publication.kind.proto()
        version = Int32(publication.version)
        title = publication.title
        description_p = publication.description
        difficulty = publication.difficulty.proto()
        categories = publication.categories.map { $0.proto() }
        muscleGroups = publication.facets.muscleGroups.map { $0.proto() }
        equipment = publication.facets.equipment.map { $0.proto() }
        estimatedMinutes = Int32(publication.facets.estimatedMinutes)
        weeks = Int32(publication.facets.weeks)
        sessionsPerWeek = Int32(publication.facets.sessionsPerWeek)
        followers = Int32(publication.followers)
        recentFollowers = Int32(publication.recentFollowers)
        publishedAt = Spotter_V1_Timestamp(publication.publishedAt)
        updatedAt = Spotter_V1_Timestamp(publication.updatedAt)
        if let unpublished = publication.unpublishedAt { unpublishedAt = Spotter_V1_Timestamp(unpublished) }
    }
}

extension Spotter_V1_PublicationDetail {
    /// The publication with its target weights in `unit`, the reader's.
    init(_ detail: PublicationDetail, unit: WeightUnit) {
        self.init()
        publication = Spotter_V1_Publication(detail.publication)
        version = Int32(detail.version)
        templates = detail.snapshot.templates.map { template in
            .with {
                $0.templateID = template.id.description
                $0.name = template.content.name
                $0.notes = template.content.notes
                $0.items = zip(template.content.items, template.exerciseNames).map {
                    Spotter_V1_TemplateItem($0, exerciseName: $1, unit: unit)
                }
                $0.estimatedMinutes = Int32(SessionEstimate.minutes(template.content))
            }
        }
        if let program = detail.snapshot.program {
            let names = Dictionary(
                detail.snapshot.templates.map { ($0.id, $0.content.name) }, uniquingKeysWith: { first, _ in first })
            programNotes = program.notes
            programWeeks = Int32(program.weeks)
            programDays = program.days.map { day in
                .with {
                    $0.week = Int32(day.week)
                    $0.weekday = Int32(day.weekday)
                    $0.templateID = day.templateID.description
                    $0.templateName = names[day.templateID] ?? ""
                }
            }
        }
    }
}

extension Spotter_V1_CoachProfile {
    init(_ profile: AuthorProfile) {
        self.init()
        coachID = profile.tenantID.description
        displayName = profile.displayName
        username = profile.username
        bio = profile.bio
        specialities = profile.specialities
        highlights = profile.highlights
        listed = profile.listed
        followers = Int32(profile.followers)
        recentFollowers = Int32(profile.recentFollowers)
    }
}
