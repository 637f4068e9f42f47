import Foundation

/// Whether a report is general feedback or a bug.
public enum FeedbackKind: String, Sendable, Codable, CaseIterable {
    case feedback
    case bug
}

/// Feedback or a bug report filed by a tenant.
public struct Feedback: Sendable, Equatable, Codable {
    @LowercasedUUID public var id: UUID
    public var tenantID: TenantID
    public var kind: FeedbackKind
    public var subject: String
    public var body: String
    public var appVersion: String
    public var createdAt: Date
    public var resolvedAt: Date?
    public var resolvedBy: String?
    public var resolution: String?

    public init(
        id: UUID,
        tenantID: TenantID,
        kind: FeedbackKind,
        subject: String,
        body: String,
        appVersion: String,
        createdAt: Date,
        resolvedAt: Date? = nil,
        resolvedBy: String? = nil,
        resolution: String? = nil
    ) {
        self.id = id
        self.tenantID = tenantID
        self.kind = kind
        self.subject = subject
        self.body = body
        self.appVersion = appVersion
        self.createdAt = createdAt
        self.resolvedAt = resolvedAt
        self.resolvedBy = resolvedBy
        self.resolution = resolution
    }
}

/// A report as an administrator triages it: with the username of the account that filed it.
public struct FiledFeedback: Sendable, Equatable {
    public var feedback: Feedback
    public var username: String

    public init(feedback: Feedback, username: String) {
        self.feedback = feedback
        self.username = username
    }
}

/// Persistence of the signed-in tenant's feedback.
public protocol FeedbackStore: Sendable {
    func submit(_ principal: Principal, _ feedback: Feedback) async throws
    /// The principal's own feedback, newest first.
    func feedback(_ principal: Principal) async throws -> [Feedback]
}

/// Filing and reading one's own feedback.
public struct FeedbackService: Sendable {
    private let store: any FeedbackStore
    private let now: @Sendable () -> Date

    public init(store: any FeedbackStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.now = now
    }

    /// Validates and files a report.
    public func submit(
        _ principal: Principal,
        kind: FeedbackKind?,
        subject: String,
        body: String,
        appVersion: String
    ) async throws -> Feedback {
        let subject = subject.trimmingWhitespacesAndNewlines()
        let body = body.trimmingWhitespacesAndNewlines()
        var validator = Validator()
        validator.check(kind != nil, "kind", "must be FEEDBACK or BUG")
        validator.check(!subject.isEmpty, "subject", "is required")
        validator.check(subject.storedLength <= 200, "subject", "must be at most 200 characters")
        validator.check(!body.isEmpty, "body", "is required")
        validator.check(body.storedLength <= 10_000, "body", "must be at most 10000 characters")
        validator.check(appVersion.storedLength <= 100, "app_version", "must be at most 100 characters")
        try validator.validate()
        let feedback = Feedback(
            id: UUID(),
            tenantID: principal.tenantID,
            kind: kind!,
            subject: subject,
            body: body,
            appVersion: appVersion,
            createdAt: now()
        )
        try await store.submit(principal, feedback)
        return feedback
    }

    public func feedback(_ principal: Principal) async throws -> [Feedback] {
        try await store.feedback(principal)
    }
}
