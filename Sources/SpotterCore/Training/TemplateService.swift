import Foundation

/// The tenant's workout templates.
public struct TemplateService: Sendable {
    private let store: any TemplateStore
    private let now: @Sendable () -> Date

    public init(store: any TemplateStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.now = now
    }

    public func create(_ principal: Principal, id: String, _ draft: TemplateDraft) async throws -> Template {
        let templateID = id.isEmpty ? TemplateID.random() : try Self.id(id)
        let content = try await namingExercises(principal, draft, template: nil) { try draft.validated() }
        return try await store.createTemplate(principal, templateID, content, now: now())
    }

    /// `ExerciseRefusals.naming` for a template.
    private func namingExercises<T>(
        _ principal: Principal, _ draft: TemplateDraft, template: TemplateID?, _ validate: () throws -> T
    ) async throws -> T {
        try await ExerciseRefusals.naming(draft.items.map(\.exerciseID), validate) { ids in
            try await store.exerciseRefusals(principal, ids, template: template)
        }
    }

    public func get(_ principal: Principal, id: String) async throws -> Template {
        guard let template = try await store.template(principal, try Self.id(id)) else { throw Self.notFound }
        return template
    }

    public func update(_ principal: Principal, id: String, _ draft: TemplateDraft, expectedVersion: Int64?)
        async throws -> Template
    {
        let templateID = try Self.id(id)
        let content = try await namingExercises(principal, draft, template: templateID) { try draft.validated() }
        return try await ownOnly(principal, templateID) {
            try await store.updateTemplate(principal, templateID, content, expectedVersion: expectedVersion, now: now())
        }
    }

    /// A new template with the same items; "<name> (copy)" unless a name is given.
    public func copy(_ principal: Principal, id: String, newID: String, name: String) async throws -> Template {
        let source = try await get(principal, id: id)
        let copyID = newID.isEmpty ? TemplateID.random() : try Self.id(newID, field: "new_template_id")
        var content = source.content
        let name = name.trimmingWhitespacesAndNewlines()
        content.name = name.isEmpty ? (source.content.name + " (copy)").prefix(storedLength: 100) : name
        guard content.name.storedLength <= 100 else {
            throw SpotterError.invalid("name", "must be at most 100 characters")
        }
        return try await store.createTemplate(principal, copyID, content, now: now())
    }

    public func archive(_ principal: Principal, id: String, archived: Bool) async throws -> Template {
        let templateID = try Self.id(id)
        return try await ownOnly(principal, templateID) {
            try await store.archiveTemplate(principal, templateID, archived: archived, now: now())
        }
    }

    public func delete(_ principal: Principal, id: String) async throws {
        let templateID = try Self.id(id)
        try await ownOnly(principal, templateID) {
            guard try await store.deleteTemplate(principal, templateID, now: now()) else { throw Self.notFound }
        }
    }

    /// Runs a change of one of the caller's own templates. A template the caller can read but not
    /// change (a coach's, assigned to them) is refused as such, not as one that does not exist.
    private func ownOnly<T>(_ principal: Principal, _ id: TemplateID, _ change: () async throws -> T) async throws
        -> T
    {
        do {
            return try await change()
        } catch let error as SpotterError where error == Self.notFound {
            guard try await store.template(principal, id) != nil else { throw error }
            throw SpotterError.permissionDenied(
                "this template is your coach's; copy it (CopyTemplate) to change your own version")
        }
    }

    public func list(_ principal: Principal, includeArchived: Bool, pageSize: Int, pageToken: String) async throws
        -> Page<Template>
    {
        let limit = try PageToken.size(pageSize)
        let query = [principal.tenantID.description, String(includeArchived)]
        let cursor = try PageToken.cursor(TemplateCursor.self, from: pageToken, query: query)
        let items = try await store.templates(
            principal, includeArchived: includeArchived, after: cursor, limit: limit + 1)
        return Page(fetched: items, limit: limit, query: query) {
            TemplateCursor(name: $0.content.name.lowercased(), id: $0.id)
        }
    }

    static let notFound = SpotterError.notFound("template not found")

    static func id(_ text: String, field: String = "template_id") throws(SpotterError) -> TemplateID {
        guard !text.isEmpty else { throw .invalid(field, "is required") }
        guard let id = TemplateID(text) else { throw .invalid(field, "must be a UUID") }
        return id
    }
}
