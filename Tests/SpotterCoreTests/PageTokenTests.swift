import Foundation
import SpotterCore
import Testing

@Suite("Training rules: page tokens")
struct TrainingRulesPageTokenTests {
    @Test(
        "a token decodes to the parts it was made from",
        arguments: [
            ["1700000000123456", "6f2b1d0e-3c4a-4b5e-9f60-718293a4b5c6"],
            ["???", "~~~", ""],
            ["Bankdrücken 🏋️"],
            ["a"],
        ])
    func roundTrip(parts: [String]) throws {
        let token = PageToken.encode(parts)
        #expect(!token.contains { "+/=".contains($0) })
        #expect(try PageToken.decode(token, parts: parts.count) == parts)
    }

    @Test("an empty token means the first page")
    func emptyToken() throws {
        #expect(try PageToken.decode("", parts: 2) == nil)
    }

    @Test("a garbage token is invalid on page.page_token", arguments: ["not a token!", "abcde", "__4", "%%%%"])
    func garbage(token: String) {
        #expect(
            throws: SpotterError.invalid("page.page_token", "is not a token this call returned")
        ) { try PageToken.decode(token, parts: 2) }
    }

    @Test("a token with the wrong number of parts is invalid")
    func wrongPartCount() {
        let token = PageToken.encode(["a", "b", "c"])
        #expect(
            throws: SpotterError.invalid("page.page_token", "is not a token this call returned")
        ) { try PageToken.decode(token, parts: 2) }
    }

    @Test("a page's token carries its cursor and its query's digest; another query's token is refused")
    func queryDigest() throws {
        let cursor = HistoryCursor(startedAt: Date(timeIntervalSince1970: 1_700_000_000), id: WorkoutID.random())
        let page = Page(fetched: ["a", "b", "c"], limit: 2, query: ["tenant", "squat"]) { _ in cursor }
        #expect(page.items == ["a", "b"])
        let read = try PageToken.cursor(HistoryCursor.self, from: page.nextToken, query: ["tenant", "squat"])
        #expect(read?.tokenParts == cursor.tokenParts)
        for other in [["tenant", "bench"], ["tenant"], ["tenant", "squat", ""], ["tenantsquat"]] {
            #expect(
                throws: SpotterError.invalid(
                    "page.page_token",
                    "was returned for another list, other filters or another account; ask for the first page (no page_token)"
                ),
                "\(other)"
            ) { try PageToken.cursor(HistoryCursor.self, from: page.nextToken, query: other) }
        }
        #expect(Page(fetched: ["a"], limit: 2, query: []) { _ in cursor }.nextToken == "", "the last page has none")
    }

    @Test("page size 0 means 20, 1–100 is kept, anything else is invalid on page.page_size")
    func pageSize() throws {
        #expect(try PageToken.size(0) == 20)
        #expect(try PageToken.size(1) == 1)
        #expect(try PageToken.size(100) == 100)
        #expect(throws: SpotterError.invalid("page.page_size", "must be between 1 and 100")) { try PageToken.size(101) }
        #expect(throws: SpotterError.invalid("page.page_size", "must be between 1 and 100")) { try PageToken.size(-1) }
    }

    @Test("timestamps survive the trip through microseconds")
    func micros() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        let text = PageToken.micros(date)
        #expect(text == "1700000000123456")
        #expect(abs(try PageToken.date(micros: text).timeIntervalSince(date)) < 1e-6)
        #expect(throws: SpotterError.invalid("page.page_token", "is not a token this call returned")) {
            try PageToken.date(micros: "soon")
        }
    }
}
