import Foundation
import Postgres
import SpotterCore

/// `ProfileStore` and `TenantContextStore` on PostgreSQL.
public struct PostgresProfileStore: ProfileStore, TenantContextStore {
    private let database: SpotterDatabase

    public init(database: SpotterDatabase) {
        self.database = database
    }

    public func profile(_ principal: Principal) async throws -> Profile {
        try await database.withTenant(principal) { connection in
            try await Self.load(principal, connection)
        }
    }

    public func updateProfile(_ principal: Principal, _ update: ProfileUpdate, now: Date) async throws -> Profile {
        try await database.withTenant(principal) { connection in
            if update.displayName != nil { try await FeedLocks.take(connection) }
            try await connection.query(
                """
                UPDATE tenants
                SET display_name = coalesce($2, display_name),
                    time_zone = coalesce($3, time_zone),
                    unit = coalesce($4, unit),
                    bio = coalesce($6, bio),
                    specialities = coalesce($7, specialities),
                    birthday = CASE WHEN $8::text IS NULL THEN birthday ELSE nullif($8, '')::date END,
                    email_notifications = coalesce($9, email_notifications),
                    updated_at = $5,
                    version = version + 1
                WHERE tenant_id = $1
                  -- A save that changes nothing makes no new version: no device pulls it again.
                  AND (display_name, time_zone, unit, bio, specialities, birthday, email_notifications)
                      IS DISTINCT FROM
                      (coalesce($2, display_name), coalesce($3, time_zone), coalesce($4, unit), coalesce($6, bio),
                       coalesce($7, specialities),
                       CASE WHEN $8::text IS NULL THEN birthday ELSE nullif($8, '')::date END,
                       coalesce($9, email_notifications))
                """,
                [
                    principal.tenantID.rawValue, update.displayName, update.timeZone, update.unit?.rawValue, now,
                    update.bio, update.specialities, update.birthday, update.emailNotifications,
                ]
            )
            return try await Self.load(principal, connection)
        }
    }

    /// The tenant's context. In a coach's view of a client only the client's time zone is the coach's
    /// to know (`spotter_linked_time_zone()` tells it for an active client): the context has it, and
    /// stands in `lifter`, the free tier and kilograms for the rest.
    public func tenantContext(_ principal: Principal) async throws -> TenantContext {
        try await database.withTenant(principal) { connection in
            if principal.isClientView {
                guard
                    let timeZone: String = try await connection.query(
                        "SELECT spotter_linked_time_zone($1) AS time_zone", [principal.tenantID.rawValue]
                    ).single?.decode("time_zone")
                else { throw SpotterError.notFound("tenant not found") }
                return TenantContext(kind: .lifter, tier: TierGrant(tier: .free), timeZone: timeZone, unit: .kg)
            }
            let rows = try await connection.query(
                "SELECT kind, tier, tier_expires_at, time_zone, unit FROM tenants WHERE tenant_id = $1",
                [principal.tenantID.rawValue]
            )
            guard let row = rows.single else { throw SpotterError.notFound("tenant not found") }
            return try TenantContextSQL.decode(row)
        }
    }

    static let selectProfile = """
        SELECT t.tenant_id, a.account_id, t.kind, a.email, a.email_verified_at, a.username, t.display_name,
               t.time_zone, t.unit, t.tier, t.tier_expires_at, a.status, t.created_at, t.version, t.bio,
               to_json(t.specialities)::text AS specialities, t.birthday::text AS birthday, t.email_notifications
        FROM tenants t JOIN accounts a ON a.tenant_id = t.tenant_id
        """

    static func load(_ principal: Principal, _ connection: PostgresConnection) async throws -> Profile {
        let rows = try await connection.query(
            selectProfile + " WHERE a.tenant_id = $1 AND a.account_id = $2",
            [principal.tenantID.rawValue, principal.accountID.rawValue]
        )
        guard let row = rows.single else { throw SpotterError.notFound("profile not found") }
        return try decodeProfile(row)
    }

    static func decodeProfile(_ row: PostgresRow) throws -> Profile {
        Profile(
            tenantID: TenantID(rawValue: try row.decode("tenant_id")),
            accountID: AccountID(rawValue: try row.decode("account_id")),
            kind: TenantKind(rawValue: try row.decode("kind")) ?? .lifter,
            email: try row.decode("email"),
            emailVerifiedAt: try row.decode("email_verified_at"),
            username: try row.decode("username"),
            displayName: try row.decode("display_name"),
            timeZone: try row.decode("time_zone"),
            unit: WeightUnit(rawValue: try row.decode("unit")) ?? .kg,
            tier: TierGrant(
                tier: Tier(rawValue: try row.decode("tier")) ?? .free,
                expiresAt: try row.decode("tier_expires_at")
            ),
            status: AccountStatus(rawValue: try row.decode("status")) ?? .disabled,
            createdAt: try row.decode("created_at"),
            version: try row.decode("version"),
            bio: try row.decode("bio"),
            specialities: try JSONDecoder().decode(
                [String].self, from: Data(try row.decode("specialities", as: String.self).utf8)),
            birthday: try row.decode("birthday"),
            emailNotifications: try row.decode("email_notifications")
        )
    }
}

/// Decodes the tenant columns `kind, tier, tier_expires_at, time_zone, unit`.
enum TenantContextSQL {
    static func decode(_ row: PostgresRow) throws -> TenantContext {
        TenantContext(
            kind: TenantKind(rawValue: try row.decode("kind")) ?? .lifter,
            tier: TierGrant(
                tier: Tier(rawValue: try row.decode("tier")) ?? .free,
                expiresAt: try row.decode("tier_expires_at")
            ),
            timeZone: try row.decode("time_zone"),
            unit: WeightUnit(rawValue: try row.decode("unit")) ?? .kg
        )
    }
}
