import Foundation

/// What administrators may do with accounts, with the rules that every change is audited and needs
/// a reason.
public struct AdminService: Sendable {
    let store: any AdminStore & AdminMaintenanceStore & AdminOperatorStore
    let hasher: PasswordHasher
    let policy: AuthPolicy
    let now: @Sendable () -> Date

    public init(
        store: any AdminStore & AdminMaintenanceStore & AdminOperatorStore,
        hasher: PasswordHasher,
        policy: AuthPolicy,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.hasher = hasher
        self.policy = policy
        self.now = now
    }

    public func accounts(_ filter: AccountFilter) async throws -> [AccountSummary] {
        var validator = Validator()
        validator.check((1...1000).contains(filter.limit), "limit", "must be from 1 to 1000")
        validator.check(filter.offset >= 0, "offset", "must not be negative")
        try validator.validate()
        return try await store.accounts(filter)
    }

    /// The account `reference` names (tenant id, account id, e-mail or username); `notFound` otherwise.
    public func account(_ reference: String) async throws -> AccountSummary {
        guard let account = try await store.findAccount(reference) else {
            throw SpotterError.notFound("no account matches '\(reference)'")
        }
        return account
    }

    public func detail(_ reference: String) async throws -> AccountDetail {
        let account = try await account(reference)
        guard let detail = try await store.accountDetail(account.tenantID, now: now()) else {
            throw SpotterError.notFound("no account matches '\(reference)'")
        }
        return detail
    }

    /// Creates a lifter or coach account with a password the operator typed; e-mail optionally
    /// marked verified.
    public func createAccount(
        kind: TenantKind,
        email: String,
        username: String,
        password: String,
        displayName: String?,
        verified: Bool,
        actor: AdminActor,
        reason: String
    ) async throws -> AccountSummary {
        let normalizedEmail = CredentialRules.normalize(email)
        var validator = Validator()
        if let problem = CredentialRules.emailProblem(normalizedEmail) { validator.add("email", problem) }
        if let problem = CredentialRules.usernameProblem(username) { validator.add("username", problem) }
        if let problem = CredentialRules.passwordProblem(password) { validator.add("password", problem) }
        if let displayName, let problem = CredentialRules.displayNameProblem(displayName) {
            validator.add("display_name", problem)
        }
        Self.checkReason(reason, &validator)
        try validator.validate()
        try await checkOperator(actor)
        let account = NewAccount(
            tenantID: .random(),
            accountID: .random(),
            kind: kind,
            email: normalizedEmail,
            username: username,
            displayName: displayName ?? username,
            timeZone: "UTC",
            unit: .kg,
            passwordHash: try await hasher.hash(password),
            createdAt: now()
        )
        try await store.createAccount(
            account,
            verified: verified,
            audit: AuditRecord(
                actor: actor,
                action: "account.create",
                targetTenantID: account.tenantID,
                target: username,
                reason: reason,
                details: #"{"kind": "\#(kind.rawValue)", "verified": \#(verified)}"#
            )
        )
        return try await self.account(account.tenantID.description)
    }

    /// Disables or enables an account; disabling revokes every session at once.
    /// Returns the number of sessions revoked.
    public func setStatus(_ reference: String, _ status: AccountStatus, actor: AdminActor, reason: String)
        async throws -> Int
    {
        try Self.requireReason(reason)
        try await checkOperator(actor)
        let account = try await account(reference)
        // Nothing to change is said, not audited as a change.
        guard account.status != status else {
            throw SpotterError.failedPrecondition("\(account.username) is already \(status.rawValue)")
        }
        return try await store.setStatus(
            account.tenantID,
            status,
            now: now(),
            audit: AuditRecord(
                actor: actor,
                action: status == .disabled ? "account.disable" : "account.enable",
                targetTenantID: account.tenantID,
                target: account.username,
                reason: reason
            )
        )
    }

    public func auditLog(_ filter: AuditFilter) async throws -> [AuditEntry] {
        var validator = Validator()
        validator.check((1...10_000).contains(filter.limit), "limit", "must be from 1 to 10000")
        try validator.validate()
        return try await store.auditLog(filter)
    }

    /// Once any operator is registered, only a registered, active operator may change anything.
    func checkOperator(_ actor: AdminActor) async throws {
        let registered = try await store.operators()
        guard !registered.isEmpty else { return }
        guard registered.contains(where: { $0.name == actor.operatorName && $0.disabledAt == nil }) else {
            throw SpotterError.permissionDenied(
                "'\(actor.operatorName)' is not a registered operator; use --operator or SPOTTER_OPERATOR with your "
                    + "operator name (spotterctl accounts create --kind operator registers one)"
            )
        }
    }

    /// Registers a named administrator. The first one can be created by anyone with database
    /// access; after that only a registered operator can add more.
    public func createOperator(name: String, displayName: String?, email: String, actor: AdminActor, reason: String)
        async throws -> AdminOperator
    {
        let normalizedEmail = CredentialRules.normalize(email)
        var validator = Validator()
        validator.check(
            name.range(of: "^[a-z][a-z0-9_.-]{1,31}$", options: .regularExpression) != nil,
            "username",
            "must be 2 to 32 of a-z, 0-9, '_', '.', '-', starting with a letter"
        )
        if let problem = CredentialRules.emailProblem(normalizedEmail) { validator.add("email", problem) }
        if let displayName, let problem = CredentialRules.displayNameProblem(displayName) {
            validator.add("display_name", problem)
        }
        Self.checkReason(reason, &validator)
        try validator.validate()
        try await checkOperator(actor)
        let admin = AdminOperator(
            name: name,
            displayName: displayName ?? name,
            email: normalizedEmail,
            createdAt: now(),
            createdBy: actor.operatorName,
            disabledAt: nil
        )
        try await store.createOperator(
            admin,
            audit: AuditRecord(
                actor: actor, action: "operator.create", targetTenantID: nil, target: name, reason: reason)
        )
        return admin
    }

    public func operators() async throws -> [AdminOperator] {
        try await store.operators()
    }

    static func requireReason(_ reason: String) throws {
        var validator = Validator()
        checkReason(reason, &validator)
        try validator.validate()
    }

    private static func checkReason(_ reason: String, _ validator: inout Validator) {
        validator.check(
            !reason.trimmingWhitespaces().isEmpty,
            "reason",
            "is required for every change (--reason)"
        )
    }
}
