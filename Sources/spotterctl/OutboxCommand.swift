import ArgumentParser
import Foundation
import SpotterCore

/// `spotterctl outbox list|show|retry`.
struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "Lists, shows and retries e-mails waiting in the outbox.",
        subcommands: [List.self, Show.self, Retry.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lists pending and failed e-mails, newest first, without their bodies (outbox show has them).")
        @OptionGroup var options: GlobalOptions
        @Option(help: "pending, failed or sent (default: pending and failed).") var status: String?
        @Option(parsing: .unconditional, help: "Most messages to show.") var limit = 50

        func run() async throws {
            try await runCommand {
                guard (1...1000).contains(limit) else { throw SpotterError.invalid("limit", "must be from 1 to 1000") }
                var validator = Validator()
                validator.check(
                    status.map { ["pending", "failed", "sent"].contains($0) } ?? true, "status",
                    "must be pending, failed or sent, not '\(status ?? "")'")
                try commandLine(validator)
                try await CommandContext.with(options) { context in
                    let messages = try await context.admin.outbox(status: status, limit: limit)
                    // Bodies carry sign-in links and members' words: `show` prints one at a time, a
                    // member's with a reason it audits.
                    if options.json { return try Output.json(messages.map(Listed.init)) }
                    if messages.isEmpty, status == nil {
                        return print("(none pending or failed; --status sent lists the e-mails sent)")
                    }
                    Output.table(
                        ["ID", "STATUS", "KIND", "TO", "ATTEMPTS", "CREATED", "LAST ERROR"],
                        messages.map {
                            [
                                $0.id.lowercasedString, $0.status, $0.kind, $0.recipient, "\($0.attempts)",
                                Output.date($0.createdAt), $0.lastError ?? "-",
                            ]
                        }
                    )
                }
            }
        }
    }

    /// A message as `list --json` gives it: everything but its body.
    struct Listed: Encodable {
        @LowercasedUUID var id: UUID
        var tenantID: TenantID
        var kind, recipient, status: String
        /// A coaching notification's subject names members and their workout: `show` has it.
        var subject: String?
        var attempts: Int
        var lastError: String?
        var createdAt, nextAttemptAt: Date
        var sentAt: Date?
        var fromMember: Bool
        var linkPath: String?

        init(_ entry: OutboxEntry) {
            (id, tenantID, kind, recipient, status) = (
                entry.id, entry.tenantID, entry.kind, entry.recipient, entry.status
            )
            subject = entry.fromMember ? nil : entry.subject
            (attempts, lastError, createdAt, nextAttemptAt, sentAt) = (
                entry.attempts, entry.lastError, entry.createdAt, entry.nextAttemptAt, entry.sentAt
            )
            (fromMember, linkPath) = (entry.fromMember, entry.linkPath)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Shows one e-mail with its body, so its link can be handed over by hand."
        )
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The message id from outbox list.") var id: String
        @Option(help: "Why (required for a coaching notification, which carries a member's words; audited).")
        var reason: String?

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    let message = try await context.admin.showOutboxMessage(id, actor: context.actor, reason: reason)
                    if options.json { return try Output.json(message) }
                    print("to:       \(message.recipient)\nsubject:  \(message.subject)")
                    print(
                        "status:   \(message.status) (\(DisplayFormat.count(message.attempts, "attempt")))\ncreated:  \(Output.date(message.createdAt))"
                    )
                    if let error = message.lastError { print("error:    \(error)") }
                    print("\n\(message.body(portal: context.settings.auth.publicURL))")
                }
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Makes a pending or failed e-mail due for delivery now.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The message id from outbox list.") var id: String
        @Option(help: "Why (written to the audit log).") var reason: String

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    try await context.admin.retryOutboxMessage(id, actor: context.actor, reason: reason)
                    try report(options, ["id": id, "status": "pending"], "message \(id) is due now")
                }
            }
        }
    }
}
