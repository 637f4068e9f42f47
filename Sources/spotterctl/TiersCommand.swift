import ArgumentParser
import Foundation
import SpotterCore

/// `spotterctl tiers set|expire|list`.
struct TiersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiers",
        abstract: "Sets, expires and lists subscription tiers.",
        subcommands: [Set.self, Expire.self, List.self]
    )

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sets an account's tier, optionally until a time.")
        @OptionGroup var change: AccountChange
        @Option(help: "free or pro for lifters; free, coach or coach_pro for coaches.") var tier: Tier
        @Option(help: "When the tier ends (ISO 8601, such as 2027-01-31 or 2027-01-31T12:00:00Z); default: never.")
        var until: String?

        func run() async throws {
            try await runCommand {
                var validator = Validator()
                let end = parseTime(until, field: "until", into: &validator)
                try validator.validate()
                try await CommandContext.with(change.options) { context in
                    try await context.admin.setTier(
                        change.account, tier, until: end, actor: context.actor, reason: change.reason)
                    try report(
                        change.options,
                        [
                            "account": change.account, "tier": tier.rawValue,
                            "until": end.map { Output.date($0) } ?? "never",
                        ],
                        "\(change.account) is on \(tier.rawValue) until \(end.map { Output.date($0) } ?? "further notice")"
                    )
                }
            }
        }
    }

    struct Expire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Ends an account's tier now (it falls back to free).")
        @OptionGroup var change: AccountChange

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(change.options) { context in
                    try await context.admin.expireTier(change.account, actor: context.actor, reason: change.reason)
                    try report(
                        change.options, ["account": change.account, "tier": "free"], "\(change.account) is back on free"
                    )
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists accounts on paid tiers, soonest expiry first.")
        @OptionGroup var options: GlobalOptions
        @Option(parsing: .unconditional, help: "Only tiers ending within this many days.") var expiringWithin: Int?

        func run() async throws {
            try await runCommand {
                if let days = expiringWithin, days < 0 {
                    throw SpotterError.invalid("expiring-within", "must not be negative")
                }
                try await CommandContext.with(options) { context in
                    let accounts = try await context.admin.paidTiers(
                        expiringWithin: expiringWithin.map { Double($0) * 86_400 })
                    if options.json { return try Output.json(accounts) }
                    Output.table(
                        ["TENANT", "KIND", "USERNAME", "TIER", "EXPIRES"],
                        accounts.map {
                            [
                                $0.tenantID.description, $0.kind.rawValue, $0.username, $0.tier.tier.rawValue,
                                $0.tier.expiresAt.map { Output.date($0) } ?? "never",
                            ]
                        }
                    )
                }
            }
        }
    }
}

/// Parses an optional time option, `2027-01-31T12:00:00Z` or `2027-01-31` (midnight UTC); a value
/// that is not one is recorded against `field`.
func parseTime(_ text: String?, field: String, into validator: inout Validator) -> Date? {
    guard let text else { return nil }
    if let date = try? Date(text, strategy: .iso8601) { return date }
    if let date = try? Date(text + "T00:00:00Z", strategy: .iso8601) { return date }
    validator.add(field, "must be an ISO 8601 date or time such as 2026-11-01 or 2026-11-01T00:00:00Z")
    return nil
}
