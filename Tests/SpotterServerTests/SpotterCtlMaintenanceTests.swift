import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

/// The built `spotterctl` binary's maintenance commands against a test database.
@Suite("spotterctl maintenance")
struct SpotterCtlMaintenanceTests {
    private func json(_ result: Subprocess.Result) throws -> Any { try result.json() }

    private func registerAndSignIn(_ database: TestDatabase, _ name: String, kind: TenantKind = .lifter) async throws
        -> IssuedTokens
    {
        let auth = database.authService()
        _ = try await auth.register(
            .init(email: "\(name)@example.com", username: name, password: "long enough \(name)", kind: kind)
        )
        return try await auth.signIn(login: name, password: "long enough \(name)", deviceLabel: "phone", address: "a")
            .tokens
    }

    @Test("tiers set, list and expire; a tier that does not fit the kind is refused")
    func tiers() async throws {
        try await TestDatabase.with { database in
            _ = try await registerAndSignIn(database, "ada")
            _ = try await registerAndSignIn(database, "coach", kind: .coach)
            let set = try await database.spotterctl(
                ["tiers", "set", "ada", "--tier", "pro", "--until", "2099-01-01", "--reason", "paid", "--json"]
            )
            #expect(set.status == 0, "\(set.output)")
            let setJSON = try #require(try json(set) as? [String: Any])
            #expect(setJSON["until"] as? String == "2099-01-02T00:00:00Z" && setJSON["tier"] as? String == "pro")
            // A day is covered through its end, and the line says so, the instant with its zone.
            let through = try await database.spotterctl(
                ["tiers", "set", "ada", "--tier", "pro", "--until", "2099-01-31", "--reason", "paid"])
            #expect(through.output == "ada is on pro until 2099-02-01T00:00:00Z (through 2099-01-31)\n")
            let wrong = try await database.spotterctl(
                ["tiers", "set", "coach", "--tier", "pro", "--reason", "x"])
            #expect(wrong.status == 1)
            #expect(wrong.output == "spotterctl: tier: pro is not a tier for a coach\n")
            let past = try await database.spotterctl(
                ["tiers", "set", "ada", "--tier", "pro", "--until", "2001-01-01", "--reason", "x"]
            )
            #expect(past.output.contains("until: must be in the future"))
            // A typo never reaches the database, and a day the calendar does not have is named: a
            // command line it cannot read, exit 64 with the usage.
            for (until, message) in [
                (
                    "99999-01-01",
                    "--until: must be an ISO 8601 date or time such as 2027-01-31 or 2027-01-31T12:00:00Z, not '99999-01-01'"
                ),
                ("2027-02-30", "--until: must be a day of the calendar; Feb 2027 has 28 days"),
                (
                    "2027-01-31T25:00",
                    "--until: must be an ISO 8601 date or time such as 2027-01-31 or 2027-01-31T12:00:00Z, not '2027-01-31T25:00'"
                ),
            ] {
                let refused = try await database.spotterctl(
                    ["tiers", "set", "ada", "--tier", "pro", "--until", until, "--reason", "x"])
                #expect(
                    refused.status == 64 && refused.output.contains(message) && refused.output.contains("Usage:"),
                    "\(until): \(refused.output)")
            }
            let farOff = try await database.spotterctl(
                ["tiers", "set", "ada", "--tier", "pro", "--until", "2127-01-01", "--reason", "x"])
            #expect(farOff.status == 1 && farOff.output == "spotterctl: until: must be within 100 years from now\n")
            let badStatus = try await database.spotterctl(["outbox", "list", "--status", "bogus"])
            #expect(
                badStatus.status == 64
                    && badStatus.output.contains("--status: must be pending, failed or sent, not 'bogus'"),
                "\(badStatus.output)")
            let free = try await database.spotterctl(
                ["tiers", "set", "ada", "--tier", "free", "--until", "2090-01-01", "--reason", "x"])
            #expect(free.output == "spotterctl: until: must be left out for the free tier, which does not end\n")
            // A day is covered through its end (UTC); a time without a zone is UTC, as the tables print.
            for (until, stored) in [
                ("2090-01-31", "2090-02-01 00:00:00+00"), ("2090-01-31T12:30", "2090-01-31 12:30:00+00"),
            ] {
                // An earlier end than the one in force asks first: --yes.
                #expect(
                    try await database.spotterctl(
                        ["tiers", "set", "ada", "--tier", "pro", "--until", until, "--reason", "x", "--yes"]
                    ).status == 0)
                let owner = try await database.ownerConnection()
                let row = try await owner.query(
                    "SELECT tier_expires_at AT TIME ZONE 'UTC' || '+00' AS at FROM tenants WHERE tier = 'pro'")
                await owner.close()
                #expect(try row.single?.decode("at", as: String.self) == stored)
            }

            let listed = try #require(
                try json(try await database.spotterctl(["tiers", "list", "--json"])) as? [[String: Any]])
            #expect(listed.map { $0["username"] as? String } == ["ada"])
            // The list says a whole day's end as the line of `tiers set` does.
            #expect(
                try await database.spotterctl(
                    ["tiers", "set", "ada", "--tier", "pro", "--until", "2090-01-31", "--reason", "x", "--yes"]
                ).status == 0)
            let table = try await database.spotterctl(["tiers", "list"])
            #expect(table.output.contains("2090-02-01T00:00:00Z (through 2090-01-31)"), "\(table.output)")
            let soon = try await database.spotterctl(["tiers", "list", "--expiring-within", "30", "--json"])
            #expect((try json(soon) as? [Any])?.isEmpty == true)
            // A negative number is read as the option's value (and refused as one), not as a flag.
            let negative = try await database.spotterctl(["tiers", "list", "--expiring-within", "-3"])
            #expect(negative.status != 0 && negative.output.contains("expiring-within: must not be negative"))

            // Ending a paid tier asks first; without a terminal it needs --yes, and nothing changes.
            let unconfirmed = try await database.spotterctl(["tiers", "expire", "ada", "--reason", "refund"])
            #expect(unconfirmed.status == 1)
            #expect(
                unconfirmed.output.contains(
                    "End the pro tier of ada <ada@example.com> now? The account falls back to free."),
                "\(unconfirmed.output)")
            #expect(unconfirmed.output.contains("pass --yes to confirm"))
            #expect(try await database.count("SELECT count(*)::int FROM tenants WHERE tier = 'pro'") == 1)
            #expect(
                try await database.spotterctl(["tiers", "expire", "ada", "--reason", "refund", "--yes"]).status == 0)
            let profile = try await AccountService(
                store: PostgresProfileStore(database: SpotterDatabase(pool: database.appPool))
            ).profile(try await principal(database, "ada"))
            #expect(profile.tier.effective(at: Date()) == .free)
            // Listed by the tier in force, as the list shows it: not among pro, among free.
            let pros = try await database.spotterctl(["accounts", "list", "--tier", "pro"])
            #expect(!pros.output.contains("ada@example.com"), "\(pros.output)")
            let frees = try await database.spotterctl(["accounts", "list", "--tier", "free"])
            #expect(frees.output.contains("ada@example.com"), "\(frees.output)")
            // An export says the tier in force: free, not the expired Pro.
            let file = NSTemporaryDirectory() + "tier-\(UUID().uuidString).json"
            defer { try? FileManager.default.removeItem(atPath: file) }
            #expect(try await database.spotterctl(["export", "ada", "--reason", "x", "--output", file]).status == 0)
            let exported = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(
                ((exported as? [String: Any])?["profile"] as? [String: Any])?["tier"] as? [String: String] == [
                    "tier": "free"
                ])
            let again = try await database.spotterctl(["tiers", "expire", "ada", "--reason", "x"])
            #expect(again.output == "spotterctl: ada is already on the free tier\n")
            #expect(try await database.count("SELECT count(*)::int FROM audit_log WHERE action LIKE 'tier.%'") == 6)
            let open = try await database.spotterctl([
                "tiers", "set", "coach", "--tier", "coach", "--reason", "x", "--json",
            ])
            #expect(
                (try json(open) as? [String: Any]).map { $0.keys.contains("until") && $0["until"] is NSNull } == true,
                "no end is null: \(open.output)")
            // Any start of an action name finds it.
            let started = try #require(
                try json(try await database.spotterctl(["audit", "list", "--action", "tier.exp", "--json"]))
                    as? [[String: Any]])
            #expect(started.map { $0["action"] as? String } == ["tier.expire"])
            // The details are a JSON object of their own, not a string holding JSON.
            let sets = try #require(
                try json(try await database.spotterctl(["audit", "list", "--action", "tier.set", "--json"]))
                    as? [[String: Any]])
            let details = sets.first?["details"]
            #expect(details is [String: Any], "\(String(describing: details))")
            // A target by username, e-mail or tenant id; one nobody has is named.
            for reference in [
                "coach", "coach@example.com", try await principal(database, "coach").tenantID.description,
            ] {
                let targeted = try #require(
                    try json(try await database.spotterctl(["audit", "list", "--target", reference, "--json"]))
                        as? [[String: Any]])
                #expect(targeted.map { $0["target"] as? String } == ["coach"], "\(reference)")
            }
            let nobody = try await database.spotterctl(["audit", "list", "--target", "nobody"])
            #expect(
                nobody.status == 1 && nobody.output == "spotterctl: no account matches 'nobody'\n", "\(nobody.output)")
            // Changing a paid tier in force asks first (a roster of 30 becomes one of 5).
            #expect(
                try await database.spotterctl(["tiers", "set", "coach", "--tier", "coach_pro", "--reason", "paid"])
                    .status == 0)
            let lower = try await database.spotterctl(["tiers", "set", "coach", "--tier", "coach", "--reason", "x"])
            #expect(lower.status == 1)
            #expect(lower.output.contains("from coach_pro down to coach now?"), "\(lower.output)")
            #expect(try await database.count("SELECT count(*)::int FROM tenants WHERE tier = 'coach_pro'") == 1)
            #expect(
                try await database.spotterctl(
                    ["tiers", "set", "coach", "--tier", "coach", "--reason", "downgrade", "--yes"]
                ).status == 0)
            // A raise asks nothing; a shorter end does; the same tier and end again is no change.
            #expect(
                try await database.spotterctl(
                    ["tiers", "set", "coach", "--tier", "coach_pro", "--until", "2090-06-30", "--reason", "upgrade"]
                ).status == 0)
            let shorter = try await database.spotterctl(
                ["tiers", "set", "coach", "--tier", "coach_pro", "--until", "2090-01-31", "--reason", "x"])
            #expect(
                shorter.output.contains(
                    "Shorten the coach_pro tier of coach <coach@example.com> to end 2090-02-01T00:00:00Z (through 2090-01-31)? It ends 2090-07-01T00:00:00Z (through 2090-06-30) now."
                ), "\(shorter.output)")
            let same = try await database.spotterctl(
                ["tiers", "set", "coach", "--tier", "coach_pro", "--until", "2090-06-30", "--reason", "x"])
            #expect(same.status == 1 && same.output.contains("is on coach_pro until 2090-07-01"), "\(same.output)")
        }
    }

    @Test("reset-password prints a one-time token that sets a new password; unlock clears throttling")
    func resetAndUnlock() async throws {
        try await TestDatabase.with { database in
            _ = try await registerAndSignIn(database, "ada")
            let reset = try await database.spotterctl(
                ["accounts", "reset-password", "ada", "--reason", "asked by phone", "--json"])
            let answer = try #require(try json(reset) as? [String: Any])
            let token = try #require(answer["token"] as? String)
            // The link goes to the portal, which serves the reset page: its port by default, or the
            // public address configured for spotterd.
            #expect(answer["link"] as? String == "https://localhost:8444/reset-password?token=\(token)")
            let configured = try await database.spotterctl(
                ["accounts", "reset-password", "ada", "--reason", "asked again", "--json"],
                environment: ["SPOTTER_PUBLIC_URL": "https://spotter.example.com"])
            let again = try #require(try json(configured) as? [String: Any])
            #expect(
                again["link"] as? String
                    == "https://spotter.example.com/reset-password?token=\(again["token"] as? String ?? "")")
            let auth = database.authService()
            try await auth.completePasswordReset(token: token, newPassword: "a fresh new secret")
            _ = try await auth.signIn(login: "ada", password: "a fresh new secret", deviceLabel: "", address: "b")

            let owner = try await database.ownerConnection()
            try await owner.query(
                "UPDATE accounts SET failed_sign_ins = 9, locked_until = now() + interval '10 minutes'")
            await owner.close()
            let unlocked = try await database.spotterctl([
                "accounts", "unlock", "ada", "--reason", "locked out", "--json",
            ])
            #expect((try json(unlocked) as? [String: Any])?["unlocked"] as? Bool == true, "\(unlocked.output)")
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM accounts WHERE failed_sign_ins = 0 AND locked_until IS NULL") == 1)
        }
    }

    /// Registers `name`, signs in and turns two-factor sign-in on; returns the tokens and the TOTP secret.
    private func registerWithTwoFactor(_ database: TestDatabase, _ name: String) async throws
        -> (tokens: IssuedTokens, secret: [UInt8])
    {
        let tokens = try await registerAndSignIn(database, name)
        let auth = database.authService()
        let enrollment = try await auth.beginTwoFactor(tokens.principal)
        let secret = try #require(Base32.decode(enrollment.secret))
        _ = try await auth.confirmTwoFactor(
            tokens.principal, code: TOTP.code(secret: secret, step: TOTP.step(at: Date())))
        return (tokens, secret)
    }

    @Test(
        "reset-mfa turns two-factor sign-in off, ends every session and is audited; it needs a reason, and refuses when it is not on"
    )
    func resetTwoFactor() async throws {
        try await TestDatabase.with { database in
            let (tokens, _) = try await registerWithTwoFactor(database, "ada")
            let auth = database.authService()
            let asked = try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
            guard case .secondFactorRequired = asked else {
                Issue.record("two-factor sign-in did not turn on: \(asked)")
                return
            }

            // An operator sees it is on before resetting it.
            let before = try await database.spotterctl(["accounts", "show", "ada"]).output
            #expect(
                before.contains("two-factor      on since ") && before.contains(" recovery codes left"), "\(before)")
            let beforeJSON = try #require(
                try json(try await database.spotterctl(["accounts", "show", "ada", "--json"])) as? [String: Any])
            #expect(
                beforeJSON["two_factor_since"] as? String != nil && (beforeJSON["recovery_codes_left"] as? Int ?? 0) > 0
            )

            let missing = try await database.spotterctl(["accounts", "reset-mfa", "ada"])
            #expect(missing.status != 0 && missing.output.contains("--reason"), "\(missing.output)")
            // Not confirmed (no terminal, no --yes): nothing happens.
            let unconfirmed = try await database.spotterctl(["accounts", "reset-mfa", "ada", "--reason", "x"])
            #expect(unconfirmed.status != 0)
            #expect(try await database.count("SELECT count(*)::int FROM account_mfa") == 1)
            let reset = try await database.spotterctl(
                [
                    "accounts", "reset-mfa", "ada", "--reason", "lost phone and codes; identity checked", "--yes",
                    "--json",
                ])
            #expect((try json(reset) as? [String: String])?["mfa"] == "off", "\(reset.output)")
            #expect(try await database.count("SELECT count(*)::int FROM account_mfa") == 0)
            #expect(try await database.count("SELECT count(*)::int FROM mfa_recovery_codes") == 0)
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM audit_log WHERE action = 'account.reset_mfa' AND reason LIKE 'lost phone%'"
                )
                    == 1)
            await #expect(throws: SpotterError.self) { try await auth.authenticate(accessToken: tokens.accessToken) }
            _ = try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a").tokens
            #expect(
                try await database.spotterctl(["accounts", "show", "ada"]).output.contains("two-factor      off\n"))

            // Again, now that it is off: refused, no session ended, nothing audited.
            let signedIn = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "", address: "a"
            ).tokens
            let again = try await database.spotterctl(
                ["accounts", "reset-mfa", "ada", "--reason", "asked twice", "--yes"])
            #expect(again.status == 1)
            #expect(again.output == "spotterctl: two-factor sign-in is not on for this account; nothing changed\n")
            #expect(
                try await auth.authenticate(accessToken: signedIn.accessToken).tenantID == tokens.principal.tenantID)
            #expect(
                try await database.count("SELECT count(*)::int FROM audit_log WHERE action = 'account.reset_mfa'") == 1)
        }
    }

    @Test("reseal-mfa seals every secret under the first key; the old key can then go; a missing key is reported")
    func resealTwoFactor() async throws {
        try await TestDatabase.with { database in
            let (tokens, secret) = try await registerWithTwoFactor(database, "ada")
            let old = "t1:" + Data(repeating: 7, count: 32).base64EncodedString()  // the tests' keyring
            let new = MfaKeyring.newEntry(id: "t2")
            func reseal(_ keys: String) async throws -> [String: Any] {
                let result = try await database.spotterctl(
                    ["accounts", "reseal-mfa", "--reason", "yearly key rotation", "--json"],
                    environment: ["SPOTTER_MFA_KEYS": keys])
                #expect(result.status == 0, "\(result.output)")
                return try #require(try json(result) as? [String: Any], "\(result.output)")
            }
            let missing = try await database.spotterctl(
                ["accounts", "reseal-mfa"], environment: ["SPOTTER_MFA_KEYS": new + "," + old])
            #expect(missing.status != 0 && missing.output.contains("--reason"), "\(missing.output)")

            let first = try await reseal(new + "," + old)
            #expect(
                first["resealed"] as? Int == 1 && first["already_current"] as? Int == 0
                    && first["key"] as? String == "t2",
                "\(first)")
            // Only the new key now: the secret opens with it, and a code still signs in.
            let ring = try MfaKeyring(parsing: new, source: "test")
            let store = PostgresAuthStore(database: SpotterDatabase(pool: database.appPool))
            let stored = try #require(try await store.twoFactor(tokens.principal))
            #expect(stored.secret.keyID == "t2")
            #expect(try ring.open(stored.secret, for: tokens.principal.accountID) == secret)
            let again = try await reseal(new)
            #expect(again["resealed"] as? Int == 0 && again["already_current"] as? Int == 1, "\(again)")
            // A ring without t2: the secret is left as it is and reported.
            let lost = try await reseal(MfaKeyring.newEntry(id: "t3"))
            #expect(lost["resealed"] as? Int == 0 && lost["missing_key_t2"] as? Int == 1, "\(lost)")
            let kept = try #require(try await store.twoFactor(tokens.principal))
            #expect(try ring.open(kept.secret, for: tokens.principal.accountID) == secret)
            #expect(try await database.count("SELECT count(*)::int FROM audit_log WHERE action = 'mfa.reseal'") == 3)
            // The audit rows' details in snake_case, as every other row's.
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM audit_log WHERE action = 'mfa.reseal' AND details ? 'already_current'")
                    == 3)
        }
    }

    @Test("revoke-sessions, verify-email and rename; a taken username changes nothing")
    func revokeVerifyRename() async throws {
        try await TestDatabase.with { database in
            let tokens = try await registerAndSignIn(database, "ada")
            _ = try await registerAndSignIn(database, "bob")
            let unconfirmed = try await database.spotterctl(
                ["accounts", "revoke-sessions", "ada", "--reason", "stolen phone"])
            #expect(unconfirmed.status == 1)
            #expect(
                unconfirmed.output.hasPrefix(
                    "spotterctl: Sign ada <ada@example.com> out of every device (1 live session)?"),
                "\(unconfirmed.output)")
            _ = try await database.authService().authenticate(accessToken: tokens.accessToken)
            let revoked = try await database.spotterctl(
                ["accounts", "revoke-sessions", "ada", "--reason", "stolen phone", "--json", "--yes"])
            #expect((try json(revoked) as? [String: Any])?["sessions_revoked"] as? Int == 1, "a number")
            #expect(
                try await database.count(
                    """
                    SELECT count(*)::int FROM audit_log
                    WHERE action = 'account.revoke_sessions' AND details ->> 'sessions_revoked' = '1'
                    """) == 1)
            // None left: said at once, nothing asked, nothing audited.
            let none = try await database.spotterctl(["accounts", "revoke-sessions", "ada", "--reason", "again"])
            #expect(none.output == "spotterctl: ada has no live sessions\n")
            await #expect(throws: SpotterError.self) {
                try await database.authService().authenticate(accessToken: tokens.accessToken)
            }

            let verified = try await database.spotterctl([
                "accounts", "verify-email", "ada", "--reason", "checked id", "--json",
            ])
            #expect((try json(verified) as? [String: Any])?["verified"] as? Bool == true, "\(verified.output)")
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM accounts WHERE username = 'ada' AND email_verified_at IS NOT NULL") == 1)
            // Nothing left to change is said and not audited as a change.
            let audited = try await database.count("SELECT count(*)::int FROM audit_log")
            let twice = try await database.spotterctl(["accounts", "verify-email", "ada", "--reason", "again"])
            #expect(twice.status == 1 && twice.output == "spotterctl: ada's e-mail address is already verified\n")
            let same = try await database.spotterctl(["accounts", "rename", "ada", "--to", "ada", "--reason", "x"])
            #expect(same.output == "spotterctl: to: is already ada's username\n")
            let active = try await database.spotterctl(["accounts", "enable", "ada", "--reason", "x"])
            #expect(active.output == "spotterctl: ada is already active\n")
            #expect(try await database.count("SELECT count(*)::int FROM audit_log") == audited)

            let before = try await database.count("SELECT count(*)::int FROM audit_log")
            let taken = try await database.spotterctl(
                ["accounts", "rename", "ada", "--to", "BOB", "--reason", "x"])
            #expect(taken.status == 1)
            #expect(taken.output == "spotterctl: username: is already taken\n")
            #expect(try await database.count("SELECT count(*)::int FROM audit_log") == before)
            #expect(
                try await database.spotterctl(
                    ["accounts", "rename", "ada", "--to", "ada2", "--reason", "x"]
                ).status == 0)
            #expect(try await database.count("SELECT count(*)::int FROM accounts WHERE username = 'ada2'") == 1)
        }
    }

    @Test("delete erases the tenant's rows in every table and pseudonymizes its audit rows")
    func deleteErasesEverything() async throws {
        try await TestDatabase.with { database in
            let ada = try await registerAndSignIn(database, "ada")
            let bob = try await registerAndSignIn(database, "bob")
            _ = try await database.authService().refresh(refreshToken: ada.refreshToken)
            #expect(
                try await database.spotterctl(
                    ["accounts", "rename", "ada", "--to", "ada.l", "--reason", "asked by ada@example.com (ADA)"]
                ).status == 0)
            // A comment Ada wrote on Bob's workout (as his coach would), and Bob's own: they live in
            // Bob's tenant, so only the erasure's pass over other tenants reaches hers.
            let setup = try await database.ownerConnection()
            let workout = UUID()
            try await setup.query(
                """
                INSERT INTO workouts (tenant_id, workout_id, name, started_at, duration_seconds, exercise_count,
                                      set_count, rep_count, volume_kg, log_fingerprint, created_at, updated_at)
                VALUES ($1, $2, 'Bench', now(), 0, 0, 0, 0, 0, '\\x00', now(), now())
                """, [bob.principal.tenantID.rawValue, workout])
            for author in [ada.principal.tenantID, bob.principal.tenantID] {
                try await setup.query(
                    """
                    INSERT INTO workout_comments (tenant_id, comment_id, workout_id, author_id, body, created_at)
                    VALUES ($1, $2, $3, $4, 'brace harder', now())
                    """, [bob.principal.tenantID.rawValue, UUID(), workout, author.rawValue])
            }
            await setup.close()

            let dryRun = try await database.spotterctl(
                ["accounts", "delete", "ada.l", "--reason", "gdpr", "--dry-run"])
            #expect(dryRun.output.contains("would erase"))
            let dryJSON = try await database.spotterctl(
                ["accounts", "delete", "ada.l", "--reason", "gdpr", "--dry-run", "--json"])
            #expect((try json(dryJSON) as? [String: Any])?["dry_run"] as? Bool == true)
            let unconfirmed = try await database.spotterctl(
                ["accounts", "delete", "ada.l", "--reason", "gdpr"])
            #expect(unconfirmed.status != 0)
            #expect(try await database.count("SELECT count(*)::int FROM tenants") == 2)

            #expect(try await database.tablesHoldingRows(of: ada.principal.tenantID).count >= 4)
            let deleted = try await database.spotterctl(
                ["accounts", "delete", "ada.l", "--reason", "gdpr request", "--yes", "--json"])
            #expect(deleted.status == 0, "\(deleted.output)")
            let pseudonym = try #require((try json(deleted) as? [String: String])?["pseudonym"])

            // Every table with a tenant_id column, from the catalog: nothing of Ada's is left, and
            // each such table cascades from tenants, so a new table cannot be forgotten.
            #expect(try await database.tablesHoldingRows(of: ada.principal.tenantID) == [])
            let owner = try await database.ownerConnection()
            let tables = try await owner.query(
                """
                SELECT c.relname FROM pg_class c
                JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id'
                WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace AND c.relname <> 'tenants'
                  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'f'
                                  AND k.confdeltype = 'c')
                """
            )
            #expect(try tables.map { try $0.decode("relname", as: String.self) } == [], "tables that do not cascade")
            // Her audit rows keep the pseudonym, not her id, and still group under one id.
            let audit = try await owner.query(
                """
                SELECT target, details::text AS details, action, reason, target_tenant_id = md5(target)::uuid AS grouped
                FROM audit_log WHERE target = $1 OR target_tenant_id = $2 ORDER BY audit_id
                """,
                [pseudonym, ada.principal.tenantID.rawValue]
            )
            #expect(audit.count == 2)
            for row in audit {
                #expect(try row.decode("target", as: String.self) == pseudonym)
                #expect(try row.decode("details", as: String.self) == "{}")
                #expect(try row.decode("grouped", as: Bool.self))
            }
            #expect(try audit.first?.decode("reason", as: String.self) == "asked by \(pseudonym) (\(pseudonym))")
            // Found by the pseudonym the erasure printed (it answered "no account matches").
            let byPseudonym = try await database.spotterctl(["audit", "list", "--target", pseudonym, "--json"])
            let found = try json(byPseudonym) as? [[String: Any]]
            #expect(byPseudonym.status == 0 && found?.count == 2, "\(byPseudonym.output)")
            // Her comment in Bob's tenant is gone; his stays.
            let comments = try await owner.query(
                "SELECT author_id FROM workout_comments WHERE tenant_id = $1", [bob.principal.tenantID.rawValue])
            #expect(try comments.map { try $0.decode("author_id", as: UUID.self) } == [bob.principal.tenantID.rawValue])
            await owner.close()
            #expect(try await database.count("SELECT count(*)::int FROM tenants") == 1)
            #expect(
                try await database.count(
                    // The pseudonym is hexadecimal, so it may hold "ada" by chance: it is taken out first.
                    """
                    SELECT count(*)::int FROM audit_log
                    WHERE replace(reason, $1, '') LIKE '%ada%' OR replace(target, $1, '') LIKE '%ada%'
                    """, [pseudonym]) == 0)
            // An operator erasing a coach tells the coach's clients.
            let cora = try await database.lifter("cora", kind: .coach)
            try await database.coachingService().link(cora, bob.principal, scopes: ["history"])
            #expect(
                try await database.spotterctl(["accounts", "delete", "cora", "--reason", "asked", "--yes"]).status == 0)
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM email_outbox WHERE kind = 'coach_left' AND recipient = 'bob@example.com'"
                )
                    == 1)
        }
    }

    @Test("outbox list, show and retry: an admin can hand a verification link over by hand")
    func outbox() async throws {
        try await TestDatabase.with { database in
            // Nothing waiting: the answer says where the sent ones are.
            #expect(
                try await database.spotterctl(["outbox", "list"]).output
                    == "(none pending or failed; --status sent lists the e-mails sent)\n")
            _ = try await registerAndSignIn(database, "ada")
            let listed = try #require(
                try json(try await database.spotterctl(["outbox", "list", "--json"])) as? [[String: Any]])
            #expect(listed.count == 1)
            // Bodies, with their links, are for `show`, one at a time.
            #expect(listed.first?["body"] == nil && listed.first?["subject"] as? String != nil)
            let id = try #require(listed.first?["id"] as? String)
            #expect(id == id.lowercased(), "ids are lower case, as the table shows them")
            for limit in ["-1", "0", "1001"] {
                let refused = try await database.spotterctl(["outbox", "list", "--limit", limit])
                #expect(
                    refused.status == 1 && refused.output == "spotterctl: limit: must be from 1 to 1000\n", "\(limit)")
            }
            let shown = try await database.spotterctl(["outbox", "show", id])
            let code = try #require(try await database.emailedCode(to: "ada@example.com", kind: "verify_email"))
            #expect(shown.output.contains(code))

            let sent = try await database.spotterctl(["outbox", "retry", id, "--reason", "x"])
            #expect(sent.status == 0)
            let owner = try await database.ownerConnection()
            try await owner.query(
                "UPDATE email_outbox SET status = 'failed', attempts = 5, last_error = '550 mailbox unknown'")
            await owner.close()
            let failed = try await database.spotterctl(["outbox", "list", "--status", "failed"])
            #expect(failed.output.contains("550 mailbox unknown"))
            #expect(
                try await database.spotterctl(["outbox", "retry", id, "--reason", "fixed address"]).status
                    == 0)
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM email_outbox WHERE status = 'pending' AND last_error IS NULL") == 1)
            #expect(try await database.count("SELECT count(*)::int FROM audit_log WHERE action = 'outbox.retry'") == 2)
            let unknown = try await database.spotterctl(["outbox", "show", UUID().uuidString])
            #expect(unknown.status == 1)
            let badStatus = try await database.spotterctl(["outbox", "list", "--status", "lost"])
            #expect(
                badStatus.status == 64
                    && badStatus.output.contains("--status: must be pending, failed or sent, not 'lost'"),
                "\(badStatus.output)")

            // A coaching notification carries a member's words: read with a reason, audited.
            try await database.asOwner { owner in
                try await owner.query(
                    """
                    INSERT INTO email_outbox (tenant_id, message_id, kind, recipient, subject, body, sender_id,
                                              link_path)
                    SELECT tenant_id, '00000000-0000-4000-8000-00000000000a', 'workout_reply', 'coach@example.com',
                           'ada wrote on their workout', E'My knee hurts\n\n--\nfooter\n', tenant_id, '/clients'
                    FROM tenants LIMIT 1
                    """)
            }
            let note = "00000000-0000-4000-8000-00000000000a"
            let pending = try await database.spotterctl(["outbox", "list", "--json"])
            #expect(pending.status == 0 && pending.output.contains(note) && !pending.output.contains("My knee hurts"))
            #expect(!pending.output.contains("ada wrote on their workout"), "a member's subject is for show too")
            let refused = try await database.spotterctl(["outbox", "show", note])
            #expect(
                refused.status == 1 && refused.output.contains("reason: is required to read a coaching notification"))
            #expect(!refused.output.contains("My knee hurts"))
            let read = try await database.spotterctl(
                ["outbox", "show", note, "--reason", "the coach says it never came"],
                environment: ["SPOTTER_PUBLIC_URL": "https://portal.example"])
            #expect(read.status == 0 && read.output.contains("My knee hurts\n\nhttps://portal.example/clients\n\n--\n"))
            #expect(try await database.count("SELECT count(*)::int FROM audit_log WHERE action = 'outbox.show'") == 1)
        }
    }

    @Test("status, db status and db check report on a healthy database")
    func reports() async throws {
        try await TestDatabase.with { database in
            _ = try await registerAndSignIn(database, "ada")
            let status = try #require(
                try json(try await database.spotterctl(["status", "--json"])) as? [String: Any])
            #expect(status["reachable"] as? Bool == true)
            #expect(status["pending_migrations"] as? Int == 0)
            let counts = try #require(status["counts"] as? [String: Any])
            #expect((counts["tenants"] as? [String: Int])?["lifter/free"] == 1)
            #expect(counts["active_sessions"] as? Int == 1)
            #expect(counts["outbox_pending"] as? Int == 1)

            let db = try #require(
                try json(try await database.spotterctl(["db", "status", "--json"])) as? [String: Any])
            #expect(((db["database"] as? [String: Any])?["table_bytes"] as? [String: Any])?["accounts"] != nil)
            let check = try await database.spotterctl(["db", "check"])
            #expect(check.status == 0, "\(check.output)")
            #expect(!check.output.contains("FAIL"))
            // spotterd's login, where the environment names it: the superuser fails the check.
            let superuser = try await database.spotterctl(
                ["db", "check"],
                environment: ["SPOTTER_SERVER_DATABASE_URL": database.ownerConfiguration.connectionString])
            #expect(superuser.status == 1)
            #expect(superuser.output.contains("is a superuser or bypasses row-level security"), "\(superuser.output)")

            let owner = try await database.ownerConnection()
            try await owner.execute("ALTER TABLE email_outbox NO FORCE ROW LEVEL SECURITY")
            await owner.close()
            let failing = try await database.spotterctl(["db", "check"])
            #expect(failing.status == 1)
            #expect(failing.output.contains("rls forced on email_outbox"))
        }
    }

    @Test("export writes the tenant's data as JSON without secrets, and is audited")
    func export() async throws {
        try await TestDatabase.with { database in
            let tokens = try await registerAndSignIn(database, "ada")
            let bob = try await registerAndSignIn(database, "bob")
            let training = database.trainingServices()
            let custom = try await training.exercises.create(
                tokens.principal, id: "",
                ExerciseDraft(
                    name: "Zercher Squat", category: .squat, muscleGroup: .quadriceps, equipment: .barbell,
                    instructions: ""))
            _ = try await training.templates.create(
                tokens.principal, id: "",
                TemplateDraft(
                    name: "Legs",
                    items: [TemplateItemDraft(exerciseID: custom.id.description, targetSets: 3, repsMin: 5)]
                ))
            _ = try await training.workouts.log(
                tokens.principal, id: "", workoutDraft(at: Date(), exercises: [custom.id, Catalog.squat]))
            _ = try await training.workouts.log(bob.principal, id: "", workoutDraft("Bob's day", at: Date()))
            let coaching = database.coachingService()
            let cora = try await database.lifter("cora", kind: .coach)
            let invite = try await coaching.createInvite(cora, note: "", validDays: 0)
            _ = try await coaching.redeemInvite(tokens.principal, code: invite.code ?? "", scopes: ["history"])
            _ = try await coaching.clientHistory(
                cora, client: tokens.principal.tenantID.description, from: nil, to: nil, text: "", pageSize: 0,
                pageToken: "")
            let commented = try await training.workouts.history(
                tokens.principal, from: nil, to: nil, text: "", pageSize: 1, pageToken: "")
            _ = try await coaching.comment(
                tokens.principal, workoutID: commented.items[0].id.description, exerciseIndex: nil, setIndex: nil,
                body: "felt strong")
            let file = NSTemporaryDirectory() + "export-\(UUID().uuidString).json"
            defer { try? FileManager.default.removeItem(atPath: file) }
            let result = try await database.spotterctl(
                ["export", "ada", "--reason", "subject access request", "--output", file]
            )
            #expect(result.status == 0, "\(result.output)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(document["format"] as? String == "spotter-export")
            // Every id is in lower case (a comment's and feedback's were written in upper case).
            let ids = text.matches(of: /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/)
            #expect(ids.count > 5)
            #expect(ids.allSatisfy { $0.output == $0.output.lowercased() }, "\(ids.map(\.output))")
            #expect((document["profile"] as? [String: Any])?["username"] as? String == "ada")
            #expect((document["sessions"] as? [Any])?.count == 1)
            #expect((document["emails"] as? [[String: Any]])?.first?["kind"] as? String == "verify_email")
            #expect((document["exercises"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Zercher Squat"])
            #expect((document["templates"] as? [[String: Any]])?.first?["name"] as? String == "Legs")
            let workouts = try #require(document["workouts"] as? [[String: Any]])
            #expect(workouts.count == 1)
            let entries = try #require(workouts.first?["exercises"] as? [[String: Any]])
            #expect(entries.map { $0["exercise_name"] as? String } == ["Zercher Squat", "Barbell Back Squat"])
            #expect((entries.first?["sets"] as? [[String: Any]])?.first?["weight_kg"] as? Double == 100)
            let coachingData = try #require(document["coaching"] as? [String: Any])
            let links = try #require(coachingData["links"] as? [[String: Any]])
            #expect(links.map { $0["coach_name"] as? String } == ["cora"])
            #expect(links.first?["scopes"] as? [String] == ["history"])
            let accessLog = try #require(coachingData["access_log"] as? [[String: Any]])
            #expect(accessLog.map { $0["method"] as? String } == ["ListClientWorkouts"])
            #expect(!text.contains("bob"))
            #expect(!text.contains("Bob's day"))
            let shown = try await database.spotterctl(["accounts", "show", "ada", "--json"])
            #expect((try json(shown) as? [String: Any])?["workouts"] as? Int == 1)
            #expect((try json(shown) as? [String: Any])?["last_workout_at"] != nil)
            #expect(!text.contains("scrypt"))
            #expect(!text.contains(tokens.accessToken))
            #expect(!text.contains("spv_"))
            let permissions = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(permissions == 0o600)
            #expect(
                try await database.count("SELECT count(*)::int FROM audit_log WHERE action = 'account.export'") == 1)
            #expect(
                !FileManager.default.fileExists(
                    atPath: file.replacingOccurrences(of: "export-", with: ".export-") + ".partial"))
            // A path that cannot be written fails before anything is read, and leaves no audit row.
            let unwritable = try await database.spotterctl(
                ["export", "ada", "--reason", "subject access request", "--output", "/nonexistent/x.json"])
            #expect(
                unwritable.status != 0
                    && unwritable.output.contains("cannot write /nonexistent/x.json: No such file or directory"))
            #expect(
                try await database.count("SELECT count(*)::int FROM audit_log WHERE action = 'account.export'") == 1)
            // `--output -` is standard output, not a file named "-".
            let dash = try await database.spotterctl(
                ["export", "ada", "--reason", "subject access request", "--output", "-", "--format", "csv"])
            #expect(
                dash.status == 0 && dash.output.hasPrefix("date,") && !dash.output.contains("wrote "),
                "\(dash.output.prefix(200))")
            #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/-"))

            // The lifter's own ExportAccount streams the same document, and the same CSV.
            var own = Data()
            try await training.transfer.export(tokens.principal, format: .json) { own.append($0) }
            var mine = try TenantExport.decoder().decode(TenantExport.self, from: own)
            let written = try TenantExport.decoder().decode(TenantExport.self, from: Data(text.utf8))
            mine.exportedAt = written.exportedAt
            #expect(mine == written)
            let csvFile = NSTemporaryDirectory() + "export-\(UUID().uuidString).csv"
            defer { try? FileManager.default.removeItem(atPath: csvFile) }
            let csvResult = try await database.spotterctl(
                ["export", "ada", "--reason", "subject access request", "--format", "csv", "--output", csvFile])
            #expect(csvResult.status == 0, "\(csvResult.output)")
            var ownCSV = Data()
            try await training.transfer.export(tokens.principal, format: .csv) { ownCSV.append($0) }
            #expect(try String(contentsOfFile: csvFile, encoding: .utf8) == String(decoding: ownCSV, as: UTF8.self))
            #expect(try String(contentsOfFile: csvFile, encoding: .utf8).contains(",Zercher Squat,"))
            // The templates' and measurements' CSVs are the ones the account's own export gives.
            for (name, format) in [
                ("templates-csv", ExportFormat.templatesCSV), ("measurements-csv", .measurementsCSV),
            ] {
                let written = try await database.spotterctl(
                    ["export", "ada", "--reason", "subject access request", "--format", name, "--output", csvFile])
                #expect(written.status == 0, "\(written.output)")
                var own = Data()
                try await training.transfer.export(tokens.principal, format: format) { own.append($0) }
                #expect(try String(contentsOfFile: csvFile, encoding: .utf8) == String(decoding: own, as: UTF8.self))
            }

            let recent = try await database.spotterctl(
                ["accounts", "list", "--created-since", "2000-01-01", "--json"])
            #expect((try json(recent) as? [Any])?.count == 3)  // ada, bob and the coach cora
            let future = try await database.spotterctl(
                ["accounts", "list", "--created-since", "2999-01-01", "--json"])
            #expect((try json(future) as? [Any])?.isEmpty == true)
        }
    }

    @Test("once an operator is registered, only registered operators can change anything")
    func operators() async throws {
        try await TestDatabase.with { database in
            _ = try await registerAndSignIn(database, "ada")
            let first = try await database.spotterctl(
                [
                    "accounts", "create", "--kind", "operator", "--username", "alice", "--email", "Alice@Ops.example",
                    "--display-name", "Alice Admin", "--reason", "first operator", "--json",
                ]
            )
            #expect(first.status == 0, "\(first.output)")
            #expect((try json(first) as? [String: Any])?["email"] as? String == "alice@ops.example")

            let before = try await database.count("SELECT count(*)::int FROM audit_log")
            let stranger = try await database.spotterctl(["accounts", "disable", "ada", "--reason", "x", "--yes"])
            #expect(stranger.status == 1)
            #expect(stranger.output.contains("'test-operator' is not a registered operator"))
            #expect(try await database.count("SELECT count(*)::int FROM accounts WHERE status = 'disabled'") == 0)
            #expect(try await database.count("SELECT count(*)::int FROM audit_log") == before)

            let alice = try await database.spotterctl(
                ["accounts", "disable", "ada", "--reason", "abuse report", "--yes", "--operator", "alice"]
            )
            #expect(alice.status == 0, "\(alice.output)")
            let entries = try #require(
                try json(try await database.spotterctl(["audit", "list", "--json"])) as? [[String: Any]])
            #expect(entries.first?["actor"] as? String == "alice")
            #expect(entries.first?["action"] as? String == "account.disable")
            #expect(entries.last?["action"] as? String == "operator.create")

            let listed = try #require(
                try json(try await database.spotterctl(["accounts", "operators", "--json"])) as? [[String: Any]]
            )
            #expect(listed.map { $0["name"] as? String } == ["alice"])
            let duplicate = try await database.spotterctl(
                [
                    "accounts", "create", "--kind", "operator", "--username", "alice", "--email", "a2@ops.example",
                    "--reason", "x", "--operator", "alice",
                ]
            )
            #expect(duplicate.output == "spotterctl: username: is already taken\n")
        }
    }

    private func principal(_ database: TestDatabase, _ username: String) async throws -> Principal {
        let owner = try await database.ownerConnection()
        defer { Task { await owner.close() } }
        let row = try await owner.query("SELECT tenant_id, account_id FROM accounts WHERE username = $1", [username])
            .single!
        return Principal(
            tenantID: TenantID(rawValue: try row.decode("tenant_id")),
            accountID: AccountID(rawValue: try row.decode("account_id")))
    }
}
