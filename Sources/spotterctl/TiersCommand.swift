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
        @Option(
            help:
                "When the tier ends: a day it still covers (2027-01-31: through that day, UTC) or a time (2027-01-31T12:00:00Z); default: never."
        )
        var until: String?
        @Flag(help: "Do not ask for confirmation (asked only when a paid tier in force would be lowered or shortened).")
        var yes = false

        func run() async throws {
            try await runCommand {
                var validator = Validator()
                let end = parseTime(until, field: "until", throughDay: true, into: &validator)
                try commandLine(validator)
                try await CommandContext.with(change.options) { context in
                    let target = try await context.admin.account(change.account)
                    try context.admin.checkTierChange(target, tier, until: end)
                    // Asked only when something paid is taken away: a lower tier, or an earlier end.
                    let current = target.tier.effective(at: Date())
                    let who = "\(target.username) <\(target.email)>"
                    if current != .free, tier.rank < current.rank {
                        let until = end.map { " (until \(Output.tierEnd($0)))" } ?? ""
                        try confirm(
                            "Move \(who) from \(current.rawValue) down to \(tier.rawValue)\(until) now?", yes: yes)
                    } else if current != .free, tier == current, let end,
                        target.tier.expiresAt.map({ end < $0 }) ?? true
                    {
                        let now = target.tier.expiresAt.map { "ends \(Output.tierEnd($0))" } ?? "has no end"
                        try confirm(
                            "Shorten the \(tier.rawValue) tier of \(who) to end \(Output.tierEnd(end))? It \(now) now.",
                            yes: yes)
                    }
                    try await context.admin.setTier(
                        change.account, tier, until: end, actor: context.actor, reason: change.reason)
                    try report(
                        change.options,
                        [
                            "account": .text(change.account), "tier": .text(tier.rawValue),
                            "until": end.map { .text(Output.date($0)) } ?? .none,
                        ] as [String: Field],
                        "\(change.account) is on \(tier.rawValue) until \(end.map(Output.tierEnd) ?? "further notice")"
                    )
                }
            }
        }
    }

    struct Expire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Ends an account's tier now (it falls back to free).")
        @OptionGroup var change: AccountChange
        @Flag(help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(change.options) { context in
                    let target = try await context.admin.account(change.account)
                    let current = target.tier.effective(at: Date())
                    // Nothing to end is said by the service, without a question first.
                    if current != .free {
                        try confirm(
                            "End the \(current.rawValue) tier of \(target.username) <\(target.email)> now? "
                                + "The account falls back to free.",
                            yes: yes)
                    }
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
                                $0.tier.expiresAt.map(Output.tierEnd) ?? "never",
                            ]
                        }
                    )
                }
            }
        }
    }
}

/// Parses an optional time option: a day, `2027-01-31`, or a time, `2027-01-31T12:00:00Z` (seconds
/// and the zone may be left out, as the tables print times: UTC). A day alone is its first moment
/// in UTC, or with `throughDay` its last (the next day's midnight: `--until 2027-01-31` includes
/// January 31). Anything else, or a day the calendar does not have, is recorded against `field`.
func parseTime(_ text: String?, field: String, throughDay: Bool = false, into validator: inout Validator) -> Date? {
    guard let text else { return nil }
    let day = String(text.prefix(10))
    let shape = "must be an ISO 8601 date or time such as 2027-01-31 or 2027-01-31T12:00:00Z, not '\(text)'"
    guard let number = CivilDate.dayNumber(day) else {
        validator.add(field, day.split(separator: "-").map(\.count) == [4, 2, 2] ? CivilDate.notADate(day) : shape)
        return nil
    }
    let midnight = Date(timeIntervalSince1970: Double(number) * 86_400)
    if text.count == 10 { return throughDay ? midnight.addingTimeInterval(86_400) : midnight }
    guard let seconds = secondsOfDay(text.dropFirst(10)) else {
        validator.add(field, shape)
        return nil
    }
    return midnight.addingTimeInterval(Double(seconds))
}

/// `THH:MM`, `THH:MM:SS`, either with `Z` or `±HH:MM` after it (none: UTC) → seconds from the
/// day's midnight in UTC; `nil` for anything else, or an hour, minute or second out of range.
private func secondsOfDay(_ text: Substring) -> Int? {
    guard text.first == "T" else { return nil }
    var rest = text.dropFirst()
    var offset = 0
    if rest.hasSuffix("Z") {
        rest = rest.dropLast()
    } else if rest.count > 6, let sign = rest.dropLast(5).last, sign == "+" || sign == "-" {
        let zone = rest.suffix(5).split(separator: ":", omittingEmptySubsequences: false)
        guard zone.count == 2, zone.allSatisfy({ $0.count == 2 }), let hours = Int(zone[0]), let minutes = Int(zone[1]),
            hours <= 14, minutes < 60
        else { return nil }
        offset = (sign == "+" ? 1 : -1) * (hours * 3600 + minutes * 60)
        rest = rest.dropLast(6)
    }
    let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
    guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
        let hour = Int(parts[0]), let minute = Int(parts[1]), let second = parts.count == 3 ? Int(parts[2]) : 0,
        (0..<24).contains(hour), (0..<60).contains(minute), (0..<60).contains(second)
    else { return nil }
    return hour * 3600 + minute * 60 + second - offset
}
