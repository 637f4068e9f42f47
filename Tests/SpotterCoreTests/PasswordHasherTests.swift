import Crypto
import Foundation
import SpotterCore
import SpotterTestSupport
import Testing
import _CryptoExtras

@Suite("Password hashing")
struct PasswordHasherTests {
    @Test("the scrypt implementation matches RFC 7914's test vector")
    func rfc7914Vector() throws {
        let key = try KDF.Scrypt.deriveKey(
            from: Array("password".utf8),
            salt: Array("NaCl".utf8),
            outputByteCount: 64,
            rounds: 1024,
            blockSize: 8,
            parallelism: 16
        )
        let hex = key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
        #expect(
            hex
                == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        )
    }

    @Test("a hash is a PHC string with the configured cost, and verifies only the right password")
    func hashAndVerify() async throws {
        let hasher = PasswordHasher(cost: .testing)
        let phc = try await hasher.hash("correct horse battery staple")
        #expect(phc.hasPrefix("$scrypt$ln=10,r=8,p=1$"))
        #expect(phc.split(separator: "$").count == 4)
        #expect(try await hasher.verify("correct horse battery staple", against: phc))
        #expect(try await hasher.verify("correct horse battery stapler", against: phc) == false)
    }

    @Test("two hashes of one password differ (random salt)")
    func saltsAreRandom() async throws {
        let hasher = PasswordHasher(cost: .testing)
        let first = try await hasher.hash("same password")
        let second = try await hasher.hash("same password")
        #expect(first != second)
    }

    @Test("a hash made at one cost verifies after the configured cost changes")
    func verifiesOldCost() async throws {
        let old = try await PasswordHasher(cost: .testing).hash("long enough password")
        let stronger = PasswordHasher(cost: PasswordHasher.Cost(logN: 12, blockSize: 8, parallelism: 1))
        #expect(try await stronger.verify("long enough password", against: old))
    }

    @Test(
        "malformed hashes never verify",
        arguments: [
            "", "$scrypt$", "$argon2id$v=19$m=1$abc$def", "$scrypt$ln=99,r=8,p=1$AAAA$AAAA",
            "$scrypt$ln=10,r=8,p=1$!!$AAAA",
        ])
    func malformedNeverVerifies(phc: String) async throws {
        #expect(try await PasswordHasher(cost: .testing).verify("anything", against: phc) == false)
    }

    @Test("OWASP's parameters are the default")
    func owaspDefault() {
        #expect(PasswordHasher().cost == PasswordHasher.Cost(logN: 17, blockSize: 8, parallelism: 1))
    }
}

@Suite("Tokens")
struct TokenTests {
    @Test("tokens carry at least 256 random bits and differ every time")
    func tokensAreRandom() {
        let tokens = (0..<100).map { _ in Token.generate(prefix: "spa") }
        #expect(Set(tokens).count == 100)
        for token in tokens {
            #expect(token.hasPrefix("spa_"))
            #expect(token.count == 4 + 43)  // 32 bytes in unpadded base64
            #expect(!token.contains("+") && !token.contains("/") && !token.contains("="))
        }
    }

    @Test("the stored form is a SHA-256 hash, not the token")
    func storedAsHash() {
        let token = Token.generate(prefix: "spr")
        let hash = Token.hash(token)
        #expect(hash.count == 32)
        #expect(hash == Array(SHA256.hash(data: Array(token.utf8))))
        #expect(hash != Array(token.utf8))
    }

    /// Waits (bounded) until `limiter` has `count` callers in line.
    private func waitForLine(_ limiter: ConcurrencyLimiter, _ count: Int) async throws {
        for _ in 0..<500 where await limiter.waitingCount != count {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await limiter.waitingCount == count)
    }

    @Test("a full line is refused at once; a cancelled waiter leaves the line and its work never runs")
    func boundedLine() async throws {
        let limiter = ConcurrencyLimiter(limit: 1, maxWaiting: 1, work: PasswordHasher.work)
        let gate = DispatchSemaphore(value: 0)
        let ranCancelled = Flag()
        let first = Task { try await limiter.run { gate.wait() } }
        let second = Task { try await limiter.run { ranCancelled.set() } }
        try await waitForLine(limiter, 1)

        await #expect(
            throws: SpotterError.tooManyRequests(
                "the server is busy checking passwords; try again in a second", retryAfterSeconds: 1)
        ) {
            try await limiter.run {}
        }
        second.cancel()
        try await waitForLine(limiter, 0)
        await #expect(throws: CancellationError.self) { try await second.value }

        gate.signal()
        try await first.value
        // The slot is free again and the cancelled work never ran.
        #expect(try await limiter.run { 42 } == 42)
        #expect(!ranCancelled.isSet)
    }

    @Test("work that waits takes turns too, and the refusal names the limited work")
    func waitingWork() async throws {
        let limiter = ConcurrencyLimiter(limit: 1, maxWaiting: 1, work: "rendering images")
        let (gate, open) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await limiter.run(waiting: {
                for await _ in gate { break }
                return 1
            })
        }
        let second = Task { try await limiter.run(waiting: { 2 }) }
        try await waitForLine(limiter, 1)
        #expect(await limiter.runningCount == 1)
        await #expect(
            throws: SpotterError.tooManyRequests(
                "the server is busy rendering images; try again in a second", retryAfterSeconds: 1)
        ) {
            try await limiter.run(waiting: { 3 })
        }
        open.yield()
        open.finish()
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
        #expect(await limiter.runningCount == 0)
    }
}
