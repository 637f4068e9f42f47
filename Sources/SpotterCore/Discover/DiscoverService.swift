import Foundation

/// Discover: publishing templates and programs, browsing and searching them, the coach directory,
/// following a public program (or saving a public template), and For You.
///
/// Anyone signed in may publish — coaches to be found, lifters because sharing a plan that works
/// is how a lifting community grows (the Active++ document's "public plans that other users can
/// follow"). What is published is a frozen snapshot using built-in exercises only; the author's
/// template or program stays private and keeps changing on its own. Following or saving copies the
/// snapshot into the follower's account, so it keeps working when the author unpublishes; a later
/// version is offered, never applied, until the follower takes it.
public struct DiscoverService: Sendable {
    let store: any DiscoverStore
    let training: TrainingServices
    let coaching: CoachingService
    let templates: any TemplateStore
    let now: @Sendable () -> Date

    public init(
        store: any DiscoverStore, training: TrainingServices, coaching: CoachingService, templates: any TemplateStore,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.training = training
        self.coaching = coaching
        self.templates = templates
        self.now = now
    }

    static let publicationNotFound = SpotterError.notFound("publication not found")
    static let authorNotFound = SpotterError.notFound("coach not found")
    public static let builtInOnly = "published templates can use built-in exercises only"
    public static let maximumCategories = 3
    public static let maximumHighlights = 5
    public static let maximumHighlightLength = 200
    public static let maximumDescriptionLength = 2000
    /// Live publications one account may have at once.
    public static let maximumLivePublications = 100

    static func publicationID(_ text: String, field: String = "publication_id") throws(SpotterError)
        -> PublicationID
    {
        guard !text.isEmpty else { throw .invalid(field, "is required") }
        guard let id = PublicationID(text) else { throw .invalid(field, "must be a UUID") }
        return id
    }

    // MARK: Publishing

    /// Publishes one of the principal's templates or programs, or its next version.
    public func publish(_ principal: Principal, _ draft: PublishDraft) async throws -> Publication {
        var validator = Validator()
        validator.check(draft.kind != nil, "kind", "must be TEMPLATE or PROGRAM")
        if draft.sourceID.isEmpty {
            validator.add("source_id", "is required")
        } else {
            validator.check(UUID(hexadecimal: draft.sourceID) != nil, "source_id", "must be a UUID")
        }
        let difficulty = Difficulty(rawValue: draft.difficulty)
        validator.check(difficulty != nil, "difficulty", "must be BEGINNER, INTERMEDIATE or ADVANCED")
        let description = draft.description.trimmingWhitespacesAndNewlines()
        // Counted as PostgreSQL counts (code points), so the database's own check never fires first.
        validator.check(
            description.storedLength <= Self.maximumDescriptionLength, "description",
            "must be at most \(Self.maximumDescriptionLength) characters")
        var categories: [PublicationCategory] = []
        for (index, text) in draft.categories.enumerated() {
            guard let category = PublicationCategory(rawValue: text) else {
                validator.add(
                    "categories[\(index)]",
                    "must be one of \(PublicationCategory.allCases.map(\.rawValue).joined(separator: ", "))")
                continue
            }
            if categories.contains(category) {
                validator.add("categories[\(index)]", "repeats '\(text)'")
            }
            categories.append(category)
        }
        validator.check(
            (1...Self.maximumCategories).contains(draft.categories.count), "categories",
            "must name 1 to \(Self.maximumCategories) categories")
        try validator.validate()
        let kind = draft.kind!
        return try await store.inOneTransaction(principal) {
            let (snapshot, sourceID) = try await snapshot(principal, kind: kind, sourceID: draft.sourceID)
            var exercises: [ExerciseID: Exercise] = [:]
            for id in snapshot.templates.flatMap({ $0.content.items.map(\.exerciseID) }).uniqued() {
                exercises[id] = try await training.exercises.get(principal, id.description)
            }
            let facets = PublicationFacets(snapshot, exercises: exercises)
            let notes = (snapshot.program?.notes ?? snapshot.templates.first?.content.notes ?? "")
            let text =
                description.isEmpty
                ? notes.prefix(storedLength: Self.maximumDescriptionLength)
                : description
            let names = snapshot.templates.flatMap(\.exerciseNames).uniqued()
            let version = PublicationVersion(
                kind: kind, sourceID: sourceID,
                title: snapshot.title, description: text, difficulty: difficulty!, categories: categories,
                facets: facets, searchText: ([snapshot.title, text] + names).joined(separator: "\n").lowercased(),
                snapshot: snapshot)
            return try await store.publish(
                principal, version, newID: .random(), maximumLive: Self.maximumLivePublications, now: now())
        }
    }

    /// The frozen content of the principal's own template or program, and its id.
    private func snapshot(_ principal: Principal, kind: PublicationKind, sourceID: String) async throws
        -> (PublishedSnapshot, UUID)
    {
        let templateIDs: [TemplateID]
        let program: ProgramContent?
        let source: UUID
        switch kind {
        case .template:
            let id = TemplateID(sourceID)!  // checked by `publish`
            templateIDs = [id]
            program = nil
            source = id.rawValue
        case .program:
            let found = try await coaching.ownProgram(principal, id: sourceID)
            templateIDs = found.content.days.map(\.templateID).uniqued()
            program = found.content
            source = found.id.rawValue
        }
        // The snapshot names its templates by ids of its own: the author's stay private.
        func publicID(_ id: TemplateID) -> TemplateID {
            .derived(principal, "published-template", "\(kind.rawValue)/\(source.uuidString)/\(id)")
        }
        var published: [PublishedTemplate] = []
        for id in templateIDs {
            // Only the principal's own: a template a coach assigned is the coach's to publish.
            guard try await store.ownsTemplate(principal, id),
                let template = try await templates.template(principal, id)
            else { throw SpotterError.notFound("template not found") }
            for item in template.content.items where !item.exerciseID.isCatalog {
                throw SpotterError.invalid(
                    "source_id",
                    "template '\(template.content.name)' uses your custom exercise "
                        + "'\(template.exerciseNames[item.exerciseID] ?? "")'; \(Self.builtInOnly)")
            }
            published.append(
                PublishedTemplate(
                    id: publicID(id), content: template.content,
                    exerciseNames: template.content.items.map { template.exerciseNames[$0.exerciseID] ?? "" }))
        }
        let snapshot = PublishedSnapshot(
            templates: published,
            program: program.map { program in
                var content = program
                content.days = program.days.map {
                    ProgramDay(week: $0.week, weekday: $0.weekday, templateID: publicID($0.templateID))
                }
                return content
            })
        return (snapshot, source)
    }

    /// Hides a publication from browsing and the directory; followers keep their copies.
    public func unpublish(_ principal: Principal, id: String) async throws {
        guard try await store.unpublish(principal, try Self.publicationID(id), now: now()) else {
            throw Self.publicationNotFound
        }
    }

    /// A publication with its latest version's content, or an earlier version's.
    public func publication(_ principal: Principal, id: String, version: Int) async throws -> PublicationDetail {
        guard version >= 0 else { throw SpotterError.invalid("version", "must not be negative") }
        guard
            let detail = try await store.publication(
                principal, try Self.publicationID(id), version: version == 0 ? nil : version, now: now())
        else { throw Self.publicationNotFound }
        return detail
    }

    /// The principal's own publications, live and unpublished.
    public func ownPublications(_ principal: Principal) async throws -> [Publication] {
        try await store.ownPublications(principal, now: now())
    }

    // MARK: Browsing

    /// The browse filter's raw fields, as a client sends them.
    public struct BrowseRequest: Sendable {
        public var kind: PublicationKind?
        public var categories: [String] = []
        public var muscleGroups: [String] = []
        public var equipment: [String] = []
        public var difficulties: [String] = []
        public var minMinutes: Int = 0
        public var maxMinutes: Int = 0
        public var authorID: String = ""
        public var text: String = ""
        public var sort: PublicationSort = .popular

        public init() {}
    }

    public func browse(_ principal: Principal, _ request: BrowseRequest, pageSize: Int, pageToken: String)
        async throws -> Page<Publication>
    {
        let filter = try Self.filter(request)
        let limit = try PageToken.size(pageSize)
        let query = [principal.tenantID.description] + filter.tokenQuery
        let cursor = try PageToken.cursor(PublicationCursor.self, from: pageToken, query: query)
        let items = try await store.publications(principal, filter, after: cursor, limit: limit + 1, now: now())
        return Page(fetched: items, limit: limit, query: query) { PublicationCursor($0, sort: filter.sort) }
    }

    static func filter(_ request: BrowseRequest) throws(SpotterError) -> PublicationFilter {
        var validator = Validator()
        var filter = PublicationFilter()
        filter.kind = request.kind
        filter.sort = request.sort
        filter.categories = parse(request.categories, "categories", &validator)
        filter.muscleGroups = parse(request.muscleGroups, "muscle_groups", &validator)
        filter.equipment = parse(request.equipment, "equipment", &validator)
        // The equipment one has: bodyweight exercises need none, so they always fit.
        if !filter.equipment.isEmpty, !filter.equipment.contains(.bodyweight) { filter.equipment.append(.bodyweight) }
        filter.difficulties = parse(request.difficulties, "difficulties", &validator)
        validator.check(request.minMinutes >= 0, "min_minutes", "must not be negative")
        validator.check(request.maxMinutes >= 0, "max_minutes", "must not be negative")
        validator.check(
            request.maxMinutes == 0 || request.maxMinutes >= request.minMinutes, "max_minutes",
            "must be at least min_minutes")
        filter.minMinutes = request.minMinutes > 0 ? request.minMinutes : nil
        filter.maxMinutes = request.maxMinutes > 0 ? request.maxMinutes : nil
        if !request.authorID.isEmpty {
            filter.author = TenantID(request.authorID)
            validator.check(filter.author != nil, "author_id", "must be a UUID")
        }
        filter.words = words(request.text, &validator)
        validator.check(filter.words.count <= 8, "text", "must be at most 8 words")
        try validator.validate()
        return filter
    }

    /// A search text (at most 100 characters) as the lower-cased words that must all appear.
    private static func words(_ text: String, _ validator: inout Validator) -> [String] {
        let text = text.trimmingWhitespacesAndNewlines()
        validator.check(text.count <= 100, "text", "must be at most 100 characters")
        return text.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
    }

    private static func parse<Value: RawRepresentable & CaseIterable>(
        _ texts: [String], _ field: String, _ validator: inout Validator
    ) -> [Value] where Value.RawValue == String {
        texts.enumerated().compactMap { index, text in
            guard let value = Value(rawValue: text) else {
                validator.add(
                    "\(field)[\(index)]",
                    "must be one of \(Value.allCases.map(\.rawValue).joined(separator: ", "))")
                return nil
            }
            return value
        }
    }

    // MARK: The coach directory

    public func directory(_ principal: Principal, speciality: String, text: String, pageSize: Int, pageToken: String)
        async throws -> Page<AuthorProfile>
    {
        var validator = Validator()
        let speciality = speciality.trimmingWhitespaces()
        validator.check(speciality.storedLength <= 40, "speciality", "must be at most 40 characters")
        let words = Self.words(text, &validator)
        try validator.validate()
        let limit = try PageToken.size(pageSize)
        let query = [principal.tenantID.description, speciality.lowercased()] + words
        let cursor = try PageToken.cursor(DirectoryCursor.self, from: pageToken, query: query)
        let items = try await store.directory(
            principal, speciality: speciality.isEmpty ? nil : speciality.lowercased(),
            words: words, after: cursor,
            limit: limit + 1, now: now())
        return Page(fetched: items, limit: limit, query: query) {
            DirectoryCursor(recentFollowers: $0.recentFollowers, id: $0.tenantID)
        }
    }

    /// A coach's (or author's) public profile with their live publications, most popular first.
    public func author(_ principal: Principal, id: String) async throws -> (AuthorProfile, [Publication]) {
        guard !id.isEmpty else { throw SpotterError.invalid("coach_id", "is required") }
        guard let tenant = TenantID(id) else { throw SpotterError.invalid("coach_id", "must be a UUID") }
        guard let profile = try await store.author(principal, tenant, now: now()) else { throw Self.authorNotFound }
        var filter = PublicationFilter()
        filter.author = tenant
        let publications = try await store.publications(principal, filter, after: nil, limit: 100, now: now())
        return (profile, publications)
    }

    /// Whether the principal is listed in the coach directory, and with which highlights.
    public func listing(_ principal: Principal) async throws -> (listed: Bool, highlights: [String]) {
        try await store.listing(principal)
    }

    /// The principal's publication of one of its templates or programs, if it has one.
    public func publication(_ principal: Principal, of kind: PublicationKind, source: String) async throws
        -> Publication?
    {
        guard let source = UUID(hexadecimal: source) else { return nil }
        return try await store.ownPublications(principal, now: now()).first {
            $0.kind == kind && $0.sourceID == source
        }
    }

    /// Lists the coach in the directory (or takes them out) with up to five highlights; the public
    /// profile as it now reads (`nil` when it is not public: unlisted and nothing published).
    public func setListing(_ principal: Principal, listed: Bool, highlights: [String]) async throws
        -> AuthorProfile?
    {
        _ = try await coaching.requireKind(.coach, principal)
        var validator = Validator()
        let cleaned = highlights.map { $0.trimmingWhitespacesAndNewlines() }
        validator.check(
            cleaned.count <= Self.maximumHighlights, "highlights", "must be at most \(Self.maximumHighlights)")
        for (index, line) in cleaned.enumerated() {
            if line.isEmpty {
                validator.add("highlights[\(index)]", "must not be empty")
            } else if line.storedLength > Self.maximumHighlightLength {
                validator.add("highlights[\(index)]", "must be at most \(Self.maximumHighlightLength) characters")
            } else if line.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                validator.add("highlights[\(index)]", "must be one line without control characters")
            }
        }
        try validator.validate()
        return try await store.inOneTransaction(principal) {
            try await store.setListing(principal, listed: listed, highlights: cleaned, now: now())
            return try await store.author(principal, principal.tenantID, now: now())
        }
    }

    // MARK: Following and saving

    /// A lifter follows a public program: its snapshot is copied into the lifter's programs and
    /// templates and followed from `startOn` (default: today, or the date already followed from
    /// when this takes a newer version of the same publication). Calling it again takes the
    /// latest version, replacing the copy's content.
    public func follow(_ principal: Principal, id: String, startOn: String) async throws -> ProgramFollow {
        _ = try await coaching.requireKind(.lifter, principal)
        let publicationID = try Self.publicationID(id)
        return try await store.inOneTransaction(principal) {
            guard let detail = try await store.publication(principal, publicationID, version: nil, now: now()) else {
                throw Self.publicationNotFound
            }
            guard let program = detail.snapshot.program else {
                throw SpotterError.invalid("publication_id", "is a template; save it with SavePublication")
            }
            let names = try await copyTemplates(principal, detail)
            var content = program
            content.days = program.days.map {
                ProgramDay(week: $0.week, weekday: $0.weekday, templateID: names[$0.templateID]!.id)
            }
            let copy = try await copyProgram(principal, key: publicationID.description, content)
            var start = startOn
            if start.isEmpty, let current = try await coaching.store.followed(principal),
                current.program.id == copy.id
            {
                start = current.startedOn
            }
            let follow = try await coaching.follow(principal, programID: copy.id.description, startOn: start)
            try await store.recordFollow(
                principal,
                PublicationFollow(
                    publicationID: publicationID, kind: .program, version: detail.version, copyID: copy.id.rawValue,
                    followedAt: now()),
                now: now())
            var result = follow
            result.publication = PublicationOffer(
                publicationID: publicationID, version: detail.version, latestVersion: nil)
            return result
        }
    }

    /// Saves a public template into the principal's templates (a coach's too); again takes the
    /// latest version.
    public func save(_ principal: Principal, id: String) async throws -> Template {
        let publicationID = try Self.publicationID(id)
        return try await store.inOneTransaction(principal) {
            guard let detail = try await store.publication(principal, publicationID, version: nil, now: now()) else {
                throw Self.publicationNotFound
            }
            guard detail.snapshot.program == nil else {
                throw SpotterError.invalid("publication_id", "is a program; follow it with FollowPublication")
            }
            let copy = try await copyTemplates(principal, detail).values.first!
            try await store.recordFollow(
                principal,
                PublicationFollow(
                    publicationID: publicationID, kind: .template, version: detail.version,
                    copyID: copy.id.rawValue, followedAt: now()),
                now: now())
            return copy
        }
    }

    /// Copies each published template into the principal's account: the snapshot's ids → the copies.
    private func copyTemplates(_ principal: Principal, _ detail: PublicationDetail) async throws
        -> [TemplateID: Template]
    {
        var copies: [TemplateID: Template] = [:]
        for published in detail.snapshot.templates {
            copies[published.id] = try await copyTemplate(
                principal, key: "\(detail.publication.id)/\(published.id)", published.content)
        }
        return copies
    }

    /// How many times a follower may delete a copy and take it again.
    static let copyGenerations = 50

    /// The ids a copy may have: derived from `key`, then `key#1`, `key#2`, … A deleted copy's id
    /// stays a tombstone for syncing devices, so taking the publication again makes the copy under
    /// the next id; a retry finds the same live copy, whichever generation it is.
    private static func copyKeys(_ key: String) -> [String] {
        (0..<copyGenerations).map { $0 == 0 ? key : "\(key)#\($0)" }
    }

    private func copyTemplate(_ principal: Principal, key: String, _ content: TemplateContent) async throws
        -> Template
    {
        for key in Self.copyKeys(key) {
            // A derived id is the principal's own (no other tenant's id can equal it).
            let id: TemplateID = .derived(principal, "publication-template", key)
            if let existing = try await templates.template(principal, id) {
                if existing.content == content { return existing }
                return try await templates.updateTemplate(principal, id, content, expectedVersion: nil, now: now())
            }
            do {
                return try await templates.createTemplate(principal, id, content, now: now())
            } catch SpotterError.alreadyExists {
                continue  // a deleted copy
            }
        }
        throw Self.tooManyCopies
    }

    private func copyProgram(_ principal: Principal, key: String, _ content: ProgramContent) async throws -> Program {
        for key in Self.copyKeys(key) {
            let id: ProgramID = .derived(principal, "publication-program", key)
            if let existing = try await coaching.store.program(principal, id), existing.ownerID == principal.tenantID {
                if existing.content == content { return existing }
                return try await coaching.store.updateProgram(principal, id, content, expectedVersion: nil, now: now())
            }
            do {
                return try await coaching.store.createProgram(principal, id, content, now: now())
            } catch SpotterError.alreadyExists {
                continue
            }
        }
        throw Self.tooManyCopies
    }

    static let tooManyCopies = SpotterError.failedPrecondition(
        "this publication's copies were deleted too many times; copy one of its templates by hand")

    /// The principal's follows and saves, each with its publication at its latest version (one
    /// the author has since unpublished too).
    public func followed(_ principal: Principal) async throws -> [(PublicationFollow, Publication)] {
        try await store.inOneTransaction(principal) {
            let follows = try await store.follows(principal)
            let publications = try await followedPublications(principal, follows)
            return follows.compactMap { follow in publications[follow.publicationID].map { (follow, $0) } }
        }
    }

    /// The publications of `follows`, read in one query.
    private func followedPublications(_ principal: Principal, _ follows: [PublicationFollow]) async throws
        -> [PublicationID: Publication]
    {
        guard !follows.isEmpty else { return [:] }
        var filter = PublicationFilter()
        filter.ids = follows.map(\.publicationID)
        filter.includeUnpublished = true
        let found = try await store.publications(principal, filter, after: nil, limit: follows.count, now: now())
        return Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: For You

    /// Up to `Recommendations.limit` publications for the lifter, each with the rule that chose it.
    public func forYou(_ principal: Principal) async throws -> [Recommendation] {
        _ = try await coaching.requireKind(.lifter, principal)
        let now = now()
        let digest = try await store.digest(principal, since: now.addingTimeInterval(-56 * 86_400), now: now)
        let follows = try await store.follows(principal)
        let taken = Set(follows.map(\.publicationID))
        let popular = try await store.publications(
            principal, PublicationFilter(), after: nil, limit: Recommendations.candidates, now: now)
        let candidates = popular.filter { !taken.contains($0.id) && $0.authorID != principal.tenantID }
        let also = try await store.alsoFollowed(principal, minimumShared: Recommendations.minimumShared)
        let titles = try await followedPublications(principal, follows).mapValues(\.title)
        return Recommendations.choose(
            digest: digest, candidates: candidates, alsoFollowed: also, followedTitles: titles, now: now)
    }
}
