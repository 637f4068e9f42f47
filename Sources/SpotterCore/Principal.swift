/// Who is acting: a signed-in account of a tenant, through one session.
///
/// Every store method that touches tenant data takes the principal first; the store sets it as the
/// transaction's tenant so row-level security sees only that tenant's rows.
public struct Principal: Sendable, Hashable {
    public var tenantID: TenantID
    public var accountID: AccountID
    public var sessionID: SessionID?

    public init(tenantID: TenantID, accountID: AccountID, sessionID: SessionID? = nil) {
        self.tenantID = tenantID
        self.accountID = accountID
        self.sessionID = sessionID
    }
}
