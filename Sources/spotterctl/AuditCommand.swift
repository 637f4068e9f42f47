import ArgumentParser
import Foundation
import SpotterCore

/// `spotterctl audit list`.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Reads the append-only audit log.",
        subcommands: [List.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists audit entries, newest first.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "Operator name or operating-system user.") var actor: String?
        @Option(help: "Action, such as account.disable, or its start, such as account. or account.dis.") var action:
            String?
        @Option(
            help:
                "The target account: its username, e-mail or tenant id (an erased one's tenant id or erased-… pseudonym)."
        )
        var target: String?
        @Option(help: "Entries at or after this ISO 8601 time.") var since: String?
        @Option(help: "Entries before this ISO 8601 time, or through this day (UTC).") var until: String?
        @Option(parsing: .unconditional, help: "Most entries to show.") var limit = 100

        func run() async throws {
            try await runCommand {
                var validator = Validator()
                let sinceDate = parseTime(since, field: "since", into: &validator)
                let untilDate = parseTime(until, field: "until", throughDay: true, into: &validator)
                try commandLine(validator)
                try await CommandContext.with(options) { context in
                    // An erased account is found by the pseudonym its erasure printed.
                    let pseudonym = target.flatMap { $0.hasPrefix("erased-") ? $0 : nil }
                    var targetID = target.flatMap(TenantID.init)
                    if let target, targetID == nil, pseudonym == nil {
                        targetID = try await context.admin.account(target).tenantID
                    }
                    let entries = try await context.admin.auditLog(
                        AuditFilter(
                            actor: actor, action: action, targetTenantID: targetID, target: pseudonym,
                            since: sinceDate, until: untilDate, limit: limit)
                    )
                    if options.json { return try Output.json(entries.map(AuditJSON.init)) }
                    Output.table(
                        ["ID", "AT", "ACTOR", "OS USER", "ACTION", "TARGET", "REASON"],
                        entries.map {
                            [
                                "\($0.id)", Output.date($0.at), $0.actor, $0.osUser ?? "-", $0.action,
                                $0.target ?? $0.targetTenantID?.description ?? "-", $0.reason ?? "-",
                            ]
                        }
                    )
                }
            }
        }
    }
}

/// An audit row as `--json` prints it: `AuditEntry`'s own encoding, with its details as the JSON
/// object they are in place of the string holding them.
private struct AuditJSON: Encodable {
    let entry: AuditEntry

    init(_ entry: AuditEntry) { self.entry = entry }

    private enum Key: String, CodingKey { case details }

    func encode(to encoder: any Encoder) throws {
        try entry.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(Output.Embedded(json: entry.details), forKey: .details)
    }
}
