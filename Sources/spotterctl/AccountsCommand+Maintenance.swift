import ArgumentParser
import Foundation
import SpotterCore

/// Options of every command that changes one account.
struct AccountChange: ParsableArguments {
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Tenant id, account id, e-mail address or username.") var account: String
    @Option(help: "Why (written to the audit log).") var reason: String
}

extension AccountsCommand {
    struct Unlock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Clears sign-in throttling of an account.")
        @OptionGroup var change: AccountChange

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(change.options) { context in
                    try await context.admin.unlock(change.account, actor: context.actor, reason: change.reason)
                    try report(
                        change.options, ["account": .text(change.account), "unlocked": true] as [String: Field],
                        "unlocked \(change.account)")
                }
            }
        }
    }

    struct ResetMfa: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-mfa",
            abstract: "Turns two-factor sign-in off for an owner who lost the device and the recovery codes.",
            discussion: "Forgets the secret and the recovery codes and ends every session; audited."
        )
        @OptionGroup var change: AccountChange
        @Flag(help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(change.options) { context in
                    try confirm(
                        "Turn two-factor sign-in off for \(change.account) and sign out every device? "
                            + "Only do this once you have checked who asks.", yes: yes)
                    try await context.admin.resetTwoFactor(change.account, actor: context.actor, reason: change.reason)
                    try report(
                        change.options, ["account": change.account, "mfa": "off"],
                        "two-factor sign-in is off for \(change.account); every session ended")
                }
            }
        }
    }

    struct ResealMfa: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reseal-mfa",
            abstract: "Seals every two-factor secret under the current key, so older keys can be retired.",
            discussion: """
                Run it after putting a new key first in SPOTTER_MFA_KEYS (or the key file) and restarting \
                every spotterd; once it reports nothing left under an old key, remove that key. Audited.
                """
        )
        @OptionGroup var options: GlobalOptions
        @Option(help: "Why (written to the audit log).") var reason: String

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    let keyring = try context.settings.mfaKeys.keyring(dataDirectory: context.settings.dataDirectory)
                    let outcome = try await context.admin.resealTwoFactorSecrets(
                        with: keyring, actor: context.actor, reason: reason)
                    let missing = outcome.missingKey.sorted { $0.key < $1.key }
                    var text =
                        "re-sealed \(outcome.resealed) two-factor secrets under key \(outcome.currentKeyID); "
                        + "\(outcome.alreadyCurrent) already were"
                    if outcome.unreadable > 0 {
                        text += "; \(outcome.unreadable) could not be opened with their key (left as they are)"
                    }
                    if !missing.isEmpty {
                        text +=
                            "; left as they are (their key is not in the ring): "
                            + missing.map { "\($0.value) under \($0.key)" }.joined(separator: ", ")
                    }
                    var fields: [String: Field] = [
                        "key": .text(outcome.currentKeyID), "resealed": .number(outcome.resealed),
                        "already_current": .number(outcome.alreadyCurrent), "unreadable": .number(outcome.unreadable),
                    ]
                    for (key, count) in missing { fields["missing_key_\(key)"] = .number(count) }
                    try report(options, fields, text)
                }
            }
        }
    }

    struct VerifyEmail: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-email",
            abstract: "Marks an account's e-mail address verified."
        )
        @OptionGroup var change: AccountChange

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(change.options) { context in
                    try await context.admin.verifyEmail(change.account, actor: context.actor, reason: change.reason)
                    try report(
                        change.options, ["account": .text(change.account), "verified": true] as [String: Field],
                        "verified \(change.account)")
                }
            }
        }
    }

    struct RevokeSessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-sessions",
            abstract: "Signs an account out of every device."
        )
        @OptionGroup var change: AccountChange
        @Flag(help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(change.options) { context in
                    let target = try await context.admin.account(change.account)
                    // With none live the service says so; there is nothing to ask.
                    let live = try await context.admin.liveSessions(target)
                    if live > 0 {
                        try confirm(
                            "Sign \(target.username) <\(target.email)> out of every device "
                                + "(\(DisplayFormat.count(live, "live session")))?",
                            yes: yes)
                    }
                    let revoked = try await context.admin.revokeSessions(
                        change.account,
                        actor: context.actor,
                        reason: change.reason
                    )
                    try report(
                        change.options,
                        ["account": .text(change.account), "sessions_revoked": .number(revoked)] as [String: Field],
                        "\(DisplayFormat.count(revoked, "session")) revoked"
                    )
                }
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Changes an account's username.")
        @OptionGroup var change: AccountChange
        @Option(help: "The new username.") var to: String

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(change.options) { context in
                    try await context.admin.rename(change.account, to: to, actor: context.actor, reason: change.reason)
                    try report(change.options, ["account": change.account, "username": to], "renamed to \(to)")
                }
            }
        }
    }

    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password",
            abstract: "Prints a one-time password reset link to hand to the user.",
            discussion: "The current password keeps working until the link is used (within one hour)."
        )
        @OptionGroup var change: AccountChange

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(change.options) { context in
                    let reset = try await context.admin.resetPassword(
                        change.account,
                        actor: context.actor,
                        reason: change.reason
                    )
                    if change.options.json { return try Output.json(reset) }
                    // Without a portal (SPOTTER_PORTAL_PORT=off, no SPOTTER_PUBLIC_URL) there is no page to link.
                    if !reset.link.isEmpty { print(reset.link) }
                    print("token \(reset.token), valid until \(Output.date(reset.expiresAt)), works once")
                }
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erases an account: the tenant and all its data.",
            discussion: "The audit log keeps a pseudonymous record that the account existed and what was done to it."
        )
        @OptionGroup var change: AccountChange
        @Flag(help: "Do not ask for confirmation.") var yes = false
        @Flag(help: "Show what would be erased and change nothing.") var dryRun = false

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(change.options) { context in
                    let target = try await context.admin.account(change.account)
                    if dryRun {
                        let detail = try await context.admin.detail(change.account)
                        let summary =
                            "would erase \(target.kind.rawValue) \(target.username) <\(target.email)> (tenant \(target.tenantID)): "
                            + "\(DisplayFormat.count(detail.workouts, "workout")), \(DisplayFormat.count(detail.sessions.count, "live session")) and every other row of "
                            + "the tenant, the comments it wrote on others' workouts and the e-mails it sent into others' outboxes (notifications); its audit rows keep a pseudonym"
                        struct DryRun: Encodable {
                            var tenant: String
                            var workouts: Int
                            var liveSessions: Int
                            var dryRun = true
                        }
                        return try report(
                            change.options,
                            DryRun(
                                tenant: target.tenantID.description, workouts: detail.workouts,
                                liveSessions: detail.sessions.count),
                            summary)
                    }
                    try confirm("Erase \(target.username) <\(target.email)> and all of its data for good?", yes: yes)
                    let pseudonym = try await context.admin.erase(
                        change.account, actor: context.actor, reason: change.reason)
                    try report(
                        change.options,
                        ["tenant": target.tenantID.description, "pseudonym": pseudonym],
                        "erased \(target.username); the audit log now calls it \(pseudonym)"
                    )
                }
            }
        }
    }
}

/// Prints a small result as JSON or as one line.
func report(_ options: GlobalOptions, _ fields: some Encodable, _ line: String) throws {
    if options.json { try Output.json(fields) } else { print(line) }
}
