import Foundation

extension AdminService {
    /// A reset token handed to the operator to pass on (it is not e-mailed).
    public struct ResetLink: Sendable, Codable {
        public var token: String
        public var link: String
        public var expiresAt: Date
    }

    /// Clears sign-in throttling.
    public func unlock(_ reference: String, actor: AdminActor, reason: String) async throws {
        let account = try await audited(reference, reason, actor)
        try await store.unlock(account.tenantID, audit: record(actor, "account.unlock", account, reason))
    }

    /// Turns two-factor sign-in off for an owner who lost the device and the recovery codes: forgets
    /// the secret, the recovery codes and open sign-in challenges, and ends every session.
    public func resetTwoFactor(_ reference: String, actor: AdminActor, reason: String) async throws {
        let account = try await audited(reference, reason, actor)
        try await store.resetTwoFactor(
            account.tenantID, now: now(), audit: record(actor, "account.reset_mfa", account, reason))
    }

    /// Seals every account's two-factor secret under `keyring`'s current key, so that older keys
    /// can leave the ring. A secret sealed with a key the ring does not hold is left as it is and
    /// counted; its owner cannot complete a two-factor sign-in until that key is back (or
    /// `reset-mfa`).
    public func resealTwoFactorSecrets(with keyring: MfaKeyring, actor: AdminActor, reason: String) async throws
        -> MfaResealReport
    {
        try Self.requireReason(reason)
        try await checkOperator(actor)
        var report = MfaResealReport(currentKeyID: keyring.currentKeyID)
        try await store.resealTwoFactorSecrets { account, sealed in
            guard sealed.keyID != keyring.currentKeyID else {
                report.alreadyCurrent += 1
                return nil
            }
            let secret: [UInt8]
            do {
                secret = try keyring.open(sealed, for: account)
            } catch MfaKeyError.unknownKey(let id) {
                report.missingKey[id, default: 0] += 1
                return nil
            } catch {
                report.unreadable += 1
                return nil
            }
            report.resealed += 1
            return try keyring.seal(secret, for: account)
        } audit: {
            // snake_case, as every other audit row's details (and spotterctl's JSON) are.
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = .sortedKeys
            let details = (try? encoder.encode(report)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return AuditRecord(
                actor: actor, action: "mfa.reseal", targetTenantID: nil, target: "every account", reason: reason,
                details: details)
        }
        return report
    }

    /// Marks the e-mail address verified.
    public func verifyEmail(_ reference: String, actor: AdminActor, reason: String) async throws {
        let account = try await audited(reference, reason, actor)
        guard !account.emailVerified else {
            throw SpotterError.failedPrecondition("\(account.username)'s e-mail address is already verified")
        }
        try await store.markEmailVerified(
            account.tenantID,
            now: now(),
            audit: record(actor, "account.verify_email", account, reason)
        )
    }

    /// Signs the account out everywhere; returns the number of sessions revoked.
    /// `failedPrecondition` when none is live: nothing to change is said, not audited as a change.
    public func revokeSessions(_ reference: String, actor: AdminActor, reason: String) async throws -> Int {
        let account = try await audited(reference, reason, actor)
        guard try await liveSessions(account) > 0 else {
            throw SpotterError.failedPrecondition("\(account.username) has no live sessions")
        }
        return try await store.revokeSessions(account.tenantID, now: now()) { revoked in
            record(actor, "account.revoke_sessions", account, reason, details: ["sessions_revoked": "\(revoked)"])
        }
    }

    /// How many sessions of the account are live now (`spotterctl` asks before revoking them).
    public func liveSessions(_ account: AccountSummary) async throws -> Int {
        try await store.accountDetail(account.tenantID, now: now())?.sessions.count ?? 0
    }

    /// Changes the username.
    public func rename(_ reference: String, to username: String, actor: AdminActor, reason: String) async throws {
        if let problem = CredentialRules.usernameProblem(username) { throw SpotterError.invalid("username", problem) }
        let account = try await audited(reference, reason, actor)
        guard username != account.username else {
            throw SpotterError.invalid("to", "is already \(account.username)'s username")
        }
        try await store.rename(
            account.tenantID,
            to: username,
            now: now(),
            audit: record(
                actor, "account.rename", account, reason, details: ["from": account.username, "to": username])
        )
    }

    /// Issues a one-time password reset token and returns it with its link; the user's password
    /// stays valid until the token is used.
    public func resetPassword(_ reference: String, actor: AdminActor, reason: String) async throws -> ResetLink {
        let account = try await audited(reference, reason, actor)
        let token = Token.generate(prefix: "spp")
        let expiresAt = now().addingTimeInterval(policy.resetTokenLifetime)
        try await store.issueResetToken(
            account.tenantID,
            AccountToken(hash: Token.hash(token), purpose: .resetPassword, expiresAt: expiresAt),
            audit: record(actor, "account.reset_password", account, reason)
        )
        // No link without a portal to open it in: the token alone, for the app.
        let link = policy.publicURL.isEmpty ? "" : "\(policy.publicURL)/reset-password?token=\(token)"
        return ResetLink(token: token, link: link, expiresAt: expiresAt)
    }

    /// Sets a tier, optionally until a time; the tier must fit the tenant's kind.
    public func setTier(_ reference: String, _ tier: Tier, until: Date?, actor: AdminActor, reason: String) async throws
    {
        let account = try await audited(reference, reason, actor)
        try checkTierChange(account, tier, until: until)
        guard account.tier != TierGrant(tier: tier, expiresAt: until) else {
            throw SpotterError.failedPrecondition(
                "\(account.username) is on \(tier.rawValue) \(until.map { "until \($0.formatted(.iso8601))" } ?? "with no end") already"
            )
        }
        var details = ["from": account.tier.tier.rawValue, "to": tier.rawValue]
        if let until { details["until"] = until.formatted(.iso8601) }
        try await store.setTier(
            account.tenantID,
            TierGrant(tier: tier, expiresAt: until),
            now: now(),
            audit: record(actor, "tier.set", account, reason, details: details)
        )
    }

    /// Refuses a tier the account's kind cannot have, or an end that is past, too far, or given
    /// for the free tier (which does not end). `setTier` checks it too; spotterctl checks first,
    /// to ask for confirmation only of a change that would be made.
    public func checkTierChange(_ account: AccountSummary, _ tier: Tier, until: Date?) throws {
        guard tier.isAvailable(to: account.kind) else {
            throw SpotterError.invalid("tier", "\(tier.rawValue) is not a tier for a \(account.kind.rawValue)")
        }
        guard let until else { return }
        // Far enough for any subscription, and a typo such as year 99999 is not stored.
        var validator = Validator()
        validator.check(until > now(), "until", "must be in the future")
        validator.check(
            until < now().addingTimeInterval(100 * 365.25 * 86_400), "until", "must be within 100 years from now")
        validator.check(tier != .free, "until", "must be left out for the free tier, which does not end")
        try validator.validate()
    }

    /// Ends the tenant's tier now, so it falls back to free.
    public func expireTier(_ reference: String, actor: AdminActor, reason: String) async throws {
        let account = try await audited(reference, reason, actor)
        guard account.tier.effective(at: now()) != .free else {
            throw SpotterError.failedPrecondition("\(account.username) is already on the free tier")
        }
        try await store.setTier(
            account.tenantID,
            TierGrant(tier: account.tier.tier, expiresAt: now()),
            now: now(),
            audit: record(actor, "tier.expire", account, reason, details: ["tier": account.tier.tier.rawValue])
        )
    }

    /// Tenants on paid tiers; with `within`, only those whose tier ends within that many seconds.
    public func paidTiers(expiringWithin within: TimeInterval?) async throws -> [AccountSummary] {
        try await store.paidTiers(expiringBefore: within.map { now().addingTimeInterval($0) })
    }

    /// Erases a tenant: its rows in every table, and the personal data in its audit rows, which
    /// keep a pseudonymous record. Returns the pseudonym.
    public func erase(_ reference: String, actor: AdminActor, reason: String) async throws -> String {
        let account = try await audited(reference, reason, actor)
        let pseudonym = Erasure.pseudonym(account.tenantID)
        try await store.erase(
            account.tenantID,
            pseudonym: pseudonym,
            audit: AuditRecord(
                actor: actor,
                action: "account.delete",
                targetTenantID: account.tenantID,
                target: pseudonym,
                reason: reason
            )
        )
        return pseudonym
    }

    public func outbox(status: String?, limit: Int) async throws -> [OutboxEntry] {
        if let status, !["pending", "sent", "failed"].contains(status) {
            throw SpotterError.invalid("status", "must be pending, sent or failed")
        }
        return try await store.outbox(status: status, limit: limit)
    }

    public func outboxMessage(_ id: String) async throws -> OutboxEntry {
        guard let uuid = UUID(hexadecimal: id), let entry = try await store.outboxMessage(uuid) else {
            throw SpotterError.notFound("no outbox message \(id)")
        }
        return entry
    }

    /// One message to show an operator. A coaching notification carries another member's words (a
    /// lifter's reply to their coach): its reading needs a reason and is audited (`outbox.show`).
    public func showOutboxMessage(_ id: String, actor: AdminActor, reason: String?) async throws -> OutboxEntry {
        let entry = try await outboxMessage(id)
        guard entry.fromMember else { return entry }
        guard let reason, !reason.trimmingWhitespaces().isEmpty else {
            throw SpotterError.invalid(
                "reason",
                "is required to read a coaching notification (--reason): it carries a member's words, and the audit log keeps who read it and why"
            )
        }
        try await checkOperator(actor)
        try await store.recordAudit(
            AuditRecord(
                actor: actor, action: "outbox.show", targetTenantID: entry.tenantID,
                target: entry.id.lowercasedString, reason: reason))
        return entry
    }

    /// Makes a pending or failed message due for delivery now.
    public func retryOutboxMessage(_ id: String, actor: AdminActor, reason: String) async throws {
        try Self.requireReason(reason)
        try await checkOperator(actor)
        let entry = try await outboxMessage(id)
        guard entry.status != "sent" else { throw SpotterError.failedPrecondition("message \(id) was already sent") }
        _ = try await store.retryOutboxMessage(
            entry.id,
            now: now(),
            audit: AuditRecord(
                actor: actor,
                action: "outbox.retry",
                targetTenantID: entry.tenantID,
                target: entry.id.lowercasedString,
                reason: reason
            )
        )
    }

    /// One tenant's complete data. Reading is audited too: an export is personal data leaving.
    public func export(_ reference: String, actor: AdminActor, reason: String) async throws -> TenantExport {
        let account = try await audited(reference, reason, actor)
        let audit = record(actor, "account.export", account, reason)
        guard let export = try await store.export(account.tenantID, now: now(), audit: audit) else {
            throw SpotterError.notFound("no account matches '\(reference)'")
        }
        return export
    }

    public func feedback(open: Bool?, kind: FeedbackKind? = nil, limit: Int) async throws -> [FiledFeedback] {
        guard (1...1000).contains(limit) else { throw SpotterError.invalid("limit", "must be from 1 to 1000") }
        return try await store.feedback(open: open, kind: kind, limit: limit)
    }

    public func feedbackItem(_ id: String) async throws -> FiledFeedback {
        guard let uuid = UUID(hexadecimal: id), let item = try await store.feedbackItem(uuid) else {
            throw SpotterError.notFound("no feedback \(id)")
        }
        return item
    }

    /// Creates a dated challenge: lifters who meet its rule between its first and last day (in
    /// their own time zones) earn its trophy. Audited.
    public func createChallenge(
        name: String, description: String, startsOn: String, endsOn: String, rule: String, target: Int?,
        actor: AdminActor, reason: String
    ) async throws -> Challenge {
        try Self.requireReason(reason)
        let challenge = try ChallengeRules.validated(
            name: name, description: description, startsOn: startsOn, endsOn: endsOn, rule: rule, target: target,
            createdAt: now(), createdBy: actor.operatorName)
        try await checkOperator(actor)
        try await store.createChallenge(
            challenge,
            audit: AuditRecord(
                actor: actor, action: "challenge.create", targetTenantID: nil, target: challenge.id.lowercasedString,
                reason: reason))
        return challenge
    }

    /// Challenges, latest ending first: those not over yet (by UTC date), or all.
    public func challenges(all: Bool, limit: Int) async throws -> [Challenge] {
        guard (1...1000).contains(limit) else { throw SpotterError.invalid("limit", "must be from 1 to 1000") }
        return try await store.challenges(
            all: all, today: CivilDate(day: Int((now().timeIntervalSince1970 / 86_400).rounded(.down))).text,
            limit: limit)
    }

    /// Discover's publications for moderation: live ones (or all), newest first, of one author
    /// (a username, e-mail or tenant id) or everyone.
    public func publications(author reference: String?, all: Bool, limit: Int) async throws -> [Publication] {
        guard (1...1000).contains(limit) else { throw SpotterError.invalid("limit", "must be from 1 to 1000") }
        let author = try await reference.asyncMap { try await account($0).tenantID }
        return try await store.publications(author: author, all: all, limit: limit)
    }

    /// A live publication's title and author, for a question before taking it down; `notFound`
    /// (as `unpublish` answers) when no live publication has the id.
    public func livePublication(_ id: String) async throws -> (title: String, author: String) {
        guard let live = try await store.livePublication(try Self.publicationID(id)) else {
            throw SpotterError.notFound("no live publication \(id)")
        }
        return live
    }

    /// A publication id as `publications list` prints it, or `invalidArgument` on `id`.
    public static func publicationID(_ text: String) throws -> UUID {
        guard let uuid = UUID(hexadecimal: text) else {
            throw SpotterError.invalid("id", "must be a publication id from publications list")
        }
        return uuid
    }

    /// Takes a publication down (abuse, copyright): it leaves Discover at once, its followers keep
    /// their copies, and its author can publish again. Audited.
    public func unpublish(_ id: String, actor: AdminActor, reason: String) async throws {
        try Self.requireReason(reason)
        try await checkOperator(actor)
        let uuid = try Self.publicationID(id)
        let author = try await store.unpublish(uuid, now: now()) { author in
            AuditRecord(
                actor: actor, action: "publication.unpublish", targetTenantID: author, target: uuid.lowercasedString,
                reason: reason)
        }
        guard author != nil else { throw SpotterError.notFound("no live publication \(id)") }
    }

    /// Resolves feedback with an answer the filer sees.
    public func resolveFeedback(_ id: String, resolution: String, actor: AdminActor, reason: String) async throws {
        try Self.requireReason(reason)
        try await checkOperator(actor)
        let answer = resolution.trimmingWhitespacesAndNewlines()
        guard !answer.isEmpty, answer.storedLength <= 2000 else {
            throw SpotterError.invalid("resolution", "must be 1 to 2000 characters")
        }
        let item = try await feedbackItem(id).feedback
        let resolved = try await store.resolveFeedback(
            item.id,
            resolution: answer,
            by: actor.operatorName,
            now: now(),
            audit: AuditRecord(
                actor: actor,
                action: "feedback.resolve",
                targetTenantID: item.tenantID,
                target: item.id.lowercasedString,
                reason: reason
            )
        )
        guard resolved else { throw SpotterError.failedPrecondition("feedback \(id) is already resolved") }
    }

    public func counts() async throws -> SystemCounts {
        try await store.counts(now: now())
    }

    public func databaseReport() async throws -> DatabaseReport {
        try await store.databaseReport()
    }

    public func securityFindings(applicationRoles: [String]) async throws -> [SecurityFinding] {
        try await store.securityFindings(applicationRoles: applicationRoles)
    }

    private func audited(_ reference: String, _ reason: String, _ actor: AdminActor) async throws -> AccountSummary {
        try Self.requireReason(reason)
        try await checkOperator(actor)
        return try await account(reference)
    }

    private func record(
        _ actor: AdminActor,
        _ action: String,
        _ account: AccountSummary,
        _ reason: String,
        details: [String: String] = [:]
    ) -> AuditRecord {
        let json = (try? JSONEncoder().encode(details)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return AuditRecord(
            actor: actor,
            action: action,
            targetTenantID: account.tenantID,
            target: account.username,
            reason: reason,
            details: json
        )
    }
}
