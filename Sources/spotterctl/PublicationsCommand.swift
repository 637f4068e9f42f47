import ArgumentParser
import Foundation
import SpotterCore

/// `spotterctl publications list|unpublish`: Discover's moderation.
struct PublicationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publications",
        abstract: "Lists Discover's public templates and programs and takes one down.",
        subcommands: [List.self, Unpublish.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lists publications, newest version first (live ones unless --all).")
        @OptionGroup var options: GlobalOptions
        @Option(help: "Only this author's (username, e-mail or tenant id).") var author: String?
        @Flag(help: "Include unpublished ones.") var all = false
        @Option(parsing: .unconditional, help: "Most items to show.") var limit = 50

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    let items = try await context.admin.publications(author: author, all: all, limit: limit)
                    if options.json {
                        struct Item: Encodable {
                            var id, authorId, authorName, kind, title, status: String
                            var version, followers: Int
                            var updatedAt: Date
                        }
                        return try Output.json(
                            items.map {
                                Item(
                                    id: $0.id.description, authorId: $0.authorID.description, authorName: $0.authorName,
                                    kind: $0.kind.rawValue, title: $0.title,
                                    status: $0.unpublishedAt == nil ? "live" : "unpublished", version: $0.version,
                                    followers: $0.followers, updatedAt: $0.updatedAt)
                            })
                    }
                    Output.table(
                        ["ID", "KIND", "STATUS", "VERSION", "FOLLOWERS", "UPDATED", "AUTHOR", "AUTHOR ID", "TITLE"],
                        items.map {
                            [
                                $0.id.description, $0.kind.rawValue, $0.unpublishedAt == nil ? "live" : "unpublished",
                                String($0.version), String($0.followers), Output.date($0.updatedAt),
                                $0.authorName, $0.authorID.description, $0.title,
                            ]
                        }
                    )
                }
            }
        }
    }

    struct Unpublish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Takes a publication out of Discover; its followers keep their copies.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The publication id from publications list.") var id: String
        @Option(help: "Why (written to the audit log).") var reason: String
        @Flag(help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    // A typo or an id of nothing live is refused before the question.
                    let live = try await context.admin.livePublication(id)
                    try confirm(
                        "Take \u{201C}\(live.title)\u{201D} by \(live.author) out of Discover? Its followers keep their copies.",
                        yes: yes)
                    try await context.admin.unpublish(id, actor: context.actor, reason: reason)
                    try report(options, ["id": id, "status": "unpublished"], "unpublished \(id)")
                }
            }
        }
    }
}
