/// Trimming white space without Foundation's `trimmingCharacters(in:)`, which on Linux bridges the
/// text to an `NSString` and copies a `CharacterSet` on every call: about 1 % of spotterd's CPU
/// per logged workout went to trimming one workout name. The sets are Foundation's, scalar for
/// scalar (`TrimmingTests` compares every Unicode scalar): `.whitespacesAndNewlines` is Unicode's
/// White_Space property, `.whitespaces` the space separators (Zs) and the tab, and both hold the
/// zero-width space (U+200B), a space separator in the older Unicode tables Foundation uses.
extension String {
    /// `trimmingCharacters(in: .whitespacesAndNewlines)`.
    public func trimmingWhitespacesAndNewlines() -> String {
        self[...].trimmingWhitespacesAndNewlines()
    }

    /// `trimmingCharacters(in: .whitespaces)`.
    public func trimmingWhitespaces() -> String {
        self[...].trimmingWhitespaces()
    }
}

extension Substring {
    /// `trimmingCharacters(in: .whitespacesAndNewlines)`.
    public func trimmingWhitespacesAndNewlines() -> String {
        trimming { scalar in
            scalar.isASCII
                ? scalar == " " || (0x09...0x0D).contains(scalar.value)
                : scalar.properties.isWhitespace || scalar == "\u{200B}"
        }
    }

    /// `trimmingCharacters(in: .whitespaces)`.
    public func trimmingWhitespaces() -> String {
        trimming { scalar in
            scalar.isASCII
                ? scalar == " " || scalar == "\t"
                : scalar.properties.generalCategory == .spaceSeparator || scalar == "\u{200B}"
        }
    }

    private func trimming(_ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isTrimmed($0) })!
        return String(Substring(scalars[first...last]))
    }
}

extension StringProtocol {
    /// The length PostgreSQL's `length()` gives, and so what the tables' CHECK constraints limit:
    /// Unicode scalars, not the characters Swift's `count` sees. "é" typed as an "e" and a combining
    /// accent is 2; a family emoji 7. Text limits are checked with this, so text that passes them
    /// is never refused by the database instead (an INTERNAL error, which in a sync push held up
    /// every later change of the device).
    public var storedLength: Int { unicodeScalars.count }

    /// The longest start of the text whose `storedLength` is at most `limit`, cut between
    /// characters (an accent is never parted from its letter): for names a copy makes longer
    /// ("… (copy)"), which must still fit the column.
    public func prefix(storedLength limit: Int) -> String {
        var kept = 0
        var end = startIndex
        for index in indices {
            let length = self[index].unicodeScalars.count
            guard kept + length <= limit else { break }
            kept += length
            end = self.index(after: index)
        }
        return String(self[startIndex..<end])
    }
}
