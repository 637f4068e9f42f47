import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

/// Keeps the benchmark's same-SQL proxy (`Benchmarks/same-sql/*.sql`, run by pgbench) in step with
/// the statements spotterd really sends for the two benchmarked calls. A call is the request
/// interceptor's authentication and then the handler's service call, in the call's scope (one
/// reserved connection: `SpotterDatabase.run`), as `RequestInterceptor` and `WorkoutHandler` run
/// them; neither sends anything else.
@Suite("Same-SQL benchmark proxy")
struct SameSQLProxyTests {
    private let start = Date(timeIntervalSince1970: 1_790_000_000)

    @Test("the same-SQL proxy's LogWorkout and ListWorkouts scripts send exactly the statements spotterd sends")
    func scriptsMatchTheServer() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            _ = try await auth.register(
                AuthService.Registration(
                    email: "ada@example.com", username: "ada", password: "long enough ada", kind: .lifter))
            let token = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "", address: "127.0.0.1"
            ).accessToken
            let training = database.trainingServices(clock: TestClock(start))
            let call = SpotterDatabase(pool: database.appPool)

            let logged = try await Self.recording {
                try await call.run {
                    let principal = try await auth.authenticate(accessToken: token)
                    _ = try await training.workouts.log(
                        principal, id: WorkoutID.random().description, Self.tenSets(start))
                }
            }
            try Self.expect(logged, matchScript: "logworkout.sql")

            let listed = try await Self.recording {
                try await call.run {
                    let principal = try await auth.authenticate(accessToken: token)
                    _ = try await training.workouts.history(
                        principal, from: nil, to: nil, text: "", pageSize: 20, pageToken: "")
                }
            }
            try Self.expect(listed, matchScript: "history.sql")
        }
    }

    private static func recording(_ body: () async throws -> Void) async throws -> [PostgresStatementLog.Statement] {
        let log = PostgresStatementLog()
        try await PostgresStatementLog.$current.withValue(log) { try await body() }
        return log.statements
    }

    /// The benchmark's workout (`spotter-load`'s `Workouts.tenSets`): squat from 100 kg and bench
    /// press from 70 kg, 5 sets of 5 each, 2.5 kg more and half a point of RPE more each set.
    static func tenSets(_ startedAt: Date) -> WorkoutDraft {
        func fiveSets(_ exercise: ExerciseID, from base: Double) -> WorkoutExerciseDraft {
            WorkoutExerciseDraft(
                exerciseID: exercise.description,
                sets: (0..<5).map { set in
                    SetDraft(
                        reps: 5, weight: WeightDraft(value: base + Double(set) * 2.5, unit: .kg),
                        rpe: 7 + Double(set) * 0.5)
                })
        }
        return WorkoutDraft(
            name: "Squat and bench", startedAt: startedAt, durationSeconds: 3600,
            exercises: [fiveSets(Catalog.squat, from: 100), fiveSets(Catalog.benchPress, from: 70)])
    }

    /// Compares statement texts with the script's, after replacing the server's `$n` with `?` (or
    /// `NULL` where it sent a null, which pgbench variables cannot carry) and the script's pgbench
    /// variables (`:name`) with `?`, and collapsing white space. The script's lines before its
    /// first statement that is not the per-transaction lookup (`\gset`) are the proxy's own.
    static func expect(_ statements: [PostgresStatementLog.Statement], matchScript name: String) throws {
        let path = TestDatabase.repositoryRoot.appendingPathComponent("Benchmarks/same-sql/\(name)")
        let script = try String(contentsOf: path, encoding: .utf8)
        let sent = statements.map { statement in
            normalized(replacingParameters(statement.sql, statement.parameters))
        }
        let scripted = scriptStatements(script).map { normalized(replacingVariables($0)) }
        #expect(
            sent == scripted,
            """
            Benchmarks/same-sql/\(name) is out of step with spotterd. spotterd sent, in order \
            (parameters after each):
            \(statements.map { "\($0.sql);\n-- \($0.parameters.map { $0 ?? "NULL" })" }.joined(separator: "\n"))
            """)
    }

    /// The script's SQL statements (up to each `;` at a line's end) and its pipeline markers
    /// (`\startpipeline`, `\endpipeline`: what spotterd sends in one round trip), leaving out
    /// comments, other meta-commands (`\set`) and the lookup ending in `\gset`.
    static func scriptStatements(_ script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        for line in script.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == PostgresStatementLog.startPipeline || trimmed == PostgresStatementLog.endPipeline {
                statements.append(trimmed)
                continue
            }
            if trimmed.isEmpty || trimmed.hasPrefix("--") || trimmed.hasPrefix("\\") { continue }
            current += line + "\n"
            if trimmed.hasSuffix("\\gset") {
                current = ""
            } else if trimmed.hasSuffix(";") {
                statements.append(String(current.trimmingCharacters(in: .whitespacesAndNewlines).dropLast()))
                current = ""
            }
        }
        return statements
    }

    private static func replacingParameters(_ sql: String, _ parameters: [String?]) -> String {
        replacing(in: sql, marker: "$", isNameCharacter: \.isNumber) { number in
            guard let index = Int(number), parameters.indices.contains(index - 1) else { return "$" + number }
            return parameters[index - 1] == nil ? "NULL" : "?"
        }
    }

    private static func replacingVariables(_ sql: String) -> String {
        var text = sql.replacingOccurrences(of: "::", with: "\u{1}")
        text = replacing(in: text, marker: ":", isNameCharacter: { $0.isLetter || $0.isNumber || $0 == "_" }) { _ in
            "?"
        }
        return text.replacingOccurrences(of: "\u{1}", with: "::")
    }

    private static func replacing(
        in text: String, marker: Character, isNameCharacter: (Character) -> Bool, with replacement: (String) -> String
    ) -> String {
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character == marker, next < text.endIndex, isNameCharacter(text[next]) {
                let end = text[next...].firstIndex { !isNameCharacter($0) } ?? text.endIndex
                result += replacement(String(text[next..<end]))
                index = end
            } else {
                result.append(character)
                index = next
            }
        }
        return result
    }

    private static func normalized(_ sql: String) -> String {
        sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
