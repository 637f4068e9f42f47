import ArgumentParser
import Foundation
import SpotterCore

/// `spotterctl feedback list|show|resolve`.
struct FeedbackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedback",
        abstract: "Triages feedback and bug reports filed by users.",
        subcommands: [List.self, Show.self, Resolve.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lists feedback, newest first (open only by default).")
        @OptionGroup var options: GlobalOptions
        @Flag(help: "Include resolved feedback.") var all = false
        @Option(help: "Only this kind: bug or feedback.") var kind: FeedbackKind?
        @Option(parsing: .unconditional, help: "Most items to show.") var limit = 50

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    let items = try await context.admin.feedback(open: all ? nil : true, kind: kind, limit: limit)
                    if options.json { return try Output.json(items.map(FeedbackJSON.init)) }
                    Output.table(
                        ["ID", "KIND", "STATUS", "CREATED", "FROM", "SUBJECT"],
                        items.map { filed in
                            let item = filed.feedback
                            return [
                                item.id.lowercasedString, item.kind.rawValue,
                                item.resolvedAt == nil ? "open" : "resolved",
                                Output.date(item.createdAt), filed.username, item.subject,
                            ]
                        }
                    )
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Shows one report in full.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The feedback id from feedback list.") var id: String

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    let filed = try await context.admin.feedbackItem(id)
                    if options.json { return try Output.json(FeedbackJSON(filed)) }
                    let item = filed.feedback
                    print("\(item.kind.rawValue): \(item.subject)")
                    print(
                        "from \(filed.username) (tenant \(item.tenantID)), \(Output.date(item.createdAt)), app \(item.appVersion.isEmpty ? "-" : item.appVersion)"
                    )
                    print("\n\(item.body)\n")
                    if let resolvedAt = item.resolvedAt {
                        print(
                            "resolved \(Output.date(resolvedAt)) by \(item.resolvedBy ?? "-"): \(item.resolution ?? "")"
                        )
                    } else {
                        print("open")
                    }
                }
            }
        }
    }

    struct Resolve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Resolves a report with an answer the user can read.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The feedback id from feedback list.") var id: String
        @Option(help: "The answer shown to the user.") var resolution: String
        @Option(help: "Why (written to the audit log).") var reason: String

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    try await context.admin.resolveFeedback(
                        id, resolution: resolution, actor: context.actor, reason: reason)
                    try report(options, ["id": id, "status": "resolved"], "resolved \(id)")
                }
            }
        }
    }
}

/// A report as `--json` shows it: the report's own fields (ids in lower case, as everywhere) and
/// its status ("open" or "resolved") as the table shows it.
private struct FeedbackJSON: Encodable {
    private enum Key: String, CodingKey { case status, username }
    let filed: FiledFeedback

    init(_ filed: FiledFeedback) { self.filed = filed }

    func encode(to encoder: any Encoder) throws {
        try filed.feedback.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(filed.feedback.resolvedAt == nil ? "open" : "resolved", forKey: .status)
        try container.encode(filed.username, forKey: .username)
    }
}

extension FeedbackKind: ExpressibleByArgument {}
