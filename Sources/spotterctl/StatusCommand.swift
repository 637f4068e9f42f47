import ArgumentParser
import Foundation
import SpotterCore

/// `spotterctl status`: one screen of health.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Database, migrations, tenants by kind and tier, live sessions and outbox backlog."
    )
    @OptionGroup var options: GlobalOptions

    struct StatusReport: Encodable {
        var reachable: Bool
        var migrationLevel: Int?
        var pendingMigrations: Int
        var counts: SystemCounts
    }

    func run() async throws {
        try await runCommand {
            try await CommandContext.with(options) { context in
                let migrations = try await context.migrationStates()
                let counts = try await context.admin.counts()
                // A newer release's migration (missing here) counts: it is the database's level.
                let level = migrations.last(where: { $0.status == .applied || $0.status == .missing })?.version
                let pending = migrations.filter { $0.status == .pending }.count
                if options.json {
                    return try Output.json(
                        StatusReport(reachable: true, migrationLevel: level, pendingMigrations: pending, counts: counts)
                    )
                }
                print("database    reachable")
                print("migrations  level \(level.map { String(format: "%04d", $0) } ?? "none"), \(pending) pending")
                let tenants = counts.tenants.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                print("tenants     \(tenants.isEmpty ? "none" : tenants.joined(separator: ", "))")
                print("sessions    \(counts.activeSessions) live")
                print("outbox      \(counts.outboxPending) pending, \(counts.outboxFailed) failed")
            }
        }
    }
}
