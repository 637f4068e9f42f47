import ArgumentParser

/// `spotterctl`: administration of a Spotter installation, straight on its database.
@main
struct SpotterCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spotterctl",
        abstract: "Administers Spotter: accounts, tiers, the outbox, the audit log and the database.",
        discussion: "Connects like spotterd: to SPOTTER_DATABASE_URL, or to the embedded database under "
            + "SPOTTER_DATA_DIR (started for the command when spotterd is not running). Every change needs --reason "
            + "and is written to the audit log in the same transaction.",
        subcommands: [
            StatusCommand.self, AccountsCommand.self, TiersCommand.self, ExportCommand.self, FeedbackCommand.self,
            OutboxCommand.self, PublicationsCommand.self, ChallengesCommand.self,
            AuditCommand.self,
            DbCommand.self, MigrateCommand.self, HealthCommand.self,
        ]
    )
}
