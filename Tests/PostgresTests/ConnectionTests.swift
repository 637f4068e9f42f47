import Foundation
import Postgres
import SpotterTestSupport
import Testing

@Suite("PostgreSQL connection")
struct ConnectionTests {
    @Test("decodes text, integers, numerics, booleans, UUIDs, timestamps, byte arrays and NULLs")
    func decodesTypedValues() async throws {
        try await TestDatabase.with { database in
            let connection = try await database.ownerConnection()
            let id = UUID()
            let moment = Date(timeIntervalSince1970: 1_795_255_653.123456)
            let rows = try await connection.query(
                """
                SELECT $1::text AS text, 42::int4 AS small, 9007199254740993::int8 AS big,
                       123.4500::numeric AS amount, true AS yes, $2::uuid AS id, $3::timestamptz AS moment,
                       $4::bytea AS bytes, NULL::text AS nothing, 2.5::float8 AS ratio
                """,
                ["grüße ' \" ;", id, moment, PostgresBytes([0, 1, 254, 255])]
            )
            let row = try #require(rows.single)
            #expect(try row.decode("text", as: String.self) == "grüße ' \" ;")
            #expect(try row.decode("small", as: Int32.self) == 42)
            #expect(try row.decode("big", as: Int64.self) == 9_007_199_254_740_993)
            #expect(try row.decode("amount", as: Decimal.self) == Decimal(string: "123.45"))
            #expect(try row.decode("yes", as: Bool.self))
            #expect(try row.decode("id", as: UUID.self) == id)
            let decoded = try row.decode("moment", as: Date.self)
            #expect(abs(decoded.timeIntervalSince(moment)) < 0.000_001)
            #expect(try row.decode("bytes", as: PostgresBytes.self).bytes == [0, 1, 254, 255])
            #expect(try row.decode("nothing", as: String?.self) == nil)
            #expect(try row.decode("ratio", as: Double.self) == 2.5)
            await connection.close()
        }
    }

    @Test("a pipeline answers each statement's rows in order; a failing one stops the rest and is thrown")
    func pipeline() async throws {
        try await TestDatabase.with { database in
            let connection = try await database.ownerConnection()
            try await connection.execute("CREATE TABLE p (id int PRIMARY KEY)")
            let answers = try await connection.pipeline([
                ("INSERT INTO p VALUES ($1)", [1]),
                ("SELECT $1::int + 1 AS two", [1]),
                ("SELECT id FROM p ORDER BY id", []),
            ])
            #expect(answers.count == 3)
            #expect(answers[0].affectedRows == 1)
            #expect(try answers[1].single?.decode("two", as: Int.self) == 2)
            #expect(try answers[2].map { try $0.decode("id", as: Int.self) } == [1])

            // Outside a transaction the pipeline is one implicit transaction: the failure undoes it all.
            let error = await #expect(throws: PostgresError.self) {
                try await connection.pipeline([
                    ("INSERT INTO p VALUES ($1)", [2]),
                    ("INSERT INTO p VALUES ($1)", [1]),
                    ("INSERT INTO p VALUES ($1)", [3]),
                ])
            }
            #expect(error?.sqlState == PostgresError.Code.uniqueViolation)
            #expect(error?.constraint == "p_pkey")
            // The connection is usable afterwards; nothing of the failed pipeline stayed.
            #expect(!connection.isBroken)
            let ids = try await connection.query("SELECT id FROM p ORDER BY id").map {
                try $0.decode("id", as: Int.self)
            }
            #expect(ids == [1])
            await connection.close()
        }
    }

    @Test(
        "a column is found by its exact name: equal lengths, prefixes, non-ASCII, case; the first of two; none is an error"
    )
    func columnsByName() async throws {
        try await TestDatabase.with { database in
            let connection = try await database.ownerConnection()
            let row = try #require(
                try await connection.query(
                    """
                    SELECT 1 AS abc, 2 AS abd, 3 AS ab, 4 AS abcd, 5 AS "größe", 6 AS abc, 7 AS "ABC"
                    """
                ).single)
            #expect(try row.decode("abc", as: Int.self) == 1, "the first column of that name")
            #expect(try row.decode("abd", as: Int.self) == 2)
            #expect(try row.decode("ab", as: Int.self) == 3)
            #expect(try row.decode("abcd", as: Int.self) == 4)
            #expect(try row.decode("größe", as: Int.self) == 5)
            #expect(try row.decode("ABC", as: Int.self) == 7)
            for missing in ["a", "abce", "gröse", "Abc", ""] {
                let error = #expect(throws: PostgresError.self) { try row.decode(missing, as: Int.self) }
                #expect(error?.column == missing)
                #expect(error?.kind == .decoding)
            }
            await connection.close()
        }
    }

    @Test(
        "statements under generic or custom plans (a pipeline's, a body's): their rows alone, the setting forced for them and back to auto after, also after a throw",
        arguments: [PostgresConnection.Planning.generic, .custom])
    func forcedPlans(_ planning: PostgresConnection.Planning) async throws {
        try await TestDatabase.with { database in
            let connection = try await database.ownerConnection()
            try await connection.execute("BEGIN")
            let answers = try await connection.pipeline(
                [
                    ("SELECT current_setting('plan_cache_mode') AS mode", []),
                    ("SELECT $1::int + 1 AS two", [1]),
                ], planning: planning)
            #expect(answers.count == 2)
            #expect(try answers[0].single?.decode("mode", as: String.self) == planning.rawValue)
            #expect(try answers[1].single?.decode("two", as: Int.self) == 2)
            func mode() async throws -> String? {
                try await connection.query("SELECT current_setting('plan_cache_mode') AS mode").single?.decode("mode")
            }
            #expect(try await mode() == "auto")
            // The same for every statement of a body, also when the body throws.
            let inside = try await connection.planned(planning) { try await mode() }
            #expect(inside == planning.rawValue)
            #expect(try await mode() == "auto")
            struct Refused: Error {}
            await #expect(throws: Refused.self) {
                try await connection.planned(planning) {
                    #expect(try await mode() == planning.rawValue)
                    throw Refused()
                }
            }
            #expect(try await mode() == "auto")
            try await connection.execute("COMMIT")
            await connection.close()
        }
    }

    @Test("a connection's session is UTC with ISO dates, and JIT compilation is off")
    func sessionSettings() async throws {
        try await TestDatabase.with { database in
            let connection = try await database.ownerConnection()
            let row = try #require(
                try await connection.query(
                    """
                    SELECT current_setting('TimeZone') AS zone, current_setting('DateStyle') AS dates,
                           current_setting('jit') AS jit
                    """
                ).single)
            #expect(try row.decode("zone", as: String.self) == "UTC")
            #expect(try row.decode("dates", as: String.self) == "ISO, YMD")
            #expect(try row.decode("jit", as: String.self) == "off")
            await connection.close()
        }
    }

    @Test("decoding NULL into a non-optional names the column; a position past the row's columns is an error")
    func nullIntoNonOptionalFails() async throws {
        try await TestDatabase.with { database in
            let connection = try await database.ownerConnection()
            let row = try #require(try await connection.query("SELECT NULL::int AS missing").single)
            let error = #expect(throws: PostgresError.self) { try row.decode("missing", as: Int.self) }
            #expect(error?.column == "missing")
            #expect(error?.kind == .decoding)
            // Rows share one buffer: the next row's first value is not this row's second.
            let rows = try await connection.query("SELECT n FROM generate_series(1, 2) AS n")
            #expect(try rows[0].decode(0, as: Int.self) == 1 && rows[1].decode(0, as: Int.self) == 2)
            #expect(throws: PostgresError.self) { try rows[0].decode(1, as: Int.self) }
            await connection.close()
        }
    }

    @Test("server errors carry SQLSTATE, message, detail and constraint")
    func serverErrorsCarrySQLState() async throws {
        try await TestDatabase.with { database in
            let connection = try await database.ownerConnection()
            try await connection.execute("CREATE TABLE t (id int PRIMARY KEY)")
            try await connection.query("INSERT INTO t VALUES ($1)", [1])
            let error = await #expect(throws: PostgresError.self) {
                try await connection.query("INSERT INTO t VALUES ($1)", [1])
            }
            #expect(error?.sqlState == PostgresError.Code.uniqueViolation)
            #expect(error?.constraint == "t_pkey")
            #expect(error?.detail?.contains("(id)=(1)") == true)
            let syntax = await #expect(throws: PostgresError.self) { try await connection.query("SELEC 1") }
            #expect(syntax?.sqlState == "42601")
            await connection.close()
        }
    }

    @Test("parameters are never spliced into SQL")
    func parametersAreNotSQL() async throws {
        try await TestDatabase.with { database in
            let connection = try await database.ownerConnection()
            let hostile = "x'); DROP TABLE users; --"
            let row = try #require(try await connection.query("SELECT $1::text AS value", [hostile]).single)
            #expect(try row.decode("value", as: String.self) == hostile)
            await connection.close()
        }
    }

    @Test("a parameter holding a NUL character is refused before anything is sent, never cut short")
    func zeroByteParameter() async throws {
        try await TestDatabase.with { database in
            let connection = try await database.ownerConnection()
            let error = await #expect(throws: PostgresError.self) {
                try await connection.query("SELECT $1::text AS a, $2::text AS b", ["fine", "bob\0@evil.co"])
            }
            #expect(error?.kind == .parameter)
            #expect(error?.message.contains("$2") == true)
            // The connection is still usable.
            #expect(try await connection.query("SELECT 1 AS one").single?.decode("one", as: Int.self) == 1)
            await connection.close()
        }
    }

    @Test("array parameters arrive element for element: quotes, backslashes, braces, NULLs, ids and numbers")
    func arrayParameters() async throws {
        try await TestDatabase.with { database in
            let connection = try await database.ownerConnection()
            let texts: [String?] = [
                "plain", "", "say \"hi\"", #"back\slash"#, #"\""#, "{braces}, commas", "NULL", nil, "  spaced  ",
                "Übung 🏋️", "tab\tand\nnewline",
            ]
            let ids = [UUID(), UUID()]
            let numbers: [Int?] = [0, -7, nil, Int.max]
            let rows = try await connection.query(
                """
                SELECT to_json($1::text[])::text AS texts, $2::uuid[] = ARRAY[$3::uuid, $4::uuid] AS ids,
                       to_json($5::bigint[])::text AS numbers, to_json($6::text[])::text AS empty
                """,
                [texts, ids, ids[0], ids[1], numbers, [String]()])
            let row = try #require(rows.single)
            let decoded = try JSONDecoder().decode(
                [String?].self, from: Data((try row.decode("texts") as String).utf8))
            #expect(decoded == texts)
            #expect(try row.decode("ids") == true)
            #expect(try row.decode("numbers") == "[0,-7,null,\(Int.max)]")
            #expect(try row.decode("empty") == "[]")
            // The log and the retry fingerprint read the same text as the server.
            #expect(ids.postgresText == "{\"\(ids[0].lowercasedString)\",\"\(ids[1].lowercasedString)\"}")
            #expect(numbers.postgresText == #"{"0","-7",NULL,"9223372036854775807"}"#)
            #expect(["a\"b", #"c\d"#].postgresText == #"{"a\"b","c\\d"}"#)

            // A NUL inside an element is refused, naming the parameter; nothing was sent.
            let error = await #expect(throws: PostgresError.self) {
                try await connection.query("SELECT $1::int AS a, $2::text[] AS b", [1, ["fine", "bad\0"]])
            }
            #expect(error?.kind == .parameter && error?.message.contains("$2") == true)
            await connection.close()
        }
    }

    @Test("a statement is prepared once per connection and reused")
    func preparedStatementsAreCached() async throws {
        try await TestDatabase.with { database in
            let connection = try await database.ownerConnection()
            for value in 1...5 { try await connection.query("SELECT $1::int + 1 AS next", [value]) }
            let count = try await connection.query(
                "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1",
                ["SELECT $1::int + 1 AS next"]
            )
            #expect(try count.single?.decode("n", as: Int.self) == 1)
            await connection.close()
        }
    }

    @Test("timestamps round-trip at microsecond precision, before 1970 too")
    func timestampsRoundTrip() async throws {
        try await TestDatabase.with { database in
            let connection = try await database.ownerConnection()
            for seconds in [-2_208_988_800.5, 0, 951_782_400.000001, 4_102_444_800.999999] {
                let date = Date(timeIntervalSince1970: seconds)
                let row = try #require(try await connection.query("SELECT $1::timestamptz AS t", [date]).single)
                let back = try row.decode("t", as: Date.self)
                #expect(abs(back.timeIntervalSince1970 - seconds) < 0.000_002)
            }
            await connection.close()
        }
    }
}
