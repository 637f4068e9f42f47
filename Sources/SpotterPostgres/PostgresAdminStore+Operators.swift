import Foundation
import Postgres
import SpotterCore

extension PostgresAdminStore: AdminOperatorStore {
    public func operators() async throws -> [AdminOperator] {
        try await translatingErrors {
            try await pool.withConnection { connection in
                try await connection.query(
                    """
                    SELECT name, display_name, email, created_at, created_by, disabled_at
                    FROM admin_operators ORDER BY name
                    """
                ).map { row in
                    AdminOperator(
                        name: try row.decode("name"),
                        displayName: try row.decode("display_name"),
                        email: try row.decode("email"),
                        createdAt: try row.decode("created_at"),
                        createdBy: try row.decode("created_by"),
                        disabledAt: try row.decode("disabled_at")
                    )
                }
            }
        }
    }

    public func createOperator(_ admin: AdminOperator, audit: AuditRecord) async throws {
        try await translatingErrors {
            try await pool.withTransaction { connection in
                try await connection.query(
                    """
                    INSERT INTO admin_operators (name, display_name, email, created_at, created_by)
                    VALUES ($1, $2, $3, $4, $5)
                    """,
                    [admin.name, admin.displayName, admin.email, admin.createdAt, admin.createdBy]
                )
                try await AuditSQL.append(audit, connection)
            }
        }
    }
}
