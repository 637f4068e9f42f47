import Foundation
import SpotterCore
import Testing

@Suite("Credential rules")
struct CredentialRulesTests {
    @Test(
        "passwords of 8 to 128 characters of any kind are accepted",
        arguments: [
            "abcdefgz", "ÄÖÜ äöü ß!", "pass phrase with spaces", String(repeating: "x", count: 128), "🏋️‍♀️🏋️‍♀️🏋️‍♀️🏋️‍♀️🏋️‍♀️🏋️‍♀️🏋️‍♀️🏋️‍♀️",
        ])
    func acceptsPasswords(password: String) {
        #expect(CredentialRules.passwordProblem(password) == nil)
    }

    @Test("names others read: no direction overrides, something visible; emoji, accents and Arabic are fine")
    func visibleNames() {
        #expect(
            CredentialRules.displayNameProblem("a\u{202E}b\u{200B}")
                == "must not contain characters that reverse the text's direction")
        #expect(
            CredentialRules.visibleTextProblem("\u{2067}Squat")
                == "must not contain characters that reverse the text's direction")
        #expect(CredentialRules.visibleTextProblem("\u{200D}\u{2060}\u{FE0F}") == "must contain a visible character")
        #expect(CredentialRules.displayNameProblem("a\u{7}b") == "must not contain control characters")
        #expect(CredentialRules.visibleTextProblem("Leg\nday") == "must be one line, without control characters")
        #expect(
            CredentialRules.directionProblem("great\u{202E}job")
                == "must not contain characters that reverse the text's direction")
        for fine in ["Zoë", "e\u{301}", "👨‍👩‍👧‍👦 day", "يوم الساق", "Leg day ✅", ""] {
            #expect(CredentialRules.visibleTextProblem(fine) == nil, "\(fine.debugDescription)")
        }
        do {
            _ = try TemplateDraft(name: "\u{202E}yad gel", items: []).validated()
            Issue.record("a template name that reverses its text was taken")
        } catch .invalidArgument(let violations) {
            #expect(
                violations.contains(
                    FieldViolation(
                        field: "template.name", reason: "must not contain characters that reverse the text's direction")
                ))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("short, overlong, blank and common passwords (also with digits added) are refused with the reason")
    func refusesPasswords() {
        #expect(CredentialRules.passwordProblem("short") == "must be at least 8 characters")
        #expect(CredentialRules.passwordProblem(String(repeating: "x", count: 129)) == "must be at most 128 characters")
        #expect(CredentialRules.passwordProblem("Password1") == "is one of the most commonly used passwords")
        #expect(CredentialRules.passwordProblem("12345678") == "is one of the most commonly used passwords")
        #expect(CredentialRules.passwordProblem("        ") == "must not be only spaces")
        #expect(
            CredentialRules.passwordProblem("password1234")
                == "is one of the most commonly used passwords with digits or symbols added")
        #expect(CredentialRules.passwordProblem("correct horse 2026!") == nil)
        // Bytes first: 4 MB is refused without counting its characters; 128 characters of 5 bytes
        // each are over the 512-byte limit.
        #expect(
            CredentialRules.passwordProblem(String(repeating: "x", count: 4_000_000))
                == "must be at most 128 characters")
        #expect(CredentialRules.passwordTooLong(String(repeating: "e\u{301}\u{301}", count: 128)))
        #expect(!CredentialRules.passwordTooLong(String(repeating: "é", count: 128)))
    }

    @Test("no composition rules: lowercase letters alone are fine")
    func noCompositionRules() {
        #expect(CredentialRules.passwordProblem("thequickbrownfox") == nil)
    }

    @Test(
        "usernames",
        arguments: [
            ("ada", true), ("ada.lovelace_1", true), ("a", false), ("1ada", false), ("ada lovelace", false),
            ("ädä", false), (String(repeating: "a", count: 33), false),
        ])
    func usernames(username: String, valid: Bool) {
        #expect((CredentialRules.usernameProblem(username) == nil) == valid)
    }

    @Test(
        "e-mail addresses",
        arguments: [
            ("ada@example.com", true), ("a.b+c@sub.example.org", true), ("ada", false), ("ada@localhost", false),
            ("a da@example.com", false), ("@example.com", false), ("ada@example.", false),
        ])
    func emails(email: String, valid: Bool) {
        #expect((CredentialRules.emailProblem(email) == nil) == valid)
    }

    @Test("time zones must be IANA names")
    func timeZones() {
        #expect(CredentialRules.timeZoneProblem("Europe/Berlin") == nil)
        #expect(CredentialRules.timeZoneProblem("Mars/Olympus_Mons") != nil)
        #expect(CredentialRules.timeZoneProblem("") != nil)
        #expect(CredentialRules.timeZoneProblem("UTC") == nil)
        #expect(CredentialRules.timeZoneProblem("Etc/GMT+5") == nil)
        // Foundation reads these, PostgreSQL not at all or with the opposite sign.
        for offset in ["GMT+0530", "GMT+5", "UTC+02:00"] {
            #expect(
                CredentialRules.timeZoneProblem(offset)
                    == "must be a time zone name of the tz database such as Europe/Berlin, not an offset "
                    + "(a fixed offset is written Etc/GMT-5 for UTC+5: its sign is reversed)")
        }
        #expect(
            CredentialRules.timeZoneProblem("CET+1")
                == "must be a time zone name of the tz database such as Europe/Berlin")
        #expect(
            CredentialRules.timeZoneProblem("europe/berlin")
                == "must be written Europe/Berlin (time zone names are case-sensitive)")
    }

    @Test("the validator reports every bad field at once")
    func validatorCollectsAll() {
        var validator = Validator()
        validator.check(false, "email", "is not an e-mail address")
        validator.check(true, "username", "unused")
        validator.add("password", "must be at least 8 characters")
        #expect(
            throws: SpotterError.invalidArgument([
                FieldViolation(field: "email", reason: "is not an e-mail address"),
                FieldViolation(field: "password", reason: "must be at least 8 characters"),
            ])
        ) { try validator.validate() }
    }
}

@Suite("Tiers and throttling")
struct PolicyTests {
    @Test("an expired tier counts as free")
    func expiredTierIsFree() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(TierGrant(tier: .pro, expiresAt: now.addingTimeInterval(1)).effective(at: now) == .pro)
        #expect(TierGrant(tier: .pro, expiresAt: now).effective(at: now) == .free)
        #expect(TierGrant(tier: .coachPro, expiresAt: nil).effective(at: now) == .coachPro)
    }

    @Test("tiers fit the tenant kind")
    func tiersFitKind() {
        #expect(Tier.pro.isAvailable(to: .lifter))
        #expect(!Tier.pro.isAvailable(to: .coach))
        #expect(Tier.coachPro.isAvailable(to: .coach))
        #expect(!Tier.coach.isAvailable(to: .lifter))
    }

    @Test("an account locks only after five failures, doubling up to fifteen minutes")
    func accountLockGrowsAndIsCapped() {
        let policy = AuthPolicy()
        let now = Date(timeIntervalSince1970: 0)
        #expect(policy.accountLock(afterFailures: 4, now: now) == nil)
        #expect(policy.accountLock(afterFailures: 5, now: now) == now.addingTimeInterval(30))
        #expect(policy.accountLock(afterFailures: 6, now: now) == now.addingTimeInterval(60))
        #expect(policy.accountLock(afterFailures: 100, now: now) == now.addingTimeInterval(15 * 60))
    }

    @Test("an address is blocked after too many failures in its window, and the window resets")
    func addressBlocking() {
        var policy = AuthPolicy()
        policy.addressMaxFailures = 3
        let start = Date(timeIntervalSince1970: 0)
        var state = policy.addressFailures(after: nil, now: start)
        state = policy.addressFailures(after: state, now: start.addingTimeInterval(1))
        #expect(state.blockedUntil == nil)
        state = policy.addressFailures(after: state, now: start.addingTimeInterval(2))
        #expect(state.blockedUntil == start.addingTimeInterval(2 + policy.addressBlock))
        let later = policy.addressFailures(after: state, now: start.addingTimeInterval(policy.addressWindow + 10))
        #expect(later.failures == 1)
        #expect(later.blockedUntil == nil)
    }
}
