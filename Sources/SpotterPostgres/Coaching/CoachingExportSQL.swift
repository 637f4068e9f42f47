import Foundation
import Postgres
import SpotterCore

/// A tenant's coaching data in bulk, for both exports (`ExportSQL`): every statement names the
/// tenant, as the admin role needs.
enum CoachingExportSQL {
    static func load(_ tenant: TenantID, _ connection: PostgresConnection) async throws -> ExportedCoaching {
        let id = [tenant.rawValue]
        let links = try await connection.query(
            PostgresLinkTransaction.select + " WHERE l.tenant_id = $1 OR l.coach_id = $1 ORDER BY l.created_at",
            id
        ).map(PostgresLinkTransaction.decode)
        let programIDs = try await connection.query(
            "SELECT program_id FROM programs WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY created_at", id
        ).map { (tenant, ProgramID(rawValue: try $0.decode("program_id"))) }
        let assignments = try await connection.query(
            PostgresCoachingStore.assignmentSelect
                + " WHERE a.tenant_id = $1 OR a.lifter_id = $1 ORDER BY a.created_at, a.assignment_id",
            id
        ).map(PostgresCoachingStore.decodeAssignment)
        let comments = try await connection.query(
            PostgresCoachingStore.commentSelect
                // Another tenant's comments by this one: workout_comments_author_idx.
                + " WHERE c.tenant_id = $1 OR (c.author_id = $1 AND c.author_id <> c.tenant_id)"
                + " ORDER BY c.created_at, c.comment_id",
            id
        ).map(PostgresCoachingStore.decodeComment)
        let accessLog = try await connection.query(
            PostgresCoachingStore.accessSelect + " WHERE a.tenant_id = $1 ORDER BY a.accessed_at, a.access_id",
            id
        ).map(PostgresCoachingStore.decodeAccess)
        let invites = try await connection.query(
            """
            SELECT invite_id, note, created_at, expires_at, used_at, used_by FROM coach_invites
            WHERE tenant_id = $1 ORDER BY created_at
            """,
            id
        ).map(PostgresCoachingStore.decodeInvite)
        return ExportedCoaching(
            links: links, programs: try await ProgramSQL.load(programIDs, connection), assignments: assignments,
            comments: comments, accessLog: accessLog, invites: invites,
            follow: try await PostgresCoachingStore.followed(tenant, connection))
    }
}
