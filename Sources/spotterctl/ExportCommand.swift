import ArgumentParser
import Foundation
import SpotterCore

/// `spotterctl export`: one tenant's complete data as JSON.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Writes one tenant's complete data as JSON to a file or standard output.",
        discussion: """
            Profile, sessions, e-mails sent, custom exercises, templates and every workout with its sets \
            (weights in kilograms). No secrets are exported: no password hash, tokens or e-mail bodies. \
            The export is audited.
            """
    )
    @OptionGroup var change: AccountChange
    @Option(help: "File to write (created with mode 0600); default: standard output.") var output: String?

    func run() async throws {
        try await runCommand {
            try await CommandContext.with(change.options) { context in
                let export = try await context.admin.export(change.account, actor: context.actor, reason: change.reason)
                guard let output else { return try Output.json(export) }
                let data = try Output.encode(export)
                guard
                    FileManager.default.createFile(
                        atPath: output, contents: data, attributes: [.posixPermissions: 0o600])
                else { throw SpotterError.failedPrecondition("cannot write \(output)") }
                FileHandle.standardError.write(Data("wrote \(data.count) bytes to \(output)\n".utf8))
            }
        }
    }
}
