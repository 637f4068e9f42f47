import Foundation
import Logging

/// An e-mail claimed from the outbox for one delivery attempt.
public struct OutboxDelivery: Sendable, Equatable {
    public var tenantID: TenantID
    public var id: UUID
    public var recipient: String
    public var subject: String
    public var body: String
    /// Attempts including this one.
    public var attempt: Int
    /// The portal page the message is about (`/clients/…`), linked when it is sent.
    public var linkPath: String?

    public init(
        tenantID: TenantID, id: UUID, recipient: String, subject: String, body: String, attempt: Int,
        linkPath: String? = nil
    ) {
        self.tenantID = tenantID
        self.id = id
        self.recipient = recipient
        self.subject = subject
        self.body = body
        self.attempt = attempt
        self.linkPath = linkPath
    }

    /// The body as sent (`PortalLink.body`).
    public func body(portal: String?) -> String {
        PortalLink.body(body, portal: portal, path: linkPath)
    }
}

/// The link to the portal page an e-mail is about, which the outbox keeps as a path
/// (`email_outbox.link_path`) since the database does not know the portal's address.
public enum PortalLink {
    /// `body` with the page's address (`portal` and `path`) on a line of its own after the message
    /// and before the footer (the last "--" line), when there is a page and an address.
    public static func body(_ body: String, portal: String?, path: String?) -> String {
        guard let portal, let path else { return body }
        let link = "\(portal)\(path)\n"
        guard let footer = body.range(of: "\n--\n", options: .backwards) else { return body + "\n" + link }
        return body[..<footer.lowerBound] + "\n" + link + body[footer.lowerBound...]
    }
}

/// Why a delivery attempt failed: `permanent` failures (SMTP 5xx) are not retried.
public struct MailDeliveryError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var permanent: Bool

    public init(_ message: String, permanent: Bool) {
        self.message = message
        self.permanent = permanent
    }

    public var description: String { message }
}

/// Sends one e-mail (SMTP in production, the log in development).
public protocol MailTransport: Sendable {
    func send(from sender: String, to recipient: String, subject: String, body: String) async throws
}

/// The outbox as the mailer uses it, across tenants.
public protocol OutboxStore: Sendable {
    /// Claims up to `limit` due pending messages, counting the attempt and hiding them from other
    /// mailers until `leaseUntil`.
    func claimDue(now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery]
    func markSent(_ delivery: OutboxDelivery, at: Date) async throws
    /// Leaves the message pending until `retryAt`, or marks it failed when `retryAt` is `nil`.
    func markFailed(_ delivery: OutboxDelivery, error: String, retryAt: Date?) async throws
}

/// Delivers the outbox: retries transient failures with exponential backoff and gives up on
/// permanent ones or after `maxAttempts`.
public struct MailDelivery: Sendable {
    public var sender: String
    /// The portal's address (`SPOTTER_PUBLIC_URL`), put in front of a message's page.
    public var portal: String?
    public var maxAttempts = 8
    public var firstRetry: TimeInterval = 30
    public var longestRetry: TimeInterval = 6 * 3600
    /// Told what became of each attempt: `sent`, `retry` (a transient failure) or `failed` (given up).
    public var onResult: (@Sendable (String) -> Void)?
    private let store: any OutboxStore
    private let transport: any MailTransport
    private let now: @Sendable () -> Date
    private let logger: Logger

    public init(
        sender: String,
        store: any OutboxStore,
        transport: any MailTransport,
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger
    ) {
        self.sender = sender
        self.store = store
        self.transport = transport
        self.now = now
        self.logger = logger
    }

    /// When attempt number `attempt` failed transiently, when to try again; `nil` to give up.
    public func retryTime(afterAttempt attempt: Int, now: Date) -> Date? {
        guard attempt < maxAttempts else { return nil }
        return now.addingTimeInterval(min(firstRetry * pow(2, Double(attempt - 1)), longestRetry))
    }

    /// Sends every due message once; returns how many were sent.
    @discardableResult
    public func deliverDue(batch: Int = 20) async throws -> Int {
        let started = now()
        let due = try await store.claimDue(now: started, leaseUntil: started.addingTimeInterval(300), limit: batch)
        var sent = 0
        for delivery in due {
            do {
                try await transport.send(
                    from: sender, to: delivery.recipient, subject: delivery.subject, body: delivery.body(portal: portal)
                )
                try await store.markSent(delivery, at: now())
                onResult?("sent")
                sent += 1
            } catch {
                let failure = error as? MailDeliveryError ?? MailDeliveryError("\(error)", permanent: false)
                let retry = failure.permanent ? nil : retryTime(afterAttempt: delivery.attempt, now: now())
                try await store.markFailed(delivery, error: failure.message, retryAt: retry)
                onResult?(retry == nil ? "failed" : "retry")
                logger.warning(
                    "e-mail delivery failed",
                    metadata: [
                        // The message id as spotterctl's outbox commands print and take it.
                        "tenant": "\(delivery.tenantID)", "message": "\(delivery.id.lowercasedString)",
                        "attempt": "\(delivery.attempt)",
                        // A server's reply may quote the address: the log keeps no member's address.
                        "error": "\(failure.message.replacingOccurrences(of: delivery.recipient, with: "<recipient>"))",
                        "retry": "\(retry.map { "\($0)" } ?? "no")",
                    ]
                )
            }
        }
        return sent
    }
}
