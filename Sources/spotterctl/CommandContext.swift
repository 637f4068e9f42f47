import ArgumentParser
import Foundation
import Logging
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterSetup

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Option(help: "Your operator name for the audit log (default: SPOTTER_OPERATOR or your user name).")
    var `operator`: String?
}

/// The database connection and services of one command run.
struct CommandContext {
    let settings: ServerConfiguration
    let database: DatabaseSetup
    let pool: PostgresPool
    let admin: AdminService
    let logger: Logger
    let actor: AdminActor

    /// Opens the configured database as the admin role; run `body`, then close everything.
    static func with<T>(_ options: GlobalOptions, _ body: (CommandContext) async throws -> T) async throws -> T {
        let settings = try ServerConfiguration.fromEnvironment()
        var logger = Logger(label: "spotterctl")
        logger.logLevel = .warning
        let database = try DatabaseSetup.open(settings, applicationName: "spotterctl", logger: logger)
        defer { database.close() }
        // Fail early with libpq's own reason, which an operator needs, rather than a generic one.
        let working = try await database.working(login: "spotter_operator", memberOf: [settings.adminRole])
        let probe = try await PostgresConnection.connect(working.with(role: settings.adminRole))
        await probe.close()
        let pool = PostgresPool(
            configuration: working.with(role: settings.adminRole),
            options: PostgresPool.Options(maxConnections: 2),
            logger: logger
        )
        let environment = ProcessInfo.processInfo.environment
        let osUser =
            environment["SUDO_USER"] ?? getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) }
            ?? "uid \(getuid())"
        let context = CommandContext(
            settings: settings,
            database: database,
            pool: pool,
            admin: AdminService(
                store: PostgresAdminStore(pool: pool),
                hasher: PasswordHasher(cost: settings.passwordCost),
                policy: settings.auth
            ),
            logger: logger,
            actor: AdminActor(
                operatorName: options.operator ?? environment["SPOTTER_OPERATOR"].flatMap { $0.isEmpty ? nil : $0 }
                    ?? osUser,
                osUser: osUser)
        )
        do {
            let result = try await body(context)
            await pool.shutdown()
            return result
        } catch {
            await pool.shutdown()
            throw error
        }
    }
}

/// Runs a command body and turns any failure into one line on standard error and exit code 1.
func runCommand(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch let unreadable as ValidationError {
        // A command line it cannot read: exit 64 with the usage, as ArgumentParser's own.
        throw unreadable
    } catch {
        FileHandle.standardError.write(Data(("spotterctl: " + describe(error) + "\n").utf8))
        throw ExitCode.failure
    }
}

/// `body`, with a refusal's fields that are this command's options named as typed: `--ends-on: must
/// be on or after --starts-on (2027-03-09)` rather than the API's `ends_on` and `starts_on`.
func namingOptions<T>(_ fields: [String], _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch SpotterError.invalidArgument(let violations) {
        func flag(_ text: String) -> String {
            fields.reduce(text) { text, field in
                text.replacingOccurrences(
                    of: #"\b\#(field)\b"#, with: "--" + field.replacingOccurrences(of: "_", with: "-"),
                    options: .regularExpression)
            }
        }
        throw SpotterError.invalidArgument(
            violations.map { FieldViolation(field: flag($0.field), reason: flag($0.reason)) })
    }
}

/// A one-line, human description of an error.
func describe(_ error: any Error) -> String {
    switch error {
    case let error as SpotterError:
        switch error {
        case .notFound(let message), .failedPrecondition(let message), .permissionDenied(let message),
            .tierRequired(let message, _), .scopeNotGranted(let message, _), .unauthenticated(let message, _),
            .unavailable(let message), .syncReset(let message):
            return message
        case .alreadyExists(let field, let reason):
            return "\(field): \(reason)"
        case .invalidArgument(let violations):
            return violations.listed
        case .tooManyRequests(let message, _):
            return message
        }
    case let error as PostgresError:
        let firstLine = error.message.split(separator: "\n").first.map(String.init) ?? error.message
        return error.kind == .connection ? "database unreachable: \(firstLine)" : error.description
    default:
        return "\(error)"
    }
}

/// Asks for confirmation of a destructive action unless `--yes` was given.
func confirm(_ question: String, yes: Bool) throws {
    if yes { return }
    guard isatty(STDIN_FILENO) == 1 else {
        // Exit 1 with one line, as any refusal (not a command line it cannot read).
        throw SpotterError.failedPrecondition("\(question) Refusing without a terminal; pass --yes to confirm.")
    }
    print("\(question) Type 'yes' to continue: ", terminator: "")
    guard readLine()?.trimmingWhitespaces().lowercased() == "yes" else {
        throw SpotterError.failedPrecondition("not confirmed; nothing changed")
    }
}

/// Refuses options the command cannot read (a date that is not one, a page of 0) as a command line
/// it cannot read: `ValidationError`, so the exit is 64 with the usage, each option named as typed.
func commandLine(_ validator: Validator) throws {
    guard !validator.violations.isEmpty else { return }
    throw ValidationError(validator.violations.map { "--\($0.field): \($0.reason)" }.joined(separator: "; "))
}
