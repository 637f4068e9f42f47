import Crypto
import Foundation
import _CryptoExtras

/// Hashes and verifies passwords with scrypt, stored as PHC strings:
/// `$scrypt$ln=17,r=8,p=1$<salt>$<hash>` (base64 without padding).
///
/// scrypt at OWASP's cost takes a few hundred milliseconds and 128 MiB, so it runs off the
/// cooperative thread pool, at most `maxConcurrent` at a time and `maxWaiting` in line.
public struct PasswordHasher: Sendable {
    /// scrypt's cost parameters.
    public struct Cost: Sendable, Equatable {
        /// log2 of N, the CPU/memory cost.
        public var logN: Int
        public var blockSize: Int
        public var parallelism: Int

        /// OWASP's recommendation: N = 2^17, r = 8, p = 1.
        public static let owasp = Cost(logN: 17, blockSize: 8, parallelism: 1)
        /// Cheap enough for tests; never for production.
        public static let testing = Cost(logN: 10, blockSize: 8, parallelism: 1)

        public init(logN: Int, blockSize: Int, parallelism: Int) {
            self.logN = logN
            self.blockSize = blockSize
            self.parallelism = parallelism
        }
    }

    public let cost: Cost
    private let limiter: ConcurrencyLimiter
    private static let keyLength = 32
    private static let saltLength = 16

    /// At most `maxConcurrent` derivations run at once and `maxWaiting` wait; a caller beyond that is
    /// refused at once with `tooManyRequests`, so a flood cannot stall every sign-in for minutes.
    public init(cost: Cost = .owasp, maxConcurrent: Int = 2, maxWaiting: Int = 16) {
        self.init(
            cost: cost, limiter: ConcurrencyLimiter(limit: maxConcurrent, maxWaiting: maxWaiting, work: Self.work))
    }

    /// What the limiter's refusal names: "the server is busy checking passwords".
    public static let work = "checking passwords"

    /// A hasher whose derivations take turns in `limiter` (shared with other work, or watched by a test).
    public init(cost: Cost, limiter: ConcurrencyLimiter) {
        self.cost = cost
        self.limiter = limiter
    }

    /// A PHC string for `password` with a fresh random salt.
    public func hash(_ password: String) async throws -> String {
        let salt = SecureRandom.bytes(Self.saltLength)
        let cost = self.cost
        let key = try await limiter.run { try Self.derive(password, salt: salt, cost: cost) }
        return "$scrypt$ln=\(cost.logN),r=\(cost.blockSize),p=\(cost.parallelism)$"
            + Base64.encodeUnpadded(salt) + "$" + Base64.encodeUnpadded(key)
    }

    /// Whether `password` matches `phc`, compared in constant time. A malformed hash never matches.
    public func verify(_ password: String, against phc: String) async throws -> Bool {
        guard let parsed = Self.parse(phc) else { return false }
        let key = try await limiter.run { try Self.derive(password, salt: parsed.salt, cost: parsed.cost) }
        return ConstantTime.equal(key, parsed.hash)
    }

    /// Spends the same time as a real verification, so an unknown login is not told apart by timing.
    public func verifyDummy(_ password: String) async throws {
        let salt = [UInt8](repeating: 0, count: Self.saltLength)
        let cost = self.cost
        _ = try await limiter.run { try Self.derive(password, salt: salt, cost: cost) }
    }

    private static func derive(_ password: String, salt: [UInt8], cost: Cost) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8),
            salt: salt,
            outputByteCount: keyLength,
            rounds: 1 << cost.logN,
            blockSize: cost.blockSize,
            parallelism: cost.parallelism
        )
        return key.withUnsafeBytes { Array($0) }
    }

    static func parse(_ phc: String) -> (cost: Cost, salt: [UInt8], hash: [UInt8])? {
        let parts = phc.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt" else { return nil }
        var values: [Substring: Int] = [:]
        for pair in parts[2].split(separator: ",") {
            let keyValue = pair.split(separator: "=")
            guard keyValue.count == 2, let value = Int(keyValue[1]) else { return nil }
            values[keyValue[0]] = value
        }
        guard let logN = values["ln"], let r = values["r"], let p = values["p"], (1...24).contains(logN),
            let salt = Base64.decodeUnpadded(parts[3]), let hash = Base64.decodeUnpadded(parts[4]), !hash.isEmpty
        else { return nil }
        return (Cost(logN: logN, blockSize: r, parallelism: p), salt, hash)
    }
}
