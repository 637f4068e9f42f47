/// Who is acting: a signed-in account of a tenant, through one session.
///
/// Every store method that touches tenant data takes the principal first; the store sets it as the
/// transaction's tenant so row-level security sees only that tenant's rows.
public struct Principal: Sendable, Hashable {
    public var tenantID: TenantID
    public var accountID: AccountID
    public var sessionID: SessionID?
    /// The tenant's settings as read when the call was authenticated; `nil` when the principal was
    /// made some other way (services then read them).
    public var tenant: TenantContext?
    /// The tenant the database transaction acts as. It is `tenantID` except in a coach's view of a
    /// client (`clientView(of:)`): there `tenantID` names whose rows to read and this stays the
    /// coach, so row-level security lets through only what the client's grants allow.
    public private(set) var actingTenantID: TenantID

    public init(tenantID: TenantID, accountID: AccountID, sessionID: SessionID? = nil, tenant: TenantContext? = nil) {
        self.tenantID = tenantID
        self.accountID = accountID
        self.sessionID = sessionID
        self.tenant = tenant
        self.actingTenantID = tenantID
    }

    /// This coach reading `client`'s data: stores query the client's rows in a transaction that
    /// still acts as the coach. Writes through such a principal find nothing they may change.
    public func clientView(of client: TenantID) -> Principal {
        var view = self
        view.tenantID = client
        view.tenant = nil
        return view
    }

    /// Whether this is a coach's view of another tenant's data.
    public var isClientView: Bool { actingTenantID != tenantID }
}

/// The tenant facts most calls need: what kind it is, its tier, and how it wants to see times and
/// weights.
public struct TenantContext: Sendable, Hashable {
    public var kind: TenantKind
    public var tier: TierGrant
    public var timeZone: String
    public var unit: WeightUnit

    public init(kind: TenantKind, tier: TierGrant, timeZone: String, unit: WeightUnit) {
        self.kind = kind
        self.tier = tier
        self.timeZone = timeZone
        self.unit = unit
    }
}

/// Reads a tenant's context when the principal does not carry it.
public protocol TenantContextStore: Sendable {
    func tenantContext(_ principal: Principal) async throws -> TenantContext
}

extension Principal {
    /// The carried tenant context, or the store's.
    public func context(from store: any TenantContextStore) async throws -> TenantContext {
        if let tenant { return tenant }
        return try await store.tenantContext(self)
    }
}
