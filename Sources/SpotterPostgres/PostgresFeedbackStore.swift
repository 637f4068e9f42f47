import Foundation
import Postgres
import SpotterCore

/// `FeedbackStore` on PostgreSQL, under row-level security.
public struct PostgresFeedbackStore: FeedbackStore {
    private let database: SpotterDatabase

    public init(database: SpotterDatabase) {
        self.database = database
    }

    public func submit(_ principal: Principal, _ feedback: Feedback) async throws {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                INSERT INTO feedback (tenant_id, feedback_id, account_id, kind, subject, body, app_version, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                """,
                [
                    principal.tenantID.rawValue, feedback.id, principal.accountID.rawValue, feedback.kind.rawValue,
                    feedback.subject, feedback.body, feedback.appVersion, feedback.createdAt,
                ]
            )
        }
    }

    public func feedback(_ principal: Principal) async throws -> [Feedback] {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                FeedbackSQL.select + " WHERE account_id = $1 ORDER BY created_at DESC",
                [principal.accountID.rawValue]
            ).map(FeedbackSQL.decode)
        }
    }
}

/// Feedback statements shared by the tenant and admin stores.
enum FeedbackSQL {
    static let columns =
        "feedback_id, tenant_id, kind, subject, body, app_version, created_at, resolved_at, resolved_by, resolution"
    static let select = "SELECT \(columns) FROM feedback"

    static func decode(_ row: PostgresRow) throws -> Feedback {
        Feedback(
            id: try row.decode("feedback_id"),
            tenantID: TenantID(rawValue: try row.decode("tenant_id")),
            kind: FeedbackKind(rawValue: try row.decode("kind")) ?? .feedback,
            subject: try row.decode("subject"),
            body: try row.decode("body"),
            appVersion: try row.decode("app_version"),
            createdAt: try row.decode("created_at"),
            resolvedAt: try row.decode("resolved_at"),
            resolvedBy: try row.decode("resolved_by"),
            resolution: try row.decode("resolution")
        )
    }
}
