import ArgumentParser
import Foundation
import SpotterCore

/// `spotterctl challenges create|list`: dated challenges lifters earn trophies for.
struct ChallengesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "challenges",
        abstract: "Creates and lists dated challenges (a trophy for meeting a rule between two dates).",
        subcommands: [Create.self, List.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Creates a challenge; lifters who meet its rule in its dates (their time zone) earn its trophy.",
            discussion: """
                Rules: any_workout (one workout in the range), workouts (--target workouts), active_minutes \
                (--target minutes of workouts). Example: spotterctl challenges create --name "International \
                Women's Day" --starts-on 2027-03-08 --ends-on 2027-03-08 --rule any_workout --reason "IWD 2027"
                """)
        @OptionGroup var options: GlobalOptions
        @Option(help: "1–80 characters, shown as the trophy's title.") var name: String
        @Option(help: "At most 500 characters.") var description = ""
        @Option(help: "First day, YYYY-MM-DD.") var startsOn: String
        @Option(help: "Last day, YYYY-MM-DD (at most 366 days after the first).") var endsOn: String
        @Option(help: "any_workout, workouts or active_minutes.") var rule: String
        @Option(parsing: .unconditional, help: "Workouts or minutes to reach (not for any_workout).") var target: Int?
        @Option(help: "Why (written to the audit log).") var reason: String

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    let challenge = try await namingOptions(
                        ["name", "description", "starts_on", "ends_on", "rule", "target", "reason"]
                    ) {
                        try await context.admin.createChallenge(
                            name: name, description: description, startsOn: startsOn, endsOn: endsOn, rule: rule,
                            target: target, actor: context.actor, reason: reason)
                    }
                    try report(
                        options, ChallengesCommand.fields(challenge),
                        "created challenge \(challenge.id.lowercasedString): \(challenge.criterion)")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lists challenges, latest ending first (those not over unless --all).")
        @OptionGroup var options: GlobalOptions
        @Flag(help: "Include challenges that are over.") var all = false
        @Option(parsing: .unconditional, help: "Most items to show.") var limit = 50

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    let items = try await context.admin.challenges(all: all, limit: limit)
                    if options.json { return try Output.json(items.map(ChallengesCommand.fields)) }
                    Output.table(
                        ["ID", "STARTS", "ENDS", "RULE", "TARGET", "NAME"],
                        items.map {
                            [
                                $0.id.lowercasedString, $0.startsOn, $0.endsOn, $0.rule.rawValue, String($0.target),
                                $0.name,
                            ]
                        })
                }
            }
        }
    }

    /// A challenge as `--json` writes it: numbers as numbers, times in UTC with their `Z`.
    struct Fields: Encodable {
        var id, name, description, startsOn, endsOn, rule, createdBy: String
        var target: Int
        var createdAt: Date
    }

    static func fields(_ challenge: Challenge) -> Fields {
        Fields(
            id: challenge.id.lowercasedString, name: challenge.name, description: challenge.description,
            startsOn: challenge.startsOn, endsOn: challenge.endsOn, rule: challenge.rule.rawValue,
            createdBy: challenge.createdBy, target: challenge.target, createdAt: challenge.createdAt)
    }
}
