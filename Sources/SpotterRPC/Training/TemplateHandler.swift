import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.TemplateService`: the tenant's workout templates.
public struct TemplateHandler: Spotter_V1_TemplateService.SimpleServiceProtocol {
    private let templates: TemplateService

    public init(templates: TemplateService) {
        self.templates = templates
    }

    public func createTemplate(request: Spotter_V1_CreateTemplateRequest, context: ServerContext) async throws
        -> Spotter_V1_Template
    {
        let (principal, tenant) = try RequestContext.tenant()
        let created = try await templates.create(principal, id: request.templateID, try TemplateDraft(request.template))
        return Spotter_V1_Template(created, unit: tenant.unit)
    }

    public func getTemplate(request: Spotter_V1_GetTemplateRequest, context: ServerContext) async throws
        -> Spotter_V1_Template
    {
        let (principal, tenant) = try RequestContext.tenant()
        return Spotter_V1_Template(try await templates.get(principal, id: request.templateID), unit: tenant.unit)
    }

    public func updateTemplate(request: Spotter_V1_UpdateTemplateRequest, context: ServerContext) async throws
        -> Spotter_V1_Template
    {
        let (principal, tenant) = try RequestContext.tenant()
        let updated = try await templates.update(
            principal,
            id: request.templateID,
            try TemplateDraft(request.template),
            expectedVersion: request.hasExpectedVersion ? request.expectedVersion : nil
        )
        return Spotter_V1_Template(updated, unit: tenant.unit)
    }

    public func copyTemplate(request: Spotter_V1_CopyTemplateRequest, context: ServerContext) async throws
        -> Spotter_V1_Template
    {
        let (principal, tenant) = try RequestContext.tenant()
        let copy = try await templates.copy(
            principal, id: request.templateID, newID: request.newTemplateID, name: request.name)
        return Spotter_V1_Template(copy, unit: tenant.unit)
    }

    public func archiveTemplate(request: Spotter_V1_ArchiveTemplateRequest, context: ServerContext) async throws
        -> Spotter_V1_Template
    {
        let (principal, tenant) = try RequestContext.tenant()
        let archived = try await templates.archive(principal, id: request.templateID, archived: request.archived)
        return Spotter_V1_Template(archived, unit: tenant.unit)
    }

    public func deleteTemplate(request: Spotter_V1_DeleteTemplateRequest, context: ServerContext) async throws
        -> Spotter_V1_DeleteTemplateResponse
    {
        try await templates.delete(try RequestContext.principal(), id: request.templateID)
        return Spotter_V1_DeleteTemplateResponse()
    }

    public func listTemplates(request: Spotter_V1_ListTemplatesRequest, context: ServerContext) async throws
        -> Spotter_V1_ListTemplatesResponse
    {
        let (principal, tenant) = try RequestContext.tenant()
        let page = try await templates.list(
            principal,
            includeArchived: request.includeArchived,
            pageSize: Int(request.page.pageSize),
            pageToken: request.page.pageToken
        )
        return .with {
            $0.templates = page.items.map { Spotter_V1_Template($0, unit: tenant.unit) }
            $0.nextPageToken = page.nextToken
        }
    }
}
