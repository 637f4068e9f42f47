import Foundation
import Logging
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

@Suite("Accounts and sign-in on PostgreSQL")
struct AuthFlowTests {
    private func register(_ auth: AuthService, _ name: String, kind: TenantKind = .lifter) async throws -> Principal {
        try await auth.register(
            AuthService.Registration(
                email: "\(name)@example.com", username: name, password: "long enough \(name)", kind: kind)
        )
    }

    /// `name` registered (with `other`, whose address and name are taken then) and signed in.
    private func signedIn(_ auth: AuthService, _ name: String, besides other: String? = nil) async throws
        -> SignInResult
    {
        _ = try await register(auth, name)
        if let other { _ = try await register(auth, other) }
        return try await auth.signIn(login: name, password: "long enough \(name)", deviceLabel: "", address: "a")
    }

    @Test("registration stores tenant, account and verification e-mail; the code verifies once")
    func registerAndVerify() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            let principal = try await register(auth, "ada")
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM tenants WHERE tenant_id = $1", [principal.tenantID.rawValue]) == 1)
            let code = try #require(try await database.emailedCode(to: "ada@example.com", kind: "verify_email"))
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM account_tokens WHERE token_hash = $1", [PostgresBytes(Token.hash(code))])
                    == 1)
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM account_tokens WHERE token_hash = $1", [PostgresBytes(Array(code.utf8))])
                    == 0)
            try await auth.verifyEmail(token: code)
            #expect(
                try await database.count("SELECT count(*)::int FROM accounts WHERE email_verified_at IS NOT NULL") == 1)
            await #expect(throws: SpotterError.self) { try await auth.verifyEmail(token: code) }
        }
    }

    @Test(
        "a signed-in password change checks the current one (five wrong guesses and that session waits), keeps this session and ends the others"
    )
    func changePassword() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            _ = try await register(auth, "ada")
            let phone = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "phone", address: "a"
            )
            .tokens
            let laptop = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "laptop", address: "a"
            ).tokens
            let signedIn = try await auth.authenticate(accessToken: laptop.accessToken)
            let wrong = SpotterError.invalidArgument([
                FieldViolation(field: "current_password", reason: "is not your password")
            ])
            // Someone with the phone's session guesses.
            let stolen = try await auth.authenticate(accessToken: phone.accessToken)
            for _ in 0..<5 {
                await #expect(throws: wrong) {
                    try await auth.changePassword(
                        stolen, current: "a wrong guess", new: "a new long password", address: "b")
                }
            }
            // The sixth, even with the right password, waits: guessing through a stolen session is slow.
            do {
                _ = try await auth.changePassword(
                    stolen, current: "long enough ada", new: "a new long password", address: "b")
                Issue.record("the sixth attempt was let through")
            } catch SpotterError.tooManyRequests(let message, _) {
                #expect(message.hasPrefix("too many wrong passwords; try again in"))
            }
            // The owner's own session, even from the same address, goes through, and ends the other.
            #expect(
                try await auth.changePassword(
                    signedIn, current: "long enough ada", new: "a new long password", address: "b") == 1)
            _ = try await auth.authenticate(accessToken: laptop.accessToken)
            await #expect(throws: SpotterError.self) { try await auth.authenticate(accessToken: phone.accessToken) }
            await #expect(throws: SpotterError.self) {
                try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "d")
            }
            _ = try await auth.signIn(login: "ada", password: "a new long password", deviceLabel: "", address: "d")
        }
    }

    @Test("a taken e-mail or username (in any case) is refused naming the field, and nothing is half-written")
    func duplicatesNameTheField() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            _ = try await register(auth, "ada")
            await #expect(throws: SpotterError.alreadyExists(field: "email", reason: "is already taken")) {
                try await auth.register(
                    .init(email: "ADA@example.com", username: "other", password: "long enough x", kind: .lifter))
            }
            await #expect(throws: SpotterError.alreadyExists(field: "username", reason: "is already taken")) {
                try await auth.register(
                    .init(email: "other@example.com", username: "ADA", password: "long enough x", kind: .coach))
            }
            #expect(try await database.count("SELECT count(*)::int FROM tenants") == 1)
            #expect(try await database.count("SELECT count(*)::int FROM email_outbox") == 1)
        }
    }

    @Test("invalid registration names every bad field")
    func invalidRegistration() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            let error = await #expect(throws: SpotterError.self) {
                try await auth.register(
                    .init(email: "nope", username: "1", password: "short", kind: nil, timeZone: "Nowhere/City"))
            }
            let tenants = try await database.count("SELECT count(*)::int FROM tenants")
            #expect(tenants == 0)
            if case .invalidArgument(let violations) = error {
                #expect(violations.map(\.field) == ["email", "username", "password", "kind", "time_zone"])
            } else {
                Issue.record("wrong error \(String(describing: error))")
            }
        }
    }

    @Test("sign in by username or e-mail in any case; a wrong password and an unknown login answer alike")
    func signIn() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            let principal = try await register(auth, "ada")
            let byName = try await auth.signIn(
                login: "Ada", password: "long enough ada", deviceLabel: "phone", address: "10.0.0.1")
            let byEmail = try await auth.signIn(
                login: "ADA@example.com", password: "long enough ada", deviceLabel: "", address: "10.0.0.1")
            #expect(byName.principal.tenantID == principal.tenantID)
            #expect(byEmail.principal.tenantID == principal.tenantID)
            #expect(try await auth.authenticate(accessToken: byName.accessToken).tenantID == principal.tenantID)
            let wrong = SpotterError.unauthenticated("invalid login or password")
            await #expect(throws: wrong) {
                try await auth.signIn(login: "ada", password: "wrong password", deviceLabel: "", address: "10.0.0.1")
            }
            await #expect(throws: wrong) {
                try await auth.signIn(login: "nobody", password: "wrong password", deviceLabel: "", address: "10.0.0.1")
            }
        }
    }

    @Test("repeated failures lock out their source for a while, not the account: another address signs in")
    func sourceThrottling() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock()
            let auth = database.authService(clock: clock)
            _ = try await register(auth, "ada")
            for _ in 0..<5 {
                await #expect(throws: SpotterError.unauthenticated("invalid login or password")) {
                    try await auth.signIn(login: "ada", password: "guess guess", deviceLabel: "", address: "192.0.2.1")
                }
            }
            // That address is locked out of this account now, even with the right password…
            let locked = await #expect(throws: SpotterError.self) {
                try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "192.0.2.1")
            }
            #expect(
                locked == .tooManyRequests("too many failed sign-ins; try again in 30 seconds", retryAfterSeconds: 30))
            // …but the owner elsewhere is not.
            _ = try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "192.0.2.2")
            clock.advance(by: 31)
            _ = try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "192.0.2.1")
            #expect(try await database.count("SELECT count(*)::int FROM sign_in_failures") == 0)
        }
    }

    @Test(
        "40 wrong passwords at once are counted one after another: from one address five are checked, from 40 the ceiling's 20"
    )
    func parallelGuessing() async throws {
        try await TestDatabase.with { database in
            // A line long enough for every guess, so none is turned away as "busy" (that is tested below),
            // and a pool whose checkouts wait long enough for 40 sign-ins counted one after another: with
            // the 5 s default, three guesses once met "the database is unavailable" in CI's full run.
            let pool = PostgresPool(
                configuration: database.appPool.configuration,
                options: .init(maxConnections: 10, checkoutTimeout: .seconds(120)), logger: Logger(label: "test"))
            let auth = database.authService(
                hasher: PasswordHasher(
                    cost: .testing, limiter: ConcurrencyLimiter(limit: 2, maxWaiting: 64, work: PasswordHasher.work)),
                pool: pool)
            _ = try await register(auth, "ada")
            _ = try await register(auth, "bob")
            func guess40(_ login: String, from addresses: [String]) async -> [String: Int] {
                await withTaskGroup(of: String.self) { group in
                    for index in 0..<40 {
                        group.addTask {
                            do {
                                _ = try await auth.signIn(
                                    login: login, password: "guess \(index)", deviceLabel: "",
                                    address: addresses[index % addresses.count])
                                return "signed in"
                            } catch SpotterError.unauthenticated {
                                return "checked"
                            } catch SpotterError.tooManyRequests {
                                return "throttled"
                            } catch {
                                return "\(error)"
                            }
                        }
                    }
                    var outcomes: [String: Int] = [:]
                    for await outcome in group { outcomes[outcome, default: 0] += 1 }
                    return outcomes
                }
            }
            // Bound first, so that a failure prints what the guesses met.
            let fromOne = await guess40("ada", from: ["192.0.2.1"])
            #expect(fromOne == ["checked": 5, "throttled": 35])
            let many = (0..<40).map { "198.51.100.\($0)" }
            let fromMany = await guess40("bob", from: many)
            #expect(fromMany == ["checked": 20, "throttled": 20])
            #expect(
                try await database.count(
                    "SELECT failed_sign_ins FROM accounts WHERE username = 'bob'") == 20)
            await pool.shutdown()
        }
    }

    @Test("nobody can lock the owner out: a known device signs in through every lock, a new one waits at most 30 s")
    func noLockout() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock()
            var policy = AuthPolicy()
            policy.addressMaxFailures = 10
            let auth = database.authService(clock: clock, policy: policy)
            _ = try await register(auth, "ada")
            _ = try await register(auth, "eve")
            let phone = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "phone", address: "192.0.2.1")
            let phoneToken = try #require(phone.deviceToken)
            #expect(phoneToken.hasPrefix("spd_"))
            let evesToken = try #require(
                try await auth.signIn(login: "eve", password: "long enough eve", deviceLabel: "", address: "192.0.2.1")
                    .deviceToken)

            // An attacker guesses from the owner's own network (one address: it gets blocked) and from
            // 30 more, past the per-source locks and the account-wide ceiling.
            for index in 0..<31 {
                _ = try? await auth.signIn(
                    login: "ada", password: "guess \(index)", deviceLabel: "", address: "192.0.2.1")
                _ = try? await auth.signIn(
                    login: "ada", password: "guess \(index)", deviceLabel: "", address: "203.0.113.\(index)")
            }
            #expect(try await database.count("SELECT failed_sign_ins FROM accounts WHERE username = 'ada'") == 20)
            // Another account's device token is no pass: it is an unknown device for ada.
            await #expect(throws: SpotterError.self) {
                try await auth.signIn(
                    login: "ada", password: "long enough ada", deviceLabel: "", deviceToken: evesToken,
                    address: "198.51.100.1")
            }
            // The owner's phone, on the blocked address, signs in at once and keeps its token.
            let again = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "phone", deviceToken: phoneToken,
                address: "192.0.2.1")
            #expect(again.deviceToken == phoneToken)
            // A new laptop waits for the ceiling's next slot (30 s), then gets in.
            let waiting = await #expect(throws: SpotterError.self) {
                try await auth.signIn(
                    login: "ada", password: "long enough ada", deviceLabel: "laptop", address: "198.51.100.2")
            }
            guard case .tooManyRequests(_, let retry) = waiting else {
                Issue.record("the new device was not asked to wait: \(String(describing: waiting))")
                return
            }
            #expect(retry <= 30)
            clock.advance(by: TimeInterval(retry) + 1)
            let laptop = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "laptop", address: "198.51.100.2")
            #expect(laptop.deviceToken != phoneToken)
            #expect(
                try await database.count("SELECT count(*)::int FROM known_devices WHERE label IN ('phone', 'laptop')")
                    == 2)

            // A stolen device token guesses no faster: five wrong passwords lock that device alone.
            for _ in 0..<5 {
                await #expect(throws: SpotterError.unauthenticated("invalid login or password")) {
                    try await auth.signIn(
                        login: "ada", password: "wrong password", deviceLabel: "", deviceToken: phoneToken,
                        address: "203.0.113.200")
                }
            }
            await #expect(
                throws: SpotterError.tooManyRequests(
                    "too many failed sign-ins; try again in 30 seconds", retryAfterSeconds: 30)
            ) {
                try await auth.signIn(
                    login: "ada", password: "long enough ada", deviceLabel: "", deviceToken: phoneToken,
                    address: "203.0.113.200")
            }
            _ = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "", deviceToken: laptop.deviceToken ?? "",
                address: "203.0.113.200")
        }
    }

    @Test("an account remembers at most its 20 most recently used devices, and a device token expires")
    func knownDeviceLimits() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock()
            let auth = database.authService(clock: clock)
            _ = try await register(auth, "ada")
            var tokens: [String] = []
            for index in 0..<22 {
                clock.advance(by: 1)
                tokens.append(
                    try #require(
                        try await auth.signIn(
                            login: "ada", password: "long enough ada", deviceLabel: "device \(index)", address: "a"
                        ).deviceToken))
            }
            #expect(try await database.count("SELECT count(*)::int FROM known_devices") == 20)
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM known_devices WHERE label IN ('device 0', 'device 1')")
                    == 0)
            // The oldest token is forgotten: signing in with it makes a new device.
            let fresh = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "", deviceToken: tokens[0], address: "a")
            #expect(fresh.deviceToken != tokens[0])
            // A year without a sign-in and a token stops counting.
            clock.advance(by: AuthPolicy().knownDeviceLifetime + 1)
            let later = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "", deviceToken: tokens[21], address: "a")
            #expect(later.deviceToken != tokens[21])
        }
    }

    /// The code an authenticator app shows for the secret of `enrollment` at `date`.
    private func appCode(_ enrollment: AuthService.TwoFactorEnrollment, at date: Date) throws -> String {
        let query = try #require(URLComponents(string: enrollment.provisioningURI)?.queryItems)
        let secret = try #require(query.first { $0.name == "secret" }?.value)
        #expect(secret == enrollment.secret)
        return TOTP.code(secret: try #require(Base32.decode(secret)), step: TOTP.step(at: date))
    }

    @Test("a refused access token says whether a refresh will do or only a sign-in")
    func refusedAccessTokens() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(Date())
            let auth = database.authService(clock: clock)
            _ = try await register(auth, "ada")
            let phone = try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
                .tokens
            clock.advance(by: AuthPolicy().accessTokenLifetime + 1)
            await #expect(
                throws: SpotterError.unauthenticated(
                    "the access token has expired; get a new one with your refresh token", token: .expired)
            ) { try await auth.authenticate(accessToken: phone.accessToken) }
            let refreshed = try await auth.refresh(refreshToken: phone.refreshToken)
            _ = try await auth.authenticate(accessToken: refreshed.accessToken)
            // The token a refresh replaced, and one never issued.
            for token in [phone.accessToken, "spa_never_issued", ""] {
                await #expect(
                    throws: SpotterError.unauthenticated(
                        "the access token is not valid (a refresh replaces it: use the newest, or sign in again)"),
                    "\(token)"
                ) { try await auth.authenticate(accessToken: token) }
            }
            try await auth.signOut(try await auth.authenticate(accessToken: refreshed.accessToken))
            let ended = SpotterError.unauthenticated(
                "the session has ended (signed out, revoked or expired, or the account is disabled); sign in again",
                token: .ended)
            await #expect(throws: ended) { try await auth.authenticate(accessToken: refreshed.accessToken) }
            // A session past its end, and an account disabled: ended too.
            let later = try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
                .tokens
            clock.advance(by: AuthPolicy().sessionLifetime + 1)
            await #expect(throws: ended) { try await auth.authenticate(accessToken: later.accessToken) }
            clock.advance(by: -(AuthPolicy().sessionLifetime + 1))
            let current = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "", address: "a"
            )
            .tokens
            try await database.asOwner { try await $0.query("UPDATE accounts SET status = 'disabled'") }
            await #expect(throws: ended) { try await auth.authenticate(accessToken: current.accessToken) }
        }
    }

    @Test(
        "ChangeUsername: signs in with the new name at once, refuses a taken one; audited with both names"
    )
    func changeUsername() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            let ada = try await signedIn(auth, "ada", besides: "bob").principal
            await #expect(throws: SpotterError.invalid("new_username", "must start with a letter a–z")) {
                try await auth.changeUsername(ada, to: "1ada")
            }
            await #expect(throws: SpotterError.invalid("new_username", "is the one you have")) {
                try await auth.changeUsername(ada, to: " ada ")
            }
            await #expect(throws: SpotterError.alreadyExists(field: "new_username", reason: "is already taken")) {
                try await auth.changeUsername(ada, to: "BOB")
            }
            try await auth.changeUsername(ada, to: "Ada.Lovelace")
            _ = try await auth.signIn(login: "ada.lovelace", password: "long enough ada", deviceLabel: "", address: "a")
            await #expect(throws: SpotterError.self) {
                try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
            }
            let audit = try await database.asOwner { owner in
                try await owner.query(
                    "SELECT actor_kind, actor, target, details::text AS details FROM audit_log WHERE action = 'account.rename'"
                ).single.map {
                    [
                        try $0.decode("actor_kind", as: String.self), try $0.decode("actor", as: String.self),
                        try $0.decode("target", as: String.self), try $0.decode("details", as: String.self),
                    ]
                }
            }
            #expect(audit == ["tenant", "owner", "Ada.Lovelace", #"{"to": "Ada.Lovelace", "from": "ada"}"#])
        }
    }

    @Test("an erased account's username and the names it still held stay held for 14 days, for nobody")
    func erasedUsernamesHeld() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            let cora = try await signedIn(auth, "cora", besides: "bob").principal
            try await auth.changeUsername(cora, to: "coach.cora")
            let admin = AdminService(
                store: PostgresAdminStore(pool: database.adminPool), hasher: PasswordHasher(cost: .testing),
                policy: AuthPolicy())
            _ = try await admin.erase(
                "coach.cora", actor: AdminActor(operatorName: "ops", osUser: "root"), reason: "erasure request")
            for name in ["Coach.Cora", "cora"] {
                await #expect(throws: SpotterError.alreadyExists(field: "username", reason: "is already taken")) {
                    _ = try await auth.register(
                        AuthService.Registration(
                            email: "impostor@elsewhere.example", username: name, password: "long enough again",
                            kind: .coach))
                }
            }
            let holds = try await database.asOwner { owner in
                try await owner.query(
                    """
                    SELECT username, holder IS NULL AS anonymous, held_until > now() + interval '13 days' AS fresh
                    FROM username_holds ORDER BY username
                    """
                ).map {
                    "\(try $0.decode("username", as: String.self)) \(try $0.decode("anonymous", as: Bool.self)) \(try $0.decode("fresh", as: Bool.self))"
                }
            }
            #expect(holds == ["coach.cora true true", "cora true true"], "the name and the name it held, nothing else")
            // When the holds end, the names are anyone's.
            try await database.asOwner { owner in
                try await owner.query("UPDATE username_holds SET held_until = now() - interval '1 second'")
            }
            _ = try await auth.register(
                AuthService.Registration(
                    email: "cora@elsewhere.example", username: "coach.cora", password: "long enough again",
                    kind: .coach))
        }
    }

    @Test(
        "a username given up is held for its owner for 14 days: nobody else takes it, the owner takes it back, three held stop a fourth change; an operator's rename holds nothing"
    )
    func usernameHolds() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            let ada = try await signedIn(auth, "ada", besides: "bob").principal
            let bob = try await auth.signIn(login: "bob", password: "long enough bob", deviceLabel: "", address: "b")
                .principal
            func registration(_ username: String) -> AuthService.Registration {
                AuthService.Registration(
                    email: "\(username)@elsewhere.example", username: username, password: "long enough again",
                    kind: .lifter)
            }
            try await auth.changeUsername(ada, to: "ada.l")
            // Nobody else registers it or renames to it, in any letter case.
            await #expect(throws: SpotterError.alreadyExists(field: "username", reason: "is already taken")) {
                _ = try await auth.register(registration("ADA"))
            }
            await #expect(throws: SpotterError.alreadyExists(field: "new_username", reason: "is already taken")) {
                try await auth.changeUsername(bob, to: "Ada")
            }
            // Nor can SQL run as the application pass for an operator's rename: the setting the
            // trigger once trusted is ignored, and the table marking an operator's rename is not the
            // application's to write.
            let spotter = SpotterDatabase(pool: database.appPool)
            await #expect(throws: SpotterError.alreadyExists(field: "username", reason: "is already taken")) {
                try await spotter.withTenant(bob) { connection in
                    try await connection.query("SELECT set_config('spotter.operator_rename', 'on', true)")
                    try await connection.query(
                        "UPDATE accounts SET username = 'ada' WHERE tenant_id = $1", [bob.tenantID.rawValue])
                }
            }
            let marked = await #expect(throws: PostgresError.self) {
                try await spotter.withTenant(bob) { connection in
                    try await connection.query(
                        "INSERT INTO username_operator_renames (tenant_id) VALUES ($1)", [bob.tenantID.rawValue])
                }
            }
            #expect(marked?.sqlState == PostgresError.Code.insufficientPrivilege)
            // Its owner takes it back, which ends the hold of it and holds the name given up now.
            try await auth.changeUsername(ada, to: "Ada")
            await #expect(throws: SpotterError.alreadyExists(field: "new_username", reason: "is already taken")) {
                try await auth.changeUsername(bob, to: "ada.l")
            }
            // Three names held stop a fourth change, but not taking one of them back.
            try await auth.changeUsername(ada, to: "ada.two")
            try await auth.changeUsername(ada, to: "ada.three")
            await #expect(throws: SpotterError.self) { try await auth.changeUsername(ada, to: "ada.four") }
            do {
                try await auth.changeUsername(ada, to: "ada.four")
            } catch SpotterError.tooManyRequests(let message, let seconds) {
                #expect(
                    message
                        == "you gave up 3 usernames in the last 14 days (ada.l, ada, ada.two), each held for you for 14 days; take one of them back, or choose a new one in 14 days"
                )
                #expect(seconds > 13 * 86_400 && seconds <= 14 * 86_400)
            }
            // With three held, a change that gives up nothing new is no change of the limit's.
            await #expect(throws: SpotterError.invalid("new_username", "is the one you have")) {
                try await auth.changeUsername(ada, to: "ada.three")
            }
            try await auth.changeUsername(ada, to: "Ada.Three")
            try await auth.changeUsername(ada, to: "ada.two")
            _ = try await auth.signIn(login: "ada.two", password: "long enough ada", deviceLabel: "", address: "a")
            // A hold ends after 14 days: then anyone may take the name.
            try await database.asOwner { owner in
                try await owner.query(
                    "UPDATE username_holds SET held_until = now() - interval '1 second' WHERE username = 'ada'")
            }
            _ = try await auth.register(registration("ada"))
            // An operator's rename frees the old name at once and may take a name another holds.
            let admin = AdminService(
                store: PostgresAdminStore(pool: database.adminPool), hasher: PasswordHasher(cost: .testing),
                policy: AuthPolicy())
            let ops = AdminActor(operatorName: "ops", osUser: "root")
            try await admin.rename("bob", to: "ada.three", actor: ops, reason: "the name is bob's own brand")
            _ = try await auth.register(registration("bob"))
            let holds = try await database.asOwner { owner in
                try await owner.query("SELECT username FROM username_holds WHERE held_until > now() ORDER BY username")
                    .map { try $0.decode("username", as: String.self) }
            }
            #expect(holds == ["ada.l"], "the hold of the name the operator gave away ended")
            // The retention pass deletes holds that ended: a name given up is not kept past them.
            try await database.asOwner { owner in
                try await owner.query("UPDATE username_holds SET held_until = now() - interval '1 second'")
            }
            let purged = try await SpotterDatabase(pool: database.appPool).purgeOld(accessLogDays: 365)
            #expect(purged.usernameHolds == 1)
            #expect(try await database.count("SELECT count(*)::int FROM username_holds") == 0)
        }
    }

    @Test(
        "a password typed again while signed in: right ones are not counted when the call is refused after, and an address blocked by others' failures does not stop the owner"
    )
    func passwordTypedAgain() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            let ada = try await signedIn(auth, "ada", besides: "bob").principal
            for _ in 0..<3 {
                await #expect(throws: SpotterError.alreadyExists(field: "new_email", reason: "is already taken")) {
                    try await auth.changeEmail(
                        ada, password: "long enough ada", newEmail: "bob@example.com", address: "cafe")
                }
            }
            // A refusal for a taken address counts as a request: three an hour, so addresses cannot
            // be tried one after another; and the right password was never counted as a wrong one.
            await #expect(
                throws: SpotterError.tooManyRequests(
                    "3 address changes were asked for in the last hour; use a link already sent, or try again later",
                    retryAfterSeconds: 3600)
            ) {
                try await auth.changeEmail(
                    ada, password: "long enough ada", newEmail: "bob@example.com", address: "cafe")
            }
            try await database.asOwner { owner in
                try await owner.query("UPDATE account_tokens SET created_at = created_at - interval '2 hours'")
            }
            // Guesses at Ada's own password from the office lock sign-ins to her account from there,
            // but not her session's password typed again there.
            for _ in 0..<7 {
                _ = try? await auth.signIn(login: "ada", password: "a wrong guess", deviceLabel: "", address: "office")
            }
            await #expect(throws: SpotterError.self) {
                try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "office")
            }
            _ = try await auth.changePassword(
                ada, current: "long enough ada", new: "long enough ada again", address: "office")
            _ = try await auth.changePassword(
                ada, current: "long enough ada again", new: "long enough ada", address: "office")
            // Someone else's guesses block the café's address for sign-ins.
            var blocked = false
            for attempt in 0..<60 where !blocked {
                do {
                    _ = try await auth.signIn(
                        login: "nobody\(attempt)", password: "a wrong guess", deviceLabel: "", address: "cafe")
                } catch SpotterError.tooManyRequests {
                    blocked = true
                } catch {}
            }
            #expect(blocked)
            // Ada, signed in at the café, still changes her address and password there.
            try await auth.changeEmail(ada, password: "long enough ada", newEmail: "ada@new.example", address: "cafe")
            _ = try await auth.changePassword(
                ada, current: "long enough ada", new: "a brand new password", address: "cafe")
            // Her own wrong guesses are still limited.
            var limited: SpotterError?
            for _ in 0..<12 where limited == nil {
                do {
                    _ = try await auth.changePassword(ada, current: "not it", new: "another password", address: "x")
                } catch let error as SpotterError {
                    if case .tooManyRequests = error { limited = error }
                }
            }
            guard case .tooManyRequests(let message, _)? = limited else {
                Issue.record("wrong current passwords were never limited")
                return
            }
            #expect(message.hasPrefix("too many wrong passwords; try again in "), "\(message)")
        }
    }

    @Test(
        "ChangeEmail: the password again, a link to the new address that changes it when used, a notice to the old; a password change ends the link"
    )
    func changeEmail() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            let ada = try await signedIn(auth, "ada", besides: "bob")

            await #expect(throws: SpotterError.invalid("password", "is wrong")) {
                try await auth.changeEmail(
                    ada.principal, password: "long enough bob", newEmail: "ada@new.example", address: "a")
            }
            await #expect(
                throws: SpotterError.invalidArgument([
                    FieldViolation(field: "password", reason: "is required"),
                    FieldViolation(field: "new_email", reason: "is your address already"),
                ])
            ) {
                try await auth.changeEmail(ada.principal, password: "", newEmail: " ADA@example.com ", address: "a")
            }
            await #expect(throws: SpotterError.alreadyExists(field: "new_email", reason: "is already taken")) {
                try await auth.changeEmail(
                    ada.principal, password: "long enough ada", newEmail: "Bob@example.com", address: "a")
            }
            // The refusal is counted as a request, with a link that never worked.
            #expect(
                try await database.count(
                    """
                    SELECT count(*)::int FROM account_tokens
                    WHERE purpose = 'change_email' AND new_email = 'bob@example.com' AND expires_at <= now()
                    """) == 1)
            #expect(
                try await database.count("SELECT count(*)::int FROM email_outbox WHERE kind LIKE 'change_email%'") == 0)
            try await database.asOwner { owner in
                try await owner.query("UPDATE account_tokens SET created_at = created_at - interval '2 hours'")
            }

            try await auth.changeEmail(
                ada.principal, password: "long enough ada", newEmail: "Ada@New.example", address: "a")
            let notice = try await database.asOwner { owner in
                try await owner.query(
                    "SELECT recipient, body FROM email_outbox WHERE kind = 'change_email_notice'"
                ).single.map { (try $0.decode("recipient", as: String.self), try $0.decode("body", as: String.self)) }
            }
            #expect(notice?.0 == "ada@example.com")
            #expect(notice?.1.contains("change its e-mail address to\nada@new.example") == true, "\(notice?.1 ?? "")")
            let token = try #require(try await database.emailedCode(to: "ada@new.example", kind: "change_email"))
            // Until the link is used, the old address signs in and the new one does not.
            _ = try await auth.signIn(
                login: "ada@example.com", password: "long enough ada", deviceLabel: "", address: "a")
            await #expect(throws: SpotterError.self) {
                try await auth.signIn(
                    login: "ada@new.example", password: "long enough ada", deviceLabel: "", address: "a")
            }
            #expect(try await auth.accountTokenIsUsable(token, for: .changeEmail))
            try await auth.requestPasswordReset(email: "ada@example.com")
            let reset = try #require(try await database.emailedCode(to: "ada@example.com", kind: "reset_password"))
            try await auth.verifyEmail(token: token)
            let store = PostgresAuthStore(database: SpotterDatabase(pool: database.appPool))
            let status = try await store.emailStatus(ada.principal)
            #expect(status.email == "ada@new.example" && status.verified)
            // The old address is told, the change is audited with both, and a reset link sent to
            // the old address before (a mailbox given up) no longer works.
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM email_outbox WHERE kind = 'email_changed' AND recipient = 'ada@example.com'"
                ) == 1)
            #expect(
                try await database.count(
                    """
                    SELECT count(*)::int FROM audit_log WHERE action = 'account.change_email'
                    AND details = '{"from": "ada@example.com", "to": "ada@new.example"}'::jsonb
                    """) == 1)
            await #expect(throws: SpotterError.self) {
                try await auth.completePasswordReset(token: reset, newPassword: "taken over at last")
            }
            _ = try await auth.signIn(
                login: "ada@new.example", password: "long enough ada", deviceLabel: "", address: "a")
            await #expect(throws: SpotterError.self) {
                try await auth.signIn(
                    login: "ada@example.com", password: "long enough ada", deviceLabel: "", address: "a")
            }
            await #expect(throws: SpotterError.notFound("the verification token is unknown, used or expired")) {
                try await auth.verifyEmail(token: token)
            }

            // Only the newest request's link works: a mistyped address, corrected, cannot take the account.
            try await auth.changeEmail(
                ada.principal, password: "long enough ada", newEmail: "ada@typo.example", address: "a")
            let mistyped = try #require(try await database.emailedCode(to: "ada@typo.example", kind: "change_email"))
            try await auth.changeEmail(
                ada.principal, password: "long enough ada", newEmail: "ada@right.example", address: "a")
            await #expect(throws: SpotterError.notFound("the verification token is unknown, used or expired")) {
                try await auth.verifyEmail(token: mistyped)
            }
            try await auth.cancelEmailChange(ada.principal)
            // Three links an hour: the ones so far were asked for two hours ago.
            try await database.asOwner { owner in
                try await owner.query("UPDATE account_tokens SET created_at = created_at - interval '2 hours'")
            }
            // A link asked for with a password that is then changed no longer works.
            try await auth.changeEmail(
                ada.principal, password: "long enough ada", newEmail: "thief@evil.example", address: "a")
            let stolen = try #require(try await database.emailedCode(to: "thief@evil.example", kind: "change_email"))
            _ = try await auth.changePassword(
                ada.principal, current: "long enough ada", new: "a much newer password", address: "a")
            await #expect(throws: SpotterError.notFound("the verification token is unknown, used or expired")) {
                try await auth.verifyEmail(token: stolen)
            }
            // An address another account took meanwhile is not taken from it.
            try await auth.changeEmail(
                ada.principal, password: "a much newer password", newEmail: "carol@example.com", address: "a")
            let late = try #require(try await database.emailedCode(to: "carol@example.com", kind: "change_email"))
            _ = try await register(auth, "carol")
            await #expect(
                throws: SpotterError.failedPrecondition(
                    "carol@example.com belongs to another account now, so your address was not changed; ask for a change to another address"
                )
            ) {
                try await auth.verifyEmail(token: late)
            }
            #expect(try await store.emailStatus(ada.principal).email == "ada@new.example")
            // That link can never work now: it is spent, and no change shows as waiting.
            #expect(try await auth.pendingEmailChange(ada.principal) == nil)
            #expect(try await auth.emailChangeAddress(token: late) == nil)
            await #expect(throws: SpotterError.failedPrecondition("no change of address is waiting")) {
                try await auth.cancelEmailChange(ada.principal)
            }
            // Three links an hour: the two above and this one, which is seen waiting and cancelled;
            // its link then no longer works.
            try await auth.changeEmail(
                ada.principal, password: "a much newer password", newEmail: "ada3@example.com", address: "a")
            let third = try #require(try await database.emailedCode(to: "ada3@example.com", kind: "change_email"))
            #expect(try await auth.pendingEmailChange(ada.principal)?.email == "ada3@example.com")
            #expect(try await auth.emailChangeAddress(token: third) == "ada3@example.com")
            try await auth.cancelEmailChange(ada.principal)
            #expect(try await auth.pendingEmailChange(ada.principal) == nil)
            #expect(try await auth.emailChangeAddress(token: third) == nil)
            await #expect(
                throws: SpotterError.tooManyRequests(
                    "3 address changes were asked for in the last hour; use a link already sent, or try again later",
                    retryAfterSeconds: 3600)
            ) {
                try await auth.changeEmail(
                    ada.principal, password: "a much newer password", newEmail: "ada4@example.com", address: "a")
            }
        }
    }

    @Test(
        "DeleteAccount: the password again (and a code while two-factor is on), then every row of the tenant goes, its comments elsewhere too, and its tokens stop working"
    )
    func deleteOwnAccount() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            _ = try await register(auth, "cora", kind: .coach)
            let cora = try await auth.signIn(login: "cora", password: "long enough cora", deviceLabel: "", address: "a")
            _ = try await register(auth, "ada")
            let adaSignedIn = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
            let ada = adaSignedIn.principal
            // Cora coaches Ada and comments on her workout.
            let coaching = database.coachingService()
            try await coaching.link(cora.principal, ada, scopes: ["details"])
            let workout = try await database.trainingServices().workouts.log(
                ada, id: "", workoutDraft(at: Date(timeIntervalSince1970: 1_795_392_000)))
            _ = try await coaching.commentAsCoach(
                cora.principal, client: ada.tenantID.description, workoutID: workout.id.description,
                exerciseIndex: nil, setIndex: nil, body: "Strong")
            let enrollment = try await auth.beginTwoFactor(cora.principal)
            _ = try await auth.confirmTwoFactor(cora.principal, code: try appCode(enrollment, at: Date()))
            #expect(try await database.tablesHoldingRows(of: cora.principal.tenantID).count >= 4)
            // An operator's note naming her, which the erasure must not leave.
            try await database.asOwner { owner in
                try await owner.query(
                    """
                    INSERT INTO audit_log (actor_kind, actor, action, target_tenant_id, target, reason)
                    VALUES ('admin', 'op', 'tier.set', $1, 'cora', 'paid by cora@example.com (Cora)')
                    """, [cora.principal.tenantID.rawValue])
            }
            // Two-factor sign-in on: a new address needs a code too.
            await #expect(
                throws: SpotterError.invalid(
                    "code",
                    "is required while two-factor sign-in is on: a code from your authenticator app, or a recovery code"
                )
            ) {
                try await auth.changeEmail(
                    cora.principal, password: "long enough cora", newEmail: "cora@new.example", address: "b")
            }

            await #expect(throws: SpotterError.invalid("password", "is wrong")) {
                try await auth.deleteAccount(cora.principal, password: "long enough ada", code: "123456", address: "b")
            }
            await #expect(
                throws: SpotterError.invalidArgument([
                    FieldViolation(field: "password", reason: "is required"),
                    FieldViolation(
                        field: "code",
                        reason:
                            "is required while two-factor sign-in is on: a code from your authenticator app, or a recovery code"
                    ),
                ])
            ) {
                try await auth.deleteAccount(cora.principal, password: "", code: " ", address: "b")
            }
            await #expect(
                throws: SpotterError.invalid(
                    "code",
                    "is wrong or was already used (each code works once; the app shows a new one every 30 seconds)")
            ) {
                try await auth.deleteAccount(
                    cora.principal, password: "long enough cora", code: "000000", address: "b")
            }
            #expect(try await database.count("SELECT count(*)::int FROM tenants") == 2)

            let pseudonym = try await auth.deleteAccount(
                cora.principal, password: "long enough cora",
                code: TOTP.code(
                    secret: try #require(Base32.decode(enrollment.secret)), step: TOTP.step(at: Date()) + 1),
                address: "b")
            #expect(pseudonym == Erasure.pseudonym(cora.principal.tenantID))
            #expect(try await database.tablesHoldingRows(of: cora.principal.tenantID) == [])
            await #expect(throws: SpotterError.self) {
                try await auth.authenticate(accessToken: cora.tokens.accessToken)
            }
            await #expect(throws: SpotterError.self) { try await auth.refresh(refreshToken: cora.tokens.refreshToken) }
            // Ada is told, without Cora's name.
            let told = try await database.asOwner { owner in
                try await owner.query(
                    "SELECT recipient, body FROM email_outbox WHERE kind = 'coach_left'"
                ).map { (try $0.decode("recipient", as: String.self), try $0.decode("body", as: String.self)) }
            }
            #expect(told.map(\.0) == ["ada@example.com"])
            #expect(
                told.first?.1.hasPrefix("Hi ada,\n\none of your coaches on Spotter has deleted their account.") == true)
            #expect(told.first.map { !$0.1.lowercased().contains("cora") } == true)
            // Ada keeps her account and workout; Cora's comment on it and the link are gone.
            #expect(try await database.count("SELECT count(*)::int FROM workouts") == 1)
            #expect(try await database.count("SELECT count(*)::int FROM workout_comments") == 0)
            #expect(try await database.count("SELECT count(*)::int FROM coach_links") == 0)
            _ = try await auth.authenticate(accessToken: adaSignedIn.tokens.accessToken)
            // One audit row says so, under the pseudonym; nothing in the log names Cora.
            let audit = try await database.asOwner { owner in
                try await owner.query(
                    "SELECT actor_kind, actor, action, target, reason FROM audit_log WHERE action = 'account.delete'")
            }
            let row = try #require(audit.single)
            #expect(try row.decode("actor_kind", as: String.self) == "tenant")
            #expect(try row.decode("actor", as: String.self) == pseudonym)
            #expect(try row.decode("target", as: String.self) == pseudonym)
            #expect(try row.decode("reason", as: String.self) == "deleted by its owner")
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM audit_log WHERE target_tenant_id = $1",
                    [cora.principal.tenantID.rawValue])
                    == 0)
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM audit_log WHERE reason ILIKE '%cora%' AND reason NOT LIKE '%erased-%'")
                    == 0)
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM audit_log WHERE reason = $1", ["paid by \(pseudonym) (\(pseudonym))"])
                    == 1)
        }
    }

    @Test("a set-up begun again while a code is checked is not turned on with the newer key the code was not for")
    func twoFactorBegunAgain() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            _ = try await register(auth, "ada")
            let ada = try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
                .principal
            let store = PostgresAuthStore(database: SpotterDatabase(pool: database.appPool))
            _ = try await auth.beginTwoFactor(ada)
            // What a confirmation read and checked its code against, before another tab began again.
            let checked = try #require(try await store.twoFactor(ada)).secret
            let newer = try await auth.beginTwoFactor(ada)
            #expect(
                !(try await store.enableTwoFactor(ada, secret: checked, step: 1, recoveryCodeHashes: [], now: Date())))
            #expect(try await store.twoFactor(ada)?.enabledAt == nil)
            // The newest key's code turns it on.
            #expect(try await auth.confirmTwoFactor(ada, code: try appCode(newer, at: Date())).count == 10)
        }
    }

    @Test("two-factor sign-in: enrol, confirm, sign in with a code once, a recovery code once, disable with a code")
    func twoFactor() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
            let auth = database.authService(clock: clock)
            _ = try await register(auth, "ada")
            let ada = try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
                .principal

            let enrollment = try await auth.beginTwoFactor(ada)
            #expect(enrollment.provisioningURI.hasPrefix("otpauth://totp/Spotter:ada?secret="))
            // Not on until confirmed: sign-in still needs only the password.
            #expect(
                try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
                    .tokens.accessToken.hasPrefix("spa_"))
            await #expect(throws: SpotterError.invalid("code", "must be the six digits your authenticator app shows")) {
                try await auth.confirmTwoFactor(ada, code: "not a code")
            }
            let recovery = try await auth.confirmTwoFactor(ada, code: try appCode(enrollment, at: clock.now))
            #expect(recovery.count == 10)
            #expect(try await database.count("SELECT count(*)::int FROM mfa_recovery_codes") == 10)
            let stored = try await database.asOwner { connection in
                try await connection.query("SELECT sealed_secret FROM account_mfa").single!
                    .decode("sealed_secret", as: PostgresBytes.self).bytes
            }
            #expect(!stored.isEmpty && Base32.encode(stored) != enrollment.secret)
            await #expect(
                throws: SpotterError.failedPrecondition("two-factor sign-in is already on; turn it off first")
            ) {
                try await auth.beginTwoFactor(ada)
            }

            // The password alone now gets a challenge, not a session.
            func challenge() async throws -> String {
                let result = try await auth.signIn(
                    login: "ada", password: "long enough ada", deviceLabel: "laptop", address: "a")
                guard case .secondFactorRequired(let challenge, let expiresAt) = result else {
                    Issue.record("no challenge: \(result)")
                    return ""
                }
                #expect(expiresAt == clock.now.addingTimeInterval(300))
                return challenge
            }
            let first = try await challenge()
            let wrongOrUsed = SpotterError.unauthenticated(
                "code: is wrong or was already used (each code works once; the app shows a new one every 30 seconds)")
            // The code that confirmed the enrolment was used: replay refused.
            await #expect(throws: wrongOrUsed) {
                try await auth.completeSignIn(challenge: first, code: try appCode(enrollment, at: clock.now))
            }
            // The next step's code (the app's clock 30 s ahead) is accepted, once.
            let next = try appCode(enrollment, at: clock.now.addingTimeInterval(30))
            let session = try await auth.completeSignIn(challenge: first, code: next)
            #expect(session.principal.tenantID == ada.tenantID && session.deviceToken != nil)
            #expect(try await auth.authenticate(accessToken: session.accessToken).tenantID == ada.tenantID)
            let spent = SpotterError.unauthenticated(
                "the sign-in challenge is unknown, used, expired or tried too often")
            await #expect(throws: spent) { try await auth.completeSignIn(challenge: first, code: next) }
            await #expect(throws: wrongOrUsed) {
                try await auth.completeSignIn(challenge: try await challenge(), code: next)
            }

            // A recovery code works once.
            _ = try await auth.completeSignIn(challenge: try await challenge(), code: recovery[0].uppercased())
            await #expect(throws: wrongOrUsed) {
                try await auth.completeSignIn(challenge: try await challenge(), code: recovery[0])
            }

            // A challenge takes five codes; five wrong codes in a row lock the second step.
            let tried = try await challenge()
            for _ in 0..<4 {
                await #expect(throws: wrongOrUsed) { try await auth.completeSignIn(challenge: tried, code: "000000") }
            }
            let locked = await #expect(throws: SpotterError.self) {
                try await auth.completeSignIn(challenge: tried, code: "000001")
            }
            #expect(locked == .tooManyRequests("too many wrong codes; try again in 30 seconds", retryAfterSeconds: 30))
            await #expect(throws: spent) { try await auth.completeSignIn(challenge: tried, code: recovery[1]) }
            clock.advance(by: 31)
            // An expired challenge is refused too.
            let late = try await challenge()
            clock.advance(by: 301)
            await #expect(throws: spent) { try await auth.completeSignIn(challenge: late, code: recovery[1]) }

            // Turning it off needs a code; then the password is enough again.
            // (A sixth wrong code in a row doubles the wait.)
            await #expect(
                throws: SpotterError.invalid(
                    "code",
                    "is wrong or was already used (each code works once; the app shows a new one every 30 seconds)")
            ) {
                try await auth.disableTwoFactor(ada, code: "123456")
            }
            await #expect(
                throws: SpotterError.tooManyRequests(
                    "too many wrong codes; try again in 60 seconds", retryAfterSeconds: 60)
            ) { try await auth.disableTwoFactor(ada, code: recovery[1]) }
            clock.advance(by: 61)
            try await auth.disableTwoFactor(ada, code: recovery[1])
            #expect(try await database.count("SELECT count(*)::int FROM account_mfa") == 0)
            #expect(try await database.count("SELECT count(*)::int FROM mfa_recovery_codes") == 0)
            _ = try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a").tokens
        }
    }

    @Test("recovery codes are replaced with a code from the app: the old ones stop working, the new ones work")
    func regenerateRecoveryCodes() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
            let auth = database.authService(clock: clock)
            _ = try await register(auth, "ada")
            let ada = try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
                .principal
            await #expect(throws: SpotterError.failedPrecondition("two-factor sign-in is not on")) {
                try await auth.regenerateRecoveryCodes(ada, code: "123456")
            }
            let enrollment = try await auth.beginTwoFactor(ada)
            let old = try await auth.confirmTwoFactor(ada, code: try appCode(enrollment, at: clock.now))
            await #expect(throws: SpotterError.invalid("code", "must be the six digits your authenticator app shows")) {
                try await auth.regenerateRecoveryCodes(ada, code: old[0])
            }
            clock.advance(by: 31)
            let new = try await auth.regenerateRecoveryCodes(ada, code: try appCode(enrollment, at: clock.now))
            #expect(new.count == 10 && Set(new).isDisjoint(with: old))
            #expect(try await database.count("SELECT count(*)::int FROM mfa_recovery_codes") == 10)
            // Signed in, a wrong code is the request's field, not a signed-out token.
            await #expect(
                throws: SpotterError.invalid(
                    "code",
                    "is wrong or was already used (each code works once; the app shows a new one every 30 seconds)")
            ) {
                try await auth.disableTwoFactor(ada, code: old[1])
            }
            try await auth.disableTwoFactor(ada, code: new[0])
            #expect(try await database.count("SELECT count(*)::int FROM account_mfa") == 0)
        }
    }

    @Test("a taken e-mail or username is refused before any password is hashed, and counts against the address")
    func duplicatesBeforeHashing() async throws {
        try await TestDatabase.with { database in
            _ = try await register(database.authService(), "ada")
            let (hasher, release) = try await busyHasher()
            defer { release() }
            var policy = AuthPolicy()
            policy.addressMaxFailures = 3
            let auth = database.authService(policy: policy, hasher: hasher)
            await #expect(throws: SpotterError.alreadyExists(field: "email", reason: "is already taken")) {
                try await auth.register(
                    .init(
                        email: "ada@example.com", username: "ada2", password: "long enough pw", kind: .lifter,
                        address: "203.0.113.9"))
            }
            await #expect(throws: SpotterError.alreadyExists(field: "username", reason: "is already taken")) {
                try await auth.register(
                    .init(
                        email: "ada2@example.com", username: "ADA", password: "long enough pw", kind: .lifter,
                        address: "203.0.113.9"))
            }
            await #expect(throws: SpotterError.alreadyExists(field: "email", reason: "is already taken")) {
                try await auth.register(
                    .init(
                        email: "ada@example.com", username: "ada3", password: "long enough pw", kind: .lifter,
                        address: "203.0.113.9"))
            }
            // Three failures: the address now waits, before any lookup.
            let blocked = await #expect(throws: SpotterError.self) {
                try await auth.register(
                    .init(
                        email: "new@example.com", username: "newbie", password: "long enough pw", kind: .lifter,
                        address: "203.0.113.9"))
            }
            if case .tooManyRequests(let message, _) = blocked {
                #expect(message.hasPrefix("too many failed sign-ins"))
            } else {
                Issue.record("address not blocked: \(String(describing: blocked))")
            }
            // A new address gets as far as hashing, which the held slot refuses: proof of the above.
            await #expect(
                throws: SpotterError.tooManyRequests(
                    "the server is busy checking passwords; try again in a second", retryAfterSeconds: 1)
            ) {
                try await auth.register(
                    .init(
                        email: "new@example.com", username: "newbie", password: "long enough pw", kind: .lifter,
                        address: "203.0.113.10"))
            }
        }
    }

    /// A hasher whose one scrypt slot is held by other work, with no line: anything that hashes is
    /// refused at once with tooManyRequests until `release` is called.
    private func busyHasher() async throws -> (PasswordHasher, @Sendable () -> Void) {
        let limiter = ConcurrencyLimiter(limit: 1, maxWaiting: 0, work: PasswordHasher.work)
        let holding = Flag()
        let gate = DispatchSemaphore(value: 0)
        let slot = Task {
            try await limiter.run {
                holding.set()
                gate.wait()
            }
        }
        // Up to 30 s: on a loaded two-core machine the slot's task once took more than 5 s to start.
        for _ in 0..<3000 where !holding.isSet { try await Task.sleep(for: .milliseconds(10)) }
        try #require(holding.isSet)
        return (
            PasswordHasher(cost: .testing, limiter: limiter),
            {
                gate.signal(); slot.cancel()
            }
        )
    }

    @Test("a sign-in the server is too busy to check counts against nobody: not the account, not the address")
    func busyServerCountsNothing() async throws {
        try await TestDatabase.with { database in
            _ = try await register(database.authService(), "ada")
            let (hasher, release) = try await busyHasher()
            defer { release() }
            var policy = AuthPolicy()
            policy.addressMaxFailures = 2
            let auth = database.authService(policy: policy, hasher: hasher)
            for login in ["ada", "ada", "ada", "nobody", "nobody"] {
                await #expect(
                    throws: SpotterError.tooManyRequests(
                        "the server is busy checking passwords; try again in a second", retryAfterSeconds: 1)
                ) {
                    try await auth.signIn(
                        login: login, password: "long enough ada", deviceLabel: "", address: "192.0.2.7")
                }
            }
            #expect(try await database.count("SELECT failed_sign_ins FROM accounts") == 0)
            #expect(try await database.count("SELECT coalesce(sum(failures), 0)::int FROM sign_in_failures") == 0)
            #expect(
                try await database.count("SELECT coalesce(sum(failures), 0)::int FROM sign_in_address_failures") == 0)
        }
    }

    @Test("a login with '@' is only ever an e-mail and one without only a username; the schema keeps them apart")
    func loginRouting() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            _ = try await register(auth, "bob")
            #expect(
                try await database.count(
                    "SELECT count(*) FROM accounts WHERE tenant_id = spotter_tenant_for_login('bob')") == 1)
            #expect(
                try await database.count(
                    "SELECT count(*) FROM accounts WHERE tenant_id = spotter_tenant_for_login('BOB@example.com')") == 1)
            #expect(
                try await database.count(
                    "SELECT count(*) FROM accounts WHERE tenant_id = spotter_tenant_for_login('bob@')") == 0)
            try await database.asOwner { owner in
                try await owner.query(
                    "INSERT INTO tenants (tenant_id, kind, display_name) VALUES ('00000000-0000-4000-8000-0000000000ee', 'lifter', 'Eve')"
                )
                for (email, username) in [("bob", "eve"), ("eve@example.com", "eve@x")] {
                    let error = await #expect(throws: PostgresError.self) {
                        try await owner.query(
                            """
                            INSERT INTO accounts (tenant_id, account_id, email, username, password_hash)
                            VALUES ('00000000-0000-4000-8000-0000000000ee', gen_random_uuid(), $1, $2, 'x')
                            """, [email, username])
                    }
                    #expect(error?.sqlState == "23514", "\(String(describing: error))")
                }
            }
        }
    }

    @Test("too many failures from one address block that address, not others")
    func addressThrottling() async throws {
        try await TestDatabase.with { database in
            var policy = AuthPolicy()
            policy.addressMaxFailures = 3
            let auth = database.authService(policy: policy)
            _ = try await register(auth, "ada")
            for name in ["x1", "x2", "x3"] {
                await #expect(throws: SpotterError.self) {
                    try await auth.signIn(login: name, password: "whatever1", deviceLabel: "", address: "198.51.100.7")
                }
            }
            let blocked = await #expect(throws: SpotterError.self) {
                try await auth.signIn(
                    login: "ada", password: "long enough ada", deviceLabel: "", address: "198.51.100.7")
            }
            if case .tooManyRequests = blocked {
            } else {
                Issue.record("address not blocked: \(String(describing: blocked))")
            }
            _ = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "", address: "198.51.100.8")
        }
    }

    @Test("refresh rotates tokens; reusing an old refresh token revokes the whole session")
    func refreshRotationAndReuse() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            _ = try await register(auth, "ada")
            let first = try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
            let second = try await auth.refresh(refreshToken: first.refreshToken)
            #expect(second.accessToken != first.accessToken)
            await #expect(throws: SpotterError.self) { try await auth.authenticate(accessToken: first.accessToken) }
            _ = try await auth.authenticate(accessToken: second.accessToken)
            await #expect(throws: SpotterError.unauthenticated("the refresh token is not valid; sign in again")) {
                try await auth.refresh(refreshToken: first.refreshToken)
            }
            // The thief's reuse ended the session for everyone holding its tokens.
            await #expect(throws: SpotterError.self) { try await auth.authenticate(accessToken: second.accessToken) }
            await #expect(throws: SpotterError.self) { try await auth.refresh(refreshToken: second.refreshToken) }
        }
    }

    @Test("an expired access token is refused")
    func expiredAccessToken() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock()
            let auth = database.authService(clock: clock)
            _ = try await register(auth, "ada")
            let tokens = try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
            clock.advance(by: 16 * 60)
            await #expect(throws: SpotterError.self) { try await auth.authenticate(accessToken: tokens.accessToken) }
            let renewed = try await auth.refresh(refreshToken: tokens.refreshToken)
            _ = try await auth.authenticate(accessToken: renewed.accessToken)
        }
    }

    @Test("a call noting its session's use never makes another call with the same token wait for it")
    func sessionUseNeverWaits() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock()
            let auth = database.authService(clock: clock)
            _ = try await register(auth, "ada")
            let tokens = try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
            // The session's last use is two minutes old, so the next token check notes this one.
            clock.advance(by: 120)
            let check = "SELECT tenant_id FROM spotter_authenticate($1, $2)"
            let parameters: [any PostgresEncodable] = [PostgresBytes(Token.hash(tokens.accessToken)), clock.now]
            let app = database.ownerConfiguration.with(role: "spotter_app")
            let first = try await PostgresConnection.connect(app)
            let second = try await PostgresConnection.connect(app)
            defer {
                Task {
                    await first.close()
                    await second.close()
                }
            }
            // One call's transaction checks the token (and notes the use) and is still running.
            _ = try await first.execute("BEGIN")
            #expect(try await first.query(check, parameters).count == 1)
            // A second call with the same token meanwhile is answered at once, not after the first.
            _ = try await second.execute("SET lock_timeout = '2s'")
            #expect(try await second.query(check, parameters).count == 1)
            _ = try await first.execute("COMMIT")
            let used: Date? = try await database.asOwner { owner in
                try await owner.query("SELECT last_used_at FROM sessions").single?.decode("last_used_at")
            }
            #expect(used.map { abs($0.timeIntervalSince(clock.now)) < 0.001 } == true)
        }
    }

    @Test("a tenant cannot list or revoke another tenant's sessions")
    func sessionsAreIsolated() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            _ = try await register(auth, "ada")
            _ = try await register(auth, "bob")
            let ada = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "ada's phone", address: "a")
            let bob = try await auth.signIn(
                login: "bob", password: "long enough bob", deviceLabel: "bob's phone", address: "a")
            let bobSessions = try await auth.sessions(bob.principal)
            #expect(bobSessions.map(\.deviceLabel) == ["bob's phone"])
            let adaSession = try #require(ada.principal.sessionID)
            await #expect(throws: SpotterError.notFound("session \(adaSession) not found")) {
                try await auth.revokeSession(bob.principal, adaSession)
            }
            _ = try await auth.authenticate(accessToken: ada.accessToken)
            try await auth.signOut(ada.principal)
            await #expect(throws: SpotterError.self) { try await auth.authenticate(accessToken: ada.accessToken) }
        }
    }

    @Test("a password reset says nothing about unknown addresses, works once, and signs out every device")
    func passwordReset() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            _ = try await register(auth, "ada")
            let session = try await auth.signIn(
                login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
            try await auth.requestPasswordReset(email: "nobody@example.com")
            #expect(
                try await database.count("SELECT count(*)::int FROM email_outbox WHERE kind = 'reset_password'") == 0)
            try await auth.requestPasswordReset(email: "Ada@Example.com")
            let code = try #require(try await database.emailedCode(to: "ada@example.com", kind: "reset_password"))
            await #expect(throws: SpotterError.self) {
                try await auth.completePasswordReset(token: code, newPassword: "short")
            }
            try await auth.completePasswordReset(token: code, newPassword: "a brand new secret")
            await #expect(throws: SpotterError.self) { try await auth.authenticate(accessToken: session.accessToken) }
            await #expect(throws: SpotterError.self) {
                try await auth.completePasswordReset(token: code, newPassword: "another new secret")
            }
            _ = try await auth.signIn(login: "ada", password: "a brand new secret", deviceLabel: "", address: "a")
        }
    }

    @Test("using a reset link ends every earlier one; an account gets three reset e-mails an hour")
    func resetLinksAndLimits() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock()
            let auth = database.authService(clock: clock)
            _ = try await register(auth, "ada")
            var codes: [String] = []
            for _ in 0..<5 {
                try await auth.requestPasswordReset(email: "ada@example.com", address: "198.51.100.1")
                if let code = try await database.emailedCode(to: "ada@example.com", kind: "reset_password"),
                    !codes.contains(code)
                {
                    codes.append(code)
                }
            }
            #expect(codes.count == 3)
            #expect(
                try await database.count("SELECT count(*)::int FROM email_outbox WHERE kind = 'reset_password'") == 3)
            try await auth.completePasswordReset(token: codes[2], newPassword: "a brand new secret")
            for earlier in codes[0..<2] {
                await #expect(throws: SpotterError.notFound("the reset token is unknown, used or expired")) {
                    try await auth.completePasswordReset(token: earlier, newPassword: "a thief's secret")
                }
            }
            clock.advance(by: 7200)  // well past the hour, whatever the database's clock said meanwhile
            try await auth.requestPasswordReset(email: "ada@example.com", address: "198.51.100.1")
            #expect(
                try await database.count("SELECT count(*)::int FROM email_outbox WHERE kind = 'reset_password'") == 4)
        }
    }

    @Test("a disabled account's tokens stop working and it cannot sign in")
    func disabledAccount() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            _ = try await register(auth, "ada")
            let tokens = try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
            let owner = try await database.ownerConnection()
            try await owner.query("UPDATE accounts SET status = 'disabled'")
            await owner.close()
            await #expect(throws: SpotterError.self) { try await auth.authenticate(accessToken: tokens.accessToken) }
            await #expect(throws: SpotterError.unauthenticated("this account is disabled")) {
                try await auth.signIn(login: "ada", password: "long enough ada", deviceLabel: "", address: "a")
            }
        }
    }

    @Test("profiles: each tenant reads and updates only its own")
    func profiles() async throws {
        try await TestDatabase.with { database in
            let auth = database.authService()
            let ada = try await register(auth, "ada")
            let bob = try await register(auth, "bob", kind: .coach)
            let accounts = AccountService(
                store: PostgresProfileStore(database: SpotterDatabase(pool: database.appPool)))
            let updated = try await accounts.updateProfile(
                ada, ProfileUpdate(displayName: " Ada L. ", timeZone: "Europe/London", unit: .lb))
            #expect(updated.displayName == "Ada L.")
            #expect(updated.timeZone == "Europe/London")
            #expect(updated.unit == .lb)
            let bobProfile = try await accounts.profile(bob)
            #expect(bobProfile.displayName == "bob")
            #expect(bobProfile.kind == .coach)
            // A principal mixing Bob's tenant with Ada's account finds nothing.
            await #expect(throws: SpotterError.notFound("profile not found")) {
                try await accounts.profile(Principal(tenantID: bob.tenantID, accountID: ada.accountID))
            }
            await #expect(throws: SpotterError.self) {
                try await accounts.updateProfile(ada, ProfileUpdate(displayName: "", timeZone: "Atlantis/Capital"))
            }
        }
    }
}
