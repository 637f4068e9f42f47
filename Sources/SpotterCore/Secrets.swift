import Crypto
import Foundation

/// Cryptographically secure random bytes.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

/// Opaque bearer tokens: 256 random bits with a readable prefix, stored only as a SHA-256 hash.
public enum Token {
    /// A new token such as `spa_...` (access), `spr_...` (refresh), `spv_...` (verification).
    public static func generate(prefix: String) -> String {
        prefix + "_" + Base64.encodeURLSafe(SecureRandom.bytes(32))
    }

    /// The hash a token is stored and looked up by.
    public static func hash(_ token: String) -> [UInt8] {
        digest(Array(token.utf8))
    }

    /// SHA-256 of `bytes` (a sync mutation's fingerprint, `Mutation.fingerprint`).
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: bytes))
    }
}

/// Comparison whose time does not depend on where the inputs differ.
public enum ConstantTime {
    public static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}

/// Base64 without padding, written from the bytes and read back: the standard alphabet in PHC
/// strings, the URL alphabet (RFC 4648 §5) in tokens and page tokens.
public enum Base64 {
    private static let standard: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    private static let urlSafe: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    public static func encodeUnpadded(_ bytes: [UInt8]) -> String { encode(bytes, standard) }

    public static func decodeUnpadded(_ text: some StringProtocol) -> [UInt8]? {
        decode(text, UInt8(ascii: "+"), UInt8(ascii: "/"))
    }

    /// Through Foundation (encode, then `replacingOccurrences` twice) this was 2.4 % of spotterd's
    /// CPU for a history page, whose next-page token it writes.
    public static func encodeURLSafe(_ bytes: [UInt8]) -> String { encode(bytes, urlSafe) }

    public static func decodeURLSafe(_ text: some StringProtocol) -> [UInt8]? {
        decode(text, UInt8(ascii: "-"), UInt8(ascii: "_"))
    }

    private static func encode(_ bytes: [UInt8], _ alphabet: StaticString) -> String {
        let length = (bytes.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: length) { text in
            alphabet.withUTF8Buffer { alphabet in
                var position = 0
                var index = 0
                while index < bytes.count {
                    let remaining = bytes.count - index
                    let group =
                        UInt32(bytes[index]) << 16 | (remaining > 1 ? UInt32(bytes[index + 1]) << 8 : 0)
                        | (remaining > 2 ? UInt32(bytes[index + 2]) : 0)
                    for sextet in 0..<min(4, remaining + 1) {
                        text[position] = alphabet[Int(group >> (18 - 6 * UInt32(sextet)) & 0x3f)]
                        position += 1
                    }
                    index += 3
                }
                return position
            }
        }
    }

    /// The bytes of unpadded text in the alphabet whose last two characters are `digit62` and
    /// `digit63`, as `encode` writes it; `nil` for any other character, a length no encoding has,
    /// or unused bits that are not zero (so each byte string has one text).
    private static func decode(_ text: some StringProtocol, _ digit62: UInt8, _ digit63: UInt8) -> [UInt8]? {
        let utf8 = text.utf8
        guard utf8.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3 / 4)
        var group: UInt32 = 0
        var bits = 0
        for character in utf8 {
            let value: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = character - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0") + 52
            case digit62: value = 62
            case digit63: value = 63
            default: return nil
            }
            group = group << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: group >> UInt32(bits)))
                group &= (1 << UInt32(bits)) - 1
            }
        }
        guard group == 0 else { return nil }
        return bytes
    }
}
