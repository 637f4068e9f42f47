import Foundation

/// Input rules for registration and profile fields.
///
/// Passwords follow OWASP ASVS v4 2.1: 8 to 128 characters, any characters, no composition rules,
/// and the most common passwords refused.
public enum CredentialRules {
    public static let passwordMinLength = 8
    public static let passwordMaxLength = 128

    /// The most bytes a password may have: 4 per character (UTF-8's longest).
    public static let passwordMaxBytes = passwordMaxLength * 4

    /// Whether `password` is longer than any acceptable one. Bytes are checked first, in constant
    /// time, so a 4 MB password costs nothing before it is refused (counting its characters would).
    public static func passwordTooLong(_ password: String) -> Bool {
        password.utf8.count > passwordMaxBytes || password.count > passwordMaxLength
    }

    /// Why `password` is not acceptable, or `nil`.
    public static func passwordProblem(_ password: String) -> String? {
        if passwordTooLong(password) { return "must be at most \(passwordMaxLength) characters" }
        if password.count < passwordMinLength { return "must be at least \(passwordMinLength) characters" }
        if password.allSatisfy(\.isWhitespace) { return "must not be only spaces" }
        let lowercased = password.lowercased()
        if CommonPasswords.contains(lowercased) { return "is one of the most commonly used passwords" }
        // "password1234", "iloveyou2026!": a common password with digits or symbols added.
        let stem = String(lowercased.reversed().drop { $0.isNumber || $0.isPunctuation || $0.isSymbol }.reversed())
        if stem != lowercased, CommonPasswords.contains(stem) {
            return "is one of the most commonly used passwords with digits or symbols added"
        }
        return nil
    }

    /// Why `username` is not acceptable, or `nil`: 3–32 of a–z 0–9 _ . starting with a letter.
    public static func usernameProblem(_ username: String) -> String? {
        guard (3...32).contains(username.count) else { return "must be 3 to 32 characters" }
        guard let first = username.unicodeScalars.first, ("a"..."z").contains(first) || ("A"..."Z").contains(first)
        else { return "must start with a letter a–z" }
        let allowed = username.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "."
        }
        return allowed ? nil : "may contain only letters a–z, digits, '_' and '.'"
    }

    /// Why `email` is not acceptable, or `nil`. Deliberately loose: one '@', a dot in the domain,
    /// no spaces; the verification e-mail is the real check.
    public static func emailProblem(_ email: String) -> String? {
        guard !email.isEmpty else { return "is required" }
        guard email.count <= 254 else { return "must be at most 254 characters" }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
            !parts[1].hasSuffix("."), !email.contains(where: { $0.isWhitespace })
        else { return "is not an e-mail address" }
        return nil
    }

    /// Why `name` is not acceptable as a display name, or `nil`.
    public static func displayNameProblem(_ name: String) -> String? {
        let trimmed = name.trimmingWhitespaces()
        if trimmed.isEmpty { return "must not be empty" }
        if trimmed.storedLength > 80 { return "must be at most 80 characters" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "must not contain control characters"
        }
        return visibleTextProblem(trimmed)
    }

    /// Why a name others read (a display name, a template's, a program's) is not one: it is not one
    /// line (a control character: a line break, a tab), it reverses the text's direction
    /// (`directionProblem`), or nothing in it is visible (only zero-width and format characters).
    /// `nil` when none; emoji joiners and right-to-left scripts themselves are fine.
    public static func visibleTextProblem(_ text: String) -> String? {
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "must be one line, without control characters"
        }
        if let problem = directionProblem(text) { return problem }
        let visible = text.unicodeScalars.contains { scalar in
            !scalar.properties.isWhitespace && !scalar.properties.isDefaultIgnorableCodePoint
                && ![.format, .control, .nonspacingMark, .enclosingMark].contains(scalar.properties.generalCategory)
        }
        return visible || text.isEmpty ? nil : "must contain a visible character"
    }

    /// Why text others read (a name, a bio, a comment) could be made to read otherwise: it holds a
    /// direction override or isolate (U+202A–U+202E, U+2066–U+2069), which can show "evil" as "live".
    public static func directionProblem(_ text: String) -> String? {
        text.unicodeScalars.contains(where: {
            (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
        }) ? "must not contain characters that reverse the text's direction" : nil
    }

    /// Why `identifier` is not an IANA time zone, or `nil`.
    /// Foundation also accepts offsets such as `GMT+5` and `GMT+0530`, which PostgreSQL reads with the
    /// opposite sign (POSIX) or not at all: only names of the tz database are taken, which mean the
    /// same everywhere (`Etc/GMT+5` is UTC-5 for both).
    public static func timeZoneProblem(_ identifier: String) -> String? {
        let offset = identifier.range(of: #"^(GMT|UTC|UT)[+-]"#, options: [.regularExpression, .caseInsensitive])
        if identifier.isEmpty { return "is required (a time zone name such as Europe/Berlin)" }
        if offset != nil {
            return "must be a time zone name of the tz database such as Europe/Berlin, not an offset "
                + "(a fixed offset is written Etc/GMT-5 for UTC+5: its sign is reversed)"
        }
        guard TimeZone(identifier: identifier) == nil else { return nil }
        // Names are case-sensitive: say how this one is written.
        if let name = TimeZone.knownTimeZoneIdentifiers.first(where: {
            $0.caseInsensitiveCompare(identifier) == .orderedSame
        }) {
            return "must be written \(name) (time zone names are case-sensitive)"
        }
        return "must be a time zone name of the tz database such as Europe/Berlin"
    }

    /// E-mail addresses and usernames are compared case-insensitively.
    public static func normalize(_ text: String) -> String {
        text.trimmingWhitespaces().lowercased()
    }
}
