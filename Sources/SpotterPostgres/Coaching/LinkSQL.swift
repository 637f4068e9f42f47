import Foundation
import Postgres
import SpotterCore

/// Reading and changing coach links, inside one transaction (`PostgresCoachingStore.linking`).
struct PostgresLinkTransaction: LinkTransaction {
    let connection: PostgresConnection
    let actor: TenantID

    /// The columns of `coach_links l` a link is decoded from, besides the parties' names.
    private static let linkColumns = """
        l.link_id, l.tenant_id, l.coach_id, l.status, l.requested_by, array_to_string(l.scopes, ',') AS scopes,
        l.created_at, l.responded_at, l.ended_at, l.ended_by
        """

    /// A link's columns, reading `coach_links l` and the parties' names, `lt` and `ct`, from
    /// `spotter_linked_parties()` (which tells nothing else of another tenant).
    static let columns =
        linkColumns + """
            , coalesce(lt.display_name, '') AS lifter_name, coalesce(ct.display_name, '') AS coach_name
            """

    /// Links with their parties' names: `spotter_linked_parties()` works out every party of the
    /// caller once for each side, which suits a list.
    static let select = """
        SELECT \(columns)
        FROM coach_links l
        LEFT JOIN spotter_linked_parties() lt ON lt.tenant_id = l.tenant_id
        LEFT JOIN spotter_linked_parties() ct ON ct.tenant_id = l.coach_id
        """

    /// One link (found by its key) with its parties' names, each from `spotter_linked_name()`,
    /// which looks at that party alone: a coach's link check before every read of a client costs
    /// the same with 200 clients as with one.
    static let selectOne = "SELECT \(oneLinkColumns) FROM coach_links l"

    /// A link's columns with each party's name from `spotter_linked_name()`.
    private static let oneLinkColumns = """
        \(linkColumns),
        coalesce(spotter_linked_name(l.tenant_id), '') AS lifter_name,
        coalesce(spotter_linked_name(l.coach_id), '') AS coach_name
        """

    static func decode(_ row: PostgresRow) throws -> CoachLink {
        let scopes: String = try row.decode("scopes")
        return CoachLink(
            id: CoachLink.ID(rawValue: try row.decode("link_id")),
            lifterID: TenantID(rawValue: try row.decode("tenant_id")),
            coachID: TenantID(rawValue: try row.decode("coach_id")),
            status: try ExerciseSQL.enumValue(row, "status"),
            requestedBy: try ExerciseSQL.enumValue(row, "requested_by"),
            scopes: Set(scopes.split(separator: ",").compactMap { Scope(rawValue: String($0)) }),
            createdAt: try row.decode("created_at"),
            respondedAt: try row.decode("responded_at"),
            endedAt: try row.decode("ended_at"),
            endedBy: try (row.decode("ended_by") as String?).flatMap(LinkSide.init(rawValue:)),
            lifterName: try row.decode("lifter_name"),
            coachName: try row.decode("coach_name")
        )
    }

    static func scopeArray(_ scopes: Set<Scope>) -> [String] { scopes.sorted().map(\.rawValue) }

    func openLink(lifter: TenantID, coach: TenantID) async throws -> CoachLink? {
        try await connection.query(
            Self.selectOne + " WHERE l.tenant_id = $1 AND l.coach_id = $2 AND l.status IN ('pending', 'active')",
            [lifter.rawValue, coach.rawValue]
        ).single.map(Self.decode)
    }

    /// The order clients count in (joined first, then link id) is also
    /// `spotter_my_coaches_coverage()`'s (0050_paused_coaching.sql): change both together.
    func activeLinkAndClientsBefore(lifter: TenantID, coach: TenantID) async throws -> (CoachLink, Int)? {
        try await connection.query(
            """
            SELECT \(Self.oneLinkColumns),
              (SELECT count(*)::int FROM coach_links o
               WHERE o.coach_id = l.coach_id AND o.status = 'active'
                 AND (coalesce(o.responded_at, o.created_at), o.link_id)
                     < (coalesce(l.responded_at, l.created_at), l.link_id)) AS clients_before
            FROM coach_links l
            WHERE l.tenant_id = $1 AND l.coach_id = $2 AND l.status = 'active'
            """,
            [lifter.rawValue, coach.rawValue]
        ).single.map { (try Self.decode($0), try $0.decode("clients_before")) }
    }

    func holdActiveLink(lifter: TenantID, coach: TenantID) async throws -> Bool {
        // FOR SHARE: an update of the link (its end) waits for this transaction; one already under
        // way is waited for, and the row is checked again against `status = 'active'`.
        try await connection.query(
            """
            SELECT FROM coach_links
            WHERE tenant_id = $1 AND coach_id = $2 AND status = 'active'
            FOR SHARE
            """,
            [lifter.rawValue, coach.rawValue]
        ).count == 1
    }

    private func link(_ lifter: TenantID, _ id: CoachLink.ID) async throws -> CoachLink {
        guard
            let row = try await connection.query(
                Self.selectOne + " WHERE l.tenant_id = $1 AND l.link_id = $2", [lifter.rawValue, id.rawValue]
            ).single
        else { throw SpotterError.notFound("link not found") }
        return try Self.decode(row)
    }

    func requestLink(_ link: CoachLink) async throws -> CoachLink {
        try await connection.query(
            """
            INSERT INTO coach_links (tenant_id, link_id, coach_id, status, requested_by, scopes, created_at, updated_at)
            VALUES ($1, $2, $3, 'pending', $4, $5::text[], $6, $6)
            """,
            [
                link.lifterID.rawValue, link.id.rawValue, link.coachID.rawValue, link.requestedBy.rawValue,
                Self.scopeArray(link.scopes), link.createdAt,
            ]
        )
        return try await self.link(link.lifterID, link.id)
    }

    func updateLink(_ link: CoachLink, status: LinkStatus, scopes: Set<Scope>, by side: LinkSide, now: Date)
        async throws -> CoachLink
    {
        try await connection.query(
            """
            UPDATE coach_links SET
                status = $3, scopes = $4::text[], updated_at = $5,
                responded_at = CASE WHEN status = 'pending' AND $3 IN ('active', 'declined') THEN $5 ELSE responded_at END,
                ended_at = CASE WHEN $3 IN ('ended', 'declined') AND status <> $3 THEN $5 ELSE ended_at END,
                ended_by = CASE WHEN $3 = 'ended' AND status <> 'ended' THEN $6 ELSE ended_by END
            WHERE tenant_id = $1 AND link_id = $2
            """,
            [link.lifterID.rawValue, link.id.rawValue, status.rawValue, Self.scopeArray(scopes), now, side.rawValue]
        )
        return try await self.link(link.lifterID, link.id)
    }

    func coachCapacity(_ coach: TenantID, inviteHash: [UInt8]?, now: Date) async throws -> (TierGrant, Int)? {
        guard
            let row = try await connection.query(
                "SELECT * FROM spotter_coach_capacity($1, $2, $3)",
                [coach.rawValue, inviteHash.map(PostgresBytes.init), now]
            ).single,
            let tier = Tier(rawValue: try row.decode("tier"))
        else { return nil }
        guard try row.decode("kind") as String == TenantKind.coach.rawValue else { return nil }
        return (
            TierGrant(tier: tier, expiresAt: try row.decode("tier_expires_at")),
            Int(try row.decode("active_clients") as Int64)
        )
    }

    func inviteCoach(codeHash: [UInt8], now: Date) async throws -> TenantID? {
        try await connection.query(
            "SELECT spotter_invite_coach($1, $2) AS coach", [PostgresBytes(codeHash), now]
        ).single.flatMap { try ($0.decode("coach") as UUID?).map(TenantID.init(rawValue:)) }
    }

    func redeemInvite(codeHash: [UInt8], lifter: TenantID, scopes: Set<Scope>, link: CoachLink.ID, now: Date)
        async throws -> TenantID?
    {
        try await connection.query(
            "SELECT spotter_redeem_invite($1, $2, $3::text[], $4, $5) AS coach",
            [PostgresBytes(codeHash), lifter.rawValue, Self.scopeArray(scopes), link.rawValue, now]
        ).single.flatMap { try ($0.decode("coach") as UUID?).map(TenantID.init(rawValue:)) }
    }
}
