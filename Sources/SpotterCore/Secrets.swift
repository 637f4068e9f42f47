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
        Array(SHA256.hash(data: Array(token.utf8)))
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

/// Base64 variants used in tokens and PHC strings.
public enum Base64 {
    public static func encodeUnpadded(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    public static func decodeUnpadded(_ text: Substring) -> [UInt8]? {
        var padded = String(text)
        while padded.count % 4 != 0 { padded += "=" }
        return Data(base64Encoded: padded).map { Array($0) }
    }

    public static func encodeURLSafe(_ bytes: [UInt8]) -> String {
        encodeUnpadded(bytes).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }
}
