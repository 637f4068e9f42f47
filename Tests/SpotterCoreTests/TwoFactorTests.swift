import Foundation
import SpotterCore
import Testing

@Suite("Two-factor codes and keys")
struct TwoFactorTests {
    /// RFC 6238, appendix B: the SHA-1 secret "12345678901234567890", codes cut to six digits.
    @Test(
        "TOTP matches RFC 6238's SHA-1 test vectors",
        arguments: [
            (59, "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"), (1_234_567_890, "005924"),
            (2_000_000_000, "279037"), (20_000_000_000, "353130"),
        ])
    func rfcVectors(seconds: Int, code: String) {
        let secret = Array("12345678901234567890".utf8)
        #expect(
            TOTP.code(secret: secret, step: TOTP.step(at: Date(timeIntervalSince1970: TimeInterval(seconds)))) == code)
    }

    @Test("a code is accepted one step either side of now and no further")
    func window() {
        let secret = Array("12345678901234567890".utf8)
        let now = Date(timeIntervalSince1970: 1_111_111_111)
        let step = TOTP.step(at: now)
        for offset: Int64 in [-1, 0, 1] {
            #expect(
                TOTP.matchingStep(TOTP.code(secret: secret, step: step + offset), secret: secret, at: now) == step
                    + offset)
        }
        for offset: Int64 in [-2, 2] {
            #expect(TOTP.matchingStep(TOTP.code(secret: secret, step: step + offset), secret: secret, at: now) == nil)
        }
    }

    @Test("base32 and the provisioning URI are what authenticator apps read")
    func provisioning() {
        #expect(Base32.encode(Array("12345678901234567890".utf8)) == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        #expect(Base32.encode([0xff]) == "74")
        #expect(
            TOTP.provisioningURI(secret: Array("12345678901234567890".utf8), account: "ada.l")
                == "otpauth://totp/Spotter:ada.l?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Spotter"
                + "&algorithm=SHA1&digits=6&period=30")
    }

    @Test("codes are read as app codes or recovery codes, with spaces and dashes, and nothing else")
    func reading() {
        #expect(SecondFactorCode("123 456") == .totp("123456"))
        #expect(SecondFactorCode("K7QM2-4XDHT") == .recovery("k7qm24xdht"))
        #expect(SecondFactorCode("12345") == nil)
        #expect(SecondFactorCode("k7qm2-9xdh1") == nil)
        let codes = RecoveryCodes.generate()
        #expect(codes.count == 10 && Set(codes).count == 10)
        for code in codes {
            #expect(SecondFactorCode(code) == .recovery(code.replacingOccurrences(of: "-", with: "")))
            #expect(RecoveryCodes.hash(code.uppercased()) == RecoveryCodes.hash(code))
        }
    }

    @Test("a sealed secret opens with its key, for its account only; a new first key still opens the old")
    func keyring() throws {
        let old = MfaKeyring.newEntry(id: "k1")
        let ring = try MfaKeyring(parsing: old, source: "test")
        let ada = AccountID.random()
        let sealed = try ring.seal([1, 2, 3], for: ada)
        #expect(sealed.keyID == "k1")
        #expect(try ring.open(sealed, for: ada) == [1, 2, 3])
        #expect(throws: (any Error).self) { try ring.open(sealed, for: AccountID.random()) }
        let rotated = try MfaKeyring(parsing: MfaKeyring.newEntry(id: "k2") + "\n" + old, source: "test")
        #expect(rotated.currentKeyID == "k2")
        #expect(try rotated.open(sealed, for: ada) == [1, 2, 3])
        #expect(try rotated.seal([9], for: ada).keyID == "k2")
        let withoutOld = try MfaKeyring(parsing: MfaKeyring.newEntry(id: "k2"), source: "test")
        #expect(throws: MfaKeyError.unknownKey("k1")) { try withoutOld.open(sealed, for: ada) }
    }

    @Test("a bad keyring names the setting and the reason")
    func badKeyrings() {
        #expect(throws: ConfigurationProblem("SPOTTER_MFA_KEYS", "holds no key")) {
            try MfaKeyring(parsing: " , ", source: "SPOTTER_MFA_KEYS")
        }
        #expect(throws: ConfigurationProblem("SPOTTER_MFA_KEYS", "key k1 is not 32 bytes in base64")) {
            try MfaKeyring(parsing: "k1:c2hvcnQ=", source: "SPOTTER_MFA_KEYS")
        }
        let entry = MfaKeyring.newEntry(id: "k1")
        #expect(throws: ConfigurationProblem("SPOTTER_MFA_KEYS", "key id k1 appears twice")) {
            try MfaKeyring(parsing: entry + "," + entry, source: "SPOTTER_MFA_KEYS")
        }
    }
}
