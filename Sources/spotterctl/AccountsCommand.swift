import ArgumentParser
import Foundation
import SpotterCore

/// `spotterctl accounts list|show|create|disable|enable`.
struct AccountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "Finds, shows, creates, changes and erases accounts.",
        subcommands: [
            List.self, Show.self, Create.self, Disable.self, Enable.self, Unlock.self, ResetMfa.self, ResealMfa.self,
            VerifyEmail.self,
            RevokeSessions.self, Rename.self, ResetPassword.self, Delete.self, Operators.self,
        ]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lists or finds accounts, newest first: `accounts find ada` is `accounts list --search ada`.",
            aliases: ["find"])
        @OptionGroup var options: GlobalOptions
        @Argument(help: "Text in the e-mail address or username, as --search.") var text: String?
        @Option(help: "lifter or coach.") var kind: TenantKind?
        @Option(help: "active or disabled.") var status: AccountStatus?
        @Option(help: "free, pro, coach or coach_pro.") var tier: Tier?
        @Option(help: "Text in the e-mail address or username.") var search: String?
        @Option(help: "Only accounts created at or after this ISO 8601 time or date.") var createdSince: String?
        @Option(parsing: .unconditional, help: "Accounts per page.") var limit = 50
        @Option(parsing: .unconditional, help: "Page number, from 1.") var page = 1

        func run() async throws {
            try await runCommand {
                var validator = Validator()
                validator.check(page >= 1, "page", "must be 1 or more")
                validator.check(
                    text == nil || search == nil || text == search, "search", "give the text once, not also as --search"
                )
                let since = parseTime(createdSince, field: "created-since", into: &validator)
                try commandLine(validator)
                try await CommandContext.with(options) { context in
                    let accounts = try await context.admin.accounts(
                        AccountFilter(
                            kind: kind, status: status, tier: tier, search: text ?? search, createdSince: since,
                            limit: limit,
                            offset: (page - 1) * limit)
                    )
                    if options.json { return try Output.json(accounts) }
                    Output.table(
                        ["TENANT", "KIND", "USERNAME", "EMAIL", "STATUS", "TIER", "VERIFIED", "CREATED"],
                        accounts.map {
                            [
                                $0.tenantID.description, $0.kind.rawValue, $0.username, $0.email, $0.status.rawValue,
                                $0.tier.effective(at: Date()).rawValue, $0.emailVerified ? "yes" : "no",
                                Output.date($0.createdAt),
                            ]
                        }
                    )
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Shows one account with its live sessions.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "Tenant id, account id, e-mail address or username.") var account: String

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    let detail = try await context.admin.detail(account)
                    if options.json { return try Output.json(detail) }
                    let profile = detail.profile
                    let fields: [(String, String)] = [
                        ("tenant", profile.tenantID.description), ("account", profile.accountID.description),
                        ("kind", profile.kind.rawValue), ("username", profile.username), ("email", profile.email),
                        ("email verified", profile.emailVerifiedAt.map { "yes, \(Output.date($0))" } ?? "no"),
                        ("status", profile.status.rawValue),
                        ("display name", profile.displayName), ("time zone", profile.timeZone),
                        ("unit", profile.unit.rawValue),
                        (
                            "tier",
                            "\(profile.tier.effective(at: Date()).rawValue) (stored \(profile.tier.tier.rawValue), "
                                + "expires \(Output.date(profile.tier.expiresAt)))"
                        ),
                        (
                            "two-factor",
                            detail.twoFactorSince.map {
                                "on since \(Output.date($0)), "
                                    + "\(DisplayFormat.count(detail.recoveryCodesLeft, "recovery code")) left"
                            } ?? "off"
                        ),
                        ("failed sign-ins", "\(detail.failedSignIns) across unknown devices"),
                        (
                            "locked until",
                            detail.lockedUntil.map { Output.date($0) }
                                ?? (detail.sources.contains { $0.lockedUntil != nil }
                                    ? "not locked for every device; a source below waits" : "not locked")
                        ),
                        ("created", Output.date(profile.createdAt)),
                        ("last activity", Output.date(detail.lastActivity)),
                        ("workouts", "\(detail.workouts) (last \(Output.date(detail.lastWorkoutAt)))"),
                    ]
                    for (name, value) in fields {
                        print(name.padding(toLength: 16, withPad: " ", startingAt: 0) + value)
                    }
                    if !detail.sources.isEmpty {
                        print("\nsign-in failures by source (each waits on its own):")
                        Output.table(
                            ["SOURCE", "FAILURES", "WAITS UNTIL"],
                            detail.sources.map {
                                [$0.source, "\($0.failures)", $0.lockedUntil.map { Output.date($0) } ?? "-"]
                            })
                    }
                    print("\nsessions:")
                    Output.table(
                        ["SESSION", "DEVICE", "FROM", "CREATED", "LAST USED", "EXPIRES"],
                        detail.sessions.map {
                            [
                                $0.id.description, $0.deviceLabel.isEmpty ? "-" : $0.deviceLabel, $0.address ?? "-",
                                Output.date($0.createdAt),
                                Output.date($0.lastUsedAt), Output.date($0.expiresAt),
                            ]
                        }
                    )
                }
            }
        }
    }

    /// What `accounts create` makes.
    enum NewAccountKind: String, ExpressibleByArgument, CaseIterable {
        case lifter
        case coach
        case `operator`
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Creates a lifter or coach account, or registers an admin operator.",
            discussion: "A lifter's or coach's password is read from a prompt, or from standard input with "
                + "--password-stdin; never from the command line. An operator has no password: operators act "
                + "through spotterctl on the server, and once one is registered every change must name a "
                + "registered operator (--operator or SPOTTER_OPERATOR)."
        )
        @OptionGroup var options: GlobalOptions
        @Option(help: "lifter, coach or operator.") var kind: NewAccountKind
        @Option(help: "E-mail address.") var email: String
        @Option(help: "Username (for an operator: the operator name).") var username: String
        @Option(help: "Display name (default: the username).") var displayName: String?
        @Flag(help: "Mark the e-mail address verified.") var verified = false
        @Flag(help: "Read the password from the first line of standard input.") var passwordStdin = false
        @Option(help: "Why (written to the audit log).") var reason: String

        func run() async throws {
            try await runCommand {
                if kind == .operator {
                    return try await CommandContext.with(options) { context in
                        let admin = try await context.admin.createOperator(
                            name: username,
                            displayName: displayName,
                            email: email,
                            actor: context.actor,
                            reason: reason
                        )
                        if options.json { return try Output.json(admin) }
                        print("registered operator \(admin.name)")
                    }
                }
                let password = try readPassword(fromStdin: passwordStdin)
                try await CommandContext.with(options) { context in
                    let account = try await context.admin.createAccount(
                        kind: kind == .coach ? .coach : .lifter,
                        email: email,
                        username: username,
                        password: password,
                        displayName: displayName,
                        verified: verified,
                        actor: context.actor,
                        reason: reason
                    )
                    if options.json { return try Output.json(account) }
                    print("created \(account.kind.rawValue) \(account.username) (tenant \(account.tenantID))")
                }
            }
        }
    }

    struct Operators: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists the registered admin operators.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    let operators = try await context.admin.operators()
                    if options.json { return try Output.json(operators) }
                    Output.table(
                        ["NAME", "DISPLAY NAME", "EMAIL", "CREATED", "BY", "DISABLED"],
                        operators.map {
                            [
                                $0.name, $0.displayName, $0.email, Output.date($0.createdAt), $0.createdBy,
                                $0.disabledAt.map { Output.date($0) } ?? "-",
                            ]
                        }
                    )
                }
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disables an account and revokes all its sessions at once.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "Tenant id, account id, e-mail address or username.") var account: String
        @Option(help: "Why (written to the audit log).") var reason: String
        @Flag(help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    let target = try await context.admin.account(account)
                    try confirm("Disable \(target.username) <\(target.email)> and sign out every device?", yes: yes)
                    let revoked = try await context.admin.setStatus(
                        account, .disabled, actor: context.actor, reason: reason)
                    if options.json {
                        return try Output.json(["status": "disabled", "sessions_revoked": Field.number(revoked)])
                    }
                    print("disabled \(target.username); \(revoked) session(s) revoked")
                }
            }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enables a disabled account.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "Tenant id, account id, e-mail address or username.") var account: String
        @Option(help: "Why (written to the audit log).") var reason: String

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    _ = try await context.admin.setStatus(account, .active, actor: context.actor, reason: reason)
                    if options.json { return try Output.json(["status": "active"]) }
                    print("enabled \(account)")
                }
            }
        }
    }
}

extension TenantKind: ExpressibleByArgument {}
extension AccountStatus: ExpressibleByArgument {}
extension Tier: ExpressibleByArgument {}

/// Reads a password from standard input or a prompt without echo.
func readPassword(fromStdin: Bool) throws -> String {
    if fromStdin {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw SpotterError.invalid("password", "standard input had no password")
        }
        return line
    }
    guard isatty(STDIN_FILENO) == 1, let first = getpass("Password: ") else {
        throw SpotterError.invalid("password", "no terminal to prompt on; use --password-stdin")
    }
    let password = String(cString: first)
    guard let second = getpass("Repeat password: "), String(cString: second) == password else {
        throw SpotterError.invalid("password", "the two entries differ")
    }
    return password
}
