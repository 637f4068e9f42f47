import Foundation
import SpotterCore
import Testing

@Suite("CSV")
struct CSVTests {
    @Test(
        "RFC 4180: quoted separators, doubled quotes, line breaks in fields, CRLF and LF, a byte-order mark, blank lines"
    )
    func reads() {
        let text = "\u{FEFF}a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\n\n1,,3\nlast,\"\",end"
        #expect(
            CSV.records(text, separator: ",") == [
                ["a", "b", "c"], ["x, y", "say \"hi\"", "two\nlines"], ["1", "", "3"], ["last", "", "end"],
            ])
        #expect(CSV.records("a;\"b;c\";d\n", separator: ";") == [["a", "b;c", "d"]])
        #expect(CSV.records("a,b,\n", separator: ",") == [["a", "b", ""]])
        #expect(CSV.records("\"unclosed,a\n", separator: ",") == nil)
        #expect(CSV.records("", separator: ",") == [])
        #expect(CSV.records("\"only\"", separator: ",") == [["only"]])
    }

    @Test("whatever the fields hold, writing and reading gives them back")
    func roundTrip() {
        let pieces = ["", "plain", "a,b", "\"", "\"\"quoted\"\"", "line\nbreak", "cr\r\nlf", "ünï 💪", " spaced ", ";"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let records = (0..<Int.random(in: 1...5, using: &generator)).map { _ in
                (0..<4).map { _ in
                    (0..<Int.random(in: 0...3, using: &generator)).map { _ in pieces.randomElement()! }.joined()
                }
            }
            let text = records.map(CSV.record).joined()
            // A record whose only field is empty is a blank line, which readers drop.
            #expect(CSV.records(text, separator: ",") == records.filter { $0 != [""] })
        }
    }
}
