import ArgumentParser
import Foundation
import SpotterCore

/// `spotterctl export`: one tenant's complete data as JSON, or its sets, template items or body
/// measurements as CSV.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract:
            "Writes one tenant's complete data as JSON (or its sets, templates or body measurements as CSV) to a file or standard output.",
        discussion: """
            JSON: profile, sessions, e-mails sent, custom exercises, templates, every workout with its sets \
            (weights in kilograms) and coaching data: the same document a lifter's own ExportAccount call \
            streams. CSV: one row per set (csv), template item (templates-csv) or body measurement \
            (measurements-csv), the columns of README "Export, import and share". No secrets are \
            exported: no password hash, tokens or e-mail bodies. The export is audited.
            """
    )
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, csv
        case templatesCSV = "templates-csv"
        case measurementsCSV = "measurements-csv"
    }

    @OptionGroup var change: AccountChange
    @Option(
        help:
            "json (default), csv (every set), templates-csv (every template item) or measurements-csv (every body measurement)."
    ) var format: Format = .json
    @Option(help: "File to write (created with mode 0600); default, or -: standard output.") var output: String?

    func run() async throws {
        // `-` is standard output, as for most tools (it wrote a file named "-").
        let output = output == "-" ? nil : output
        try await runCommand {
            try await CommandContext.with(change.options) { context in
                // The file is made first, beside the output, so a path that cannot be written fails
                // before anything is read or audited; it replaces the output once it is whole.
                let partial = try output.map(Self.makePartial)
                defer { if let partial { try? FileManager.default.removeItem(atPath: partial) } }
                let export = try await context.admin.export(change.account, actor: context.actor, reason: change.reason)
                let data: Data
                switch format {
                case .json:
                    data = try TenantExport.encoder(pretty: true).encode(export) + Data("\n".utf8)
                case .csv:
                    let writer = ExportCSV(timeZone: TimeZone(identifier: export.profile.timeZone) ?? .gmt)
                    data = Data((ExportCSV.header + export.workouts.map(writer.rows).joined()).utf8)
                case .templatesCSV:
                    data = Data((ExportCSV.templateHeader + export.templates.map(ExportCSV.templateRows).joined()).utf8)
                case .measurementsCSV:
                    let rows = (export.measurements ?? []).map {
                        ExportCSV.measurementRow($0, unit: export.profile.unit)
                    }.joined()
                    data = Data((ExportCSV.measurementHeader + rows).utf8)
                }
                guard let output, let partial else { return FileHandle.standardOutput.write(data) }
                do {
                    try data.write(to: URL(fileURLWithPath: partial))
                } catch {
                    throw SpotterError.failedPrecondition("cannot write \(output): \(error.localizedDescription)")
                }
                guard rename(partial, output) == 0 else {
                    throw SpotterError.failedPrecondition("cannot write \(output): \(String(cString: strerror(errno)))")
                }
                FileHandle.standardError.write(Data("wrote \(data.count) bytes to \(output)\n".utf8))
            }
        }
    }

    /// An empty file (mode 0600) beside `output`, for the export to be written to.
    private static func makePartial(_ output: String) throws -> String {
        let url = URL(fileURLWithPath: output)
        let partial = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial").path
        // Made with open(2) for its reason when it cannot be ("No such file or directory").
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else {
            throw SpotterError.failedPrecondition("cannot write \(output): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        return partial
    }
}
