import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238) as authenticator apps make them: HMAC-SHA1, six
/// digits, 30-second steps.
public enum TOTP {
    public static let period: TimeInterval = 30
    public static let digits = 6
    /// Steps either side of now whose codes are accepted, for clocks that drift.
    public static let window: Int64 = 1

    /// The 30-second step `date` falls in.
    public static func step(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / period).rounded(.down))
    }

    /// The code of `step` for `secret`.
    public static func code(secret: [UInt8], step: Int64) -> String {
        let counter = withUnsafeBytes(of: UInt64(bitPattern: step).bigEndian) { Array($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: counter, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let value =
            UInt32(mac[offset] & 0x7f) << 24 | UInt32(mac[offset + 1]) << 16 | UInt32(mac[offset + 2]) << 8
            | UInt32(mac[offset + 3])
        let text = String(value % 1_000_000)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// The step within `window` of `date` whose code is `code`, the latest first; `nil` when none.
    public static func matchingStep(_ code: String, secret: [UInt8], at date: Date) -> Int64? {
        let now = step(at: date)
        let given = Array(code.utf8)
        for candidate in stride(from: now + window, through: now - window, by: -1)
        where ConstantTime.equal(Array(Self.code(secret: secret, step: candidate).utf8), given) {
            return candidate
        }
        return nil
    }

    /// The `otpauth://` URI authenticator apps read from a QR code.
    public static func provisioningURI(secret: [UInt8], account: String, issuer: String = "Spotter") -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        // Issuer and account are encoded apart, and the colon between them stays literal: some
        // readers (pyotp among them) do not take "%3A" as the separator.
        func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        let label = encoded(issuer) + ":" + encoded(account)
        return "otpauth://totp/\(label)?secret=\(Base32.encode(secret))&issuer=\(issuer)"
            + "&algorithm=SHA1&digits=\(digits)&period=\(Int(period))"
    }
}

/// RFC 4648 base32 without padding, as authenticator apps take secrets.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int(buffer >> UInt32(bits - 5) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int(buffer << UInt32(5 - bits) & 31)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text` (case-insensitive, padding ignored); `nil` when it is not base32.
    public static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.uppercased().utf8 where character != UInt8(ascii: "=") {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = buffer << 5 | UInt32(value)
            bits += 5
            if bits >= 8 {
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits - 8)))
                bits -= 8
            }
        }
        return output
    }
}

/// What a user types as a second factor.
public enum SecondFactorCode: Sendable, Equatable {
    /// Six digits from the authenticator app.
    case totp(String)
    /// One of the ten recovery codes, normalized (lowercase, no dashes or spaces).
    case recovery(String)

    /// Reads `text`: six digits (spaces allowed) are an app code; ten letters and digits (dashes and
    /// spaces allowed) a recovery code. `nil` for anything else.
    public init?(_ text: String) {
        let compact = text.lowercased().filter { $0 != " " && $0 != "-" }
        if compact.count == TOTP.digits, compact.allSatisfy(\.isASCIIDigit) {
            self = .totp(compact)
        } else if compact.count == RecoveryCodes.length,
            compact.unicodeScalars.allSatisfy({ RecoveryCodes.alphabet.contains(Character($0)) })
        {
            self = .recovery(compact)
        } else {
            return nil
        }
    }
}

/// Single-use recovery codes: ten characters of a lowercase base32 alphabet (50 bits each), shown
/// as two groups of five joined by a dash (`k7qm2-4xdht`), stored only as SHA-256 hashes.
public enum RecoveryCodes {
    public static let count = 10
    public static let length = 10
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")

    /// New codes as shown to the user.
    public static func generate() -> [String] {
        (0..<count).map { _ in
            let characters = SecureRandom.bytes(length).map { alphabet[Int($0 & 31)] }
            return String(characters[..<5]) + "-" + String(characters[5...])
        }
    }

    /// The hash a code is stored by; `code` in any form `SecondFactorCode` accepts.
    public static func hash(_ code: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(code.lowercased().filter { $0 != " " && $0 != "-" }.utf8)))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// The keys TOTP secrets are encrypted with at rest (AES-256-GCM, bound to the account). The first
/// key seals; every key opens. To rotate, put a new key first: new enrolments are sealed with it and
/// secrets sealed before still open with theirs. An old key can go once no secret uses it (`SELECT
/// key_id, count(*) FROM account_mfa GROUP BY 1`); nothing re-seals old secrets yet.
/// What re-sealing the two-factor secrets under the current key did (`spotterctl accounts reseal-mfa`).
public struct MfaResealReport: Sendable, Equatable, Codable {
    public var currentKeyID: String
    /// Secrets sealed again under the current key.
    public var resealed = 0
    /// Secrets that already were.
    public var alreadyCurrent = 0
    /// Secrets sealed with a key the ring does not hold, by key id: left as they are.
    public var missingKey: [String: Int] = [:]
    /// Secrets whose key is in the ring but does not open them (damaged, or not this account's).
    public var unreadable = 0

    public init(currentKeyID: String) {
        self.currentKeyID = currentKeyID
    }
}

public struct MfaKeyring: Sendable {
    /// A secret as stored: which key sealed it, and nonce + ciphertext + tag.
    public struct Sealed: Sendable, Equatable {
        public var keyID: String
        public var bytes: [UInt8]

        public init(keyID: String, bytes: [UInt8]) {
            self.keyID = keyID
            self.bytes = bytes
        }
    }

    public let currentKeyID: String
    private let keys: [String: SymmetricKey]

    /// Parses `id:base64` entries separated by commas or new lines; the first is the current key.
    /// Each key is 32 bytes. `source` names where the text came from, for the error.
    public init(parsing text: String, source: String) throws(ConfigurationProblem) {
        var keys: [String: SymmetricKey] = [:]
        var first: String?
        for entry in text.split(whereSeparator: { $0 == "," || $0 == "\n" }) {
            let trimmed = entry.trimmingWhitespaces()
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            guard let colon = trimmed.firstIndex(of: ":") else {
                throw ConfigurationProblem(source, "each key is id:base64, such as k1:\(Self.exampleKey)")
            }
            let id = String(trimmed[..<colon])
            guard !id.isEmpty, id.count <= 32, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            else { throw ConfigurationProblem(source, "key id \"\(id)\" must be 1–32 letters, digits, - or _") }
            guard let data = Data(base64Encoded: String(trimmed[trimmed.index(after: colon)...])), data.count == 32
            else { throw ConfigurationProblem(source, "key \(id) is not 32 bytes in base64") }
            guard keys[id] == nil else { throw ConfigurationProblem(source, "key id \(id) appears twice") }
            keys[id] = SymmetricKey(data: data)
            first = first ?? id
        }
        guard let first else { throw ConfigurationProblem(source, "holds no key") }
        self.currentKeyID = first
        self.keys = keys
    }

    /// A new key entry (`id:base64`) for a keyring.
    public static func newEntry(id: String) -> String {
        id + ":" + Data(SecureRandom.bytes(32)).base64EncodedString()
    }

    private static let exampleKey = "<32 random bytes in base64>"

    public func seal(_ secret: [UInt8], for account: AccountID) throws -> Sealed {
        let box = try AES.GCM.seal(secret, using: keys[currentKeyID]!, authenticating: Self.context(account))
        return Sealed(keyID: currentKeyID, bytes: Array(box.combined!))
    }

    /// The secret; throws when its key is not in the ring or it was not sealed for `account`.
    public func open(_ sealed: Sealed, for account: AccountID) throws -> [UInt8] {
        guard let key = keys[sealed.keyID] else { throw MfaKeyError.unknownKey(sealed.keyID) }
        let box = try AES.GCM.SealedBox(combined: sealed.bytes)
        return Array(try AES.GCM.open(box, using: key, authenticating: Self.context(account)))
    }

    private static func context(_ account: AccountID) -> [UInt8] {
        Array(("spotter-totp:" + account.rawValue.lowercasedString).utf8)
    }
}

public enum MfaKeyError: Error, Equatable, CustomStringConvertible {
    case unknownKey(String)

    public var description: String {
        switch self {
        case .unknownKey(let id): "the two-factor secret was sealed with key \(id), which is not in the keyring"
        }
    }
}

/// A setting that cannot be used: where it came from and why.
public struct ConfigurationProblem: Error, Equatable, CustomStringConvertible {
    public var source: String
    public var reason: String

    public init(_ source: String, _ reason: String) {
        self.source = source
        self.reason = reason
    }

    public var description: String { "\(source): \(reason)" }
}
