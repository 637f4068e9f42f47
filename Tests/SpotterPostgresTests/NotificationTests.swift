import Foundation
import Logging
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

@Suite("E-mail notifications of coaching news")
struct NotificationTests {
    /// The coaching e-mails in `tenant`'s outbox, oldest first, as "kind: subject" (or another
    /// `column`; "none" where it is empty).
    private func outbox(_ database: TestDatabase, _ tenant: Principal, _ column: String = "subject") async throws
        -> [String]
    {
        try await database.asOwner { owner in
            try await owner.query(
                "SELECT kind, \(column) AS shown FROM email_outbox WHERE tenant_id = $1 AND sender_id IS NOT NULL ORDER BY created_at, kind",
                [tenant.tenantID.rawValue]
            ).map { "\(try $0.decode("kind", as: String.self)): \(try $0.decode("shown", as: String?.self) ?? "none")" }
        }
    }

    /// The pages the e-mails in `tenant`'s outbox link to, oldest first, as "kind: path".
    private func links(_ database: TestDatabase, _ tenant: Principal) async throws -> [String] {
        try await outbox(database, tenant, "link_path")
    }

    private func verify(_ database: TestDatabase, _ accounts: [Principal]) async throws {
        try await database.asOwner { owner in
            try await owner.query(
                "UPDATE accounts SET email_verified_at = now() WHERE tenant_id = ANY($1::uuid[])",
                [accounts.map(\.tenantID.rawValue)])
        }
    }

    @Test(
        "requests, acceptances and comments are e-mailed to the other side: once an hour per workout, only to a confirmed address, never after turning them off"
    )
    func coachingNews() async throws {
        try await TestDatabase.with { database in
            let coaching = database.coachingService()
            let accounts = database.accountService()
            let cora = try await database.lifter("cora", kind: .coach)
            let ada = try await database.lifter("ada")
            let bob = try await database.lifter("bob")
            try await verify(database, [cora, ada])
            try await database.setTier(cora, .coach)
            _ = try await accounts.updateProfile(cora, ProfileUpdate(displayName: "Cora Coach"))
            _ = try await accounts.updateProfile(ada, ProfileUpdate(displayName: "Ada L"))

            _ = try await coaching.requestCoach(ada, username: "cora", scopes: ["history", "details"])
            #expect(try await outbox(database, cora) == ["coach_request: Ada L asked you to coach them"])
            let request = try await database.asOwner { owner in
                try await owner.query(
                    "SELECT recipient, body FROM email_outbox WHERE tenant_id = $1 AND kind = 'coach_request'",
                    [cora.tenantID.rawValue]
                ).single
            }
            #expect(try request?.decode("recipient", as: String.self) == "cora@example.com")
            let body = try #require(try request?.decode("body", as: String.self))
            #expect(
                body.hasPrefix(
                    "Hi Cora Coach,\n\nAda L asked you to coach them on Spotter, offering to share: workout names, dates and durations, every set."
                ))
            #expect(body.contains(#"untick "E-mail me coaching news" on the Profile page"#))
            _ = try await coaching.respond(cora, other: ada.tenantID.description, accept: true, scopes: [])
            #expect(try await outbox(database, ada) == ["coach_accepted: Cora Coach is now your coach"])

            let squat = try await database.trainingServices().workouts.log(
                ada, id: "", workoutDraft("Squat day", at: Date()))
            for text in ["Brace harder", "And slower down"] {
                _ = try await coaching.commentAsCoach(
                    cora, client: ada.tenantID.description, workoutID: squat.id.description, exerciseIndex: nil,
                    setIndex: nil, body: text)
            }
            #expect(
                try await outbox(database, ada).suffix(1) == [
                    "workout_comment: Cora Coach commented on your workout “Squat day”"
                ],
                "one e-mail for two comments within the hour")
            _ = try await coaching.comment(
                ada, workoutID: squat.id.description, exerciseIndex: nil, setIndex: nil, body: "Will do")
            #expect(
                try await outbox(database, cora).suffix(1) == [
                    "workout_reply: Ada L wrote on their workout “Squat day”"
                ])

            // Turned off: nothing more.
            _ = try await accounts.updateProfile(ada, ProfileUpdate(emailNotifications: false))
            #expect(try await accounts.profile(ada).emailNotifications == false)
            let bench = try await database.trainingServices().workouts.log(
                ada, id: "", workoutDraft("Bench day", at: Date()))
            _ = try await coaching.commentAsCoach(
                cora, client: ada.tenantID.description, workoutID: bench.id.description, exerciseIndex: nil,
                setIndex: nil, body: "Nice")
            #expect(try await outbox(database, ada).count == 2)

            // An unconfirmed address gets nothing: Bob asked for, then joining with a code.
            _ = try await coaching.inviteClient(cora, username: "bob")
            #expect(try await outbox(database, bob).isEmpty)
            // Confirmed, and asked again the same day: the invitation he never got is e-mailed.
            try await verify(database, [bob])
            _ = try await coaching.endLink(cora, other: bob.tenantID.description)
            _ = try await coaching.inviteClient(cora, username: "bob")
            #expect(try await outbox(database, bob) == ["coach_invitation: Cora Coach asked to coach you"])
            let carl = try await database.lifter("carl")
            try await verify(database, [carl])
            _ = try await database.coachingService().link(cora, carl, scopes: ["history"])
            #expect(try await outbox(database, cora).suffix(1) == ["client_joined: carl joined you as a client"])

            // Each links to its page in the portal, but a coach's comment, which has none.
            #expect(
                try await links(database, cora) == [
                    "coach_request: /clients", "workout_reply: /clients/\(ada.tenantID)/workouts/\(squat.id)#comments",
                    "client_joined: /clients/\(carl.tenantID)",
                ])
            #expect(try await links(database, ada) == ["coach_accepted: /coaches", "workout_comment: none"])

            // Carl's joining with a code was e-mailed to Cora; it does not hold back her invitation to
            // Carl after he left, which he never got (an invitation of hers never went out).
            try await database.asOwner { try await $0.query("UPDATE email_outbox SET status = 'sent'") }
            _ = try await coaching.endLink(carl, other: cora.tenantID.description)
            _ = try await coaching.inviteClient(cora, username: "carl")
            #expect(try await outbox(database, carl) == ["coach_invitation: Cora Coach asked to coach you"])

            // The coach's erasure takes every e-mail naming her out of her clients' outboxes.
            let admin = AdminService(
                store: PostgresAdminStore(pool: database.adminPool), hasher: PasswordHasher(cost: .testing),
                policy: AuthPolicy())
            _ = try await admin.erase("cora", actor: AdminActor(operatorName: "ops", osUser: "root"), reason: "erasure")
            #expect(try await outbox(database, ada).isEmpty)
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM email_outbox WHERE subject LIKE '%Cora Coach%' OR body LIKE '%Cora Coach%'"
                )
                    == 0)
        }
    }

    @Test(
        "an invitation and its acceptance link to the Coaches and the client's page; the mailer sends the address before the footer"
    )
    func linksAsSent() async throws {
        try await TestDatabase.with { database in
            let coaching = database.coachingService()
            let cora = try await database.lifter("cora", kind: .coach)
            let dan = try await database.lifter("dan")
            try await verify(database, [cora, dan])
            try await database.setTier(cora, .coach)
            let pool = PostgresPool(
                configuration: database.ownerConfiguration.with(role: "spotter_mailer"), logger: Logger(label: "test"))
            let sent = SentMail()
            var delivery = MailDelivery(
                sender: "no-reply@spotter.test", store: PostgresOutboxStore(pool: pool), transport: sent,
                logger: Logger(label: "test"))
            delivery.portal = "https://coach.example"

            // Sent before Dan answers (an answered invitation is withdrawn), then the answer.
            _ = try await coaching.inviteClient(cora, username: "dan")
            #expect(try await links(database, dan) == ["coach_invitation: /coaches"])
            _ = try await delivery.deliverDue()
            _ = try await coaching.respond(dan, other: cora.tenantID.description, accept: true, scopes: ["history"])
            #expect(try await links(database, cora) == ["client_accepted: /clients/\(dan.tenantID)"])
            _ = try await delivery.deliverDue()
            await pool.shutdown()
            let accepted =
                "They are on the Clients page of the Spotter portal.\n\nhttps://coach.example/clients/\(dan.tenantID)\n\n--\nYou get this e-mail"
            #expect(sent.bodies["cora@example.com", default: []].contains { $0.contains(accepted) }, "\(sent.bodies)")
            let invited =
                "of the Spotter portal. Nothing of yours is shared until you accept.\n\nhttps://coach.example/coaches\n\n--\n"
            #expect(sent.bodies["dan@example.com", default: []].contains { $0.contains(invited) }, "\(sent.bodies)")
        }
    }

    @Test(
        "a lifter hears of a plan assigned (the coach's note included, once a day, withdrawn when taken back); a coach hears a client ended the coaching (withdrawn when linked again)"
    )
    func plansAndLeaving() async throws {
        try await TestDatabase.with { database in
            let coaching = database.coachingService()
            let training = database.trainingServices()
            let cora = try await database.lifter("cora", kind: .coach)
            let ada = try await database.lifter("ada")
            try await verify(database, [cora, ada])
            try await database.setTier(cora, .coach)
            try await coaching.link(cora, ada, scopes: ["history"])
            func withdraw() async throws -> Int {
                try await database.asOwner { owner in
                    try await owner.query("SELECT spotter_withdraw_stale_notifications() AS n").single?.decode(
                        "n", as: Int.self) ?? -1
                }
            }
            let draft = TemplateDraft(
                name: "Upper A",
                items: [TemplateItemDraft(exerciseID: Catalog.benchPress.description, targetSets: 3, repsMin: 5)])
            let upper = try await training.templates.create(cora, id: "", draft)
            let program = try await coaching.createProgram(
                cora, id: "",
                ProgramDraft(
                    name: "Peaking block", notes: "", weeks: 1,
                    days: [.init(week: 1, weekday: 1, templateID: upper.id.description)]))
            let assigned = try await coaching.assign(
                cora, client: ada.tenantID.description, templateID: "", programID: program.id.description,
                note: "Start Monday, light.")
            #expect(try await outbox(database, ada) == ["plan_assigned: cora assigned you the program “Peaking block”"])
            #expect(try await links(database, ada) == ["plan_assigned: /coaches"])
            let body = try await outbox(database, ada, "body").first ?? ""
            #expect(
                body.contains(
                    "cora, your coach on Spotter, assigned you the program “Peaking block”, with a note:\n\nStart Monday, light.\n\nFollow it in the app"
                ), "\(body)")
            // A second plan while the first's e-mail waits is e-mailed too; the first taken back
            // before it went out is withdrawn, and the second still goes.
            let second = try await coaching.assign(
                cora, client: ada.tenantID.description, templateID: upper.id.description, programID: "", note: "")
            #expect(try await outbox(database, ada).count == 2)
            try await coaching.unassign(cora, id: assigned.id.uuidString)
            #expect(try await withdraw() == 1)
            #expect(try await outbox(database, ada) == ["plan_assigned: cora assigned you the template “Upper A”"])
            // Once one went out, another the same day is not e-mailed.
            try await database.asOwner { try await $0.query("UPDATE email_outbox SET status = 'sent'") }
            try await coaching.unassign(cora, id: second.id.uuidString)
            _ = try await coaching.assign(
                cora, client: ada.tenantID.description, templateID: upper.id.description, programID: "", note: "")
            #expect(try await outbox(database, ada).count == 1)
            try await database.asOwner { try await $0.query("DELETE FROM email_outbox") }

            // Ada ends the coaching: Cora hears of it, with her Clients page.
            try await database.asOwner { try await $0.query("UPDATE email_outbox SET status = 'sent'") }
            _ = try await coaching.endLink(ada, other: cora.tenantID.description)
            #expect(
                try await outbox(database, cora).filter { $0.hasPrefix("client_left") }
                    == ["client_left: ada ended coaching with you"])
            #expect(try await links(database, cora).filter { $0.hasPrefix("client_left") } == ["client_left: /clients"])
            #expect(try await withdraw() == 0)
            // Linked again before it was sent: withdrawn.
            try await coaching.link(cora, ada, scopes: ["history"])
            #expect(try await withdraw() == 1)
            // A coach ending it hears nothing of it; a lifter withdrawing a request is no client leaving.
            _ = try await coaching.endLink(cora, other: ada.tenantID.description)
            _ = try await coaching.requestCoach(ada, username: "cora", scopes: ["history"])
            _ = try await coaching.endLink(ada, other: cora.tenantID.description)
            #expect(try await outbox(database, cora).allSatisfy { !$0.hasPrefix("client_left") })
        }
    }

    @Test("a lifter's reply reaches only coaches who commented on that workout, still coach them and see details")
    func replyRecipients() async throws {
        try await TestDatabase.with { database in
            let coaching = database.coachingService()
            let cora = try await database.lifter("cora", kind: .coach)
            let dan = try await database.lifter("dan", kind: .coach)
            let ada = try await database.lifter("ada")
            try await verify(database, [cora, dan, ada])
            _ = try await coaching.link(cora, ada, scopes: ["details"])
            _ = try await coaching.link(dan, ada, scopes: ["details"])
            let workout = try await database.trainingServices().workouts.log(ada, id: "", workoutDraft(at: Date()))
            _ = try await coaching.commentAsCoach(
                cora, client: ada.tenantID.description, workoutID: workout.id.description, exerciseIndex: nil,
                setIndex: nil, body: "Good")
            _ = try await coaching.comment(
                ada, workoutID: workout.id.description, exerciseIndex: nil, setIndex: nil, body: "Thanks")
            #expect(try await outbox(database, cora).filter { $0.hasPrefix("workout_reply") }.count == 1)
            #expect(try await outbox(database, dan).filter { $0.hasPrefix("workout_reply") }.isEmpty)

            // A coach whose tier no longer covers the lifter (paused: the lifter joined after the
            // clients the tier covers) cannot read the reply in the app, so is not e-mailed it.
            let eve = try await database.lifter("eve", kind: .coach)
            let bob = try await database.lifter("bob")
            try await verify(database, [eve])
            try await database.setTier(eve, .coach)
            _ = try await coaching.link(eve, bob, scopes: ["details"])
            _ = try await coaching.link(eve, ada, scopes: ["details"])
            let another = try await database.trainingServices().workouts.log(ada, id: "", workoutDraft(at: Date()))
            _ = try await coaching.commentAsCoach(
                eve, client: ada.tenantID.description, workoutID: another.id.description, exerciseIndex: nil,
                setIndex: nil, body: "Deeper")
            try await database.setTier(eve, .free)
            _ = try await coaching.comment(
                ada, workoutID: another.id.description, exerciseIndex: nil, setIndex: nil, body: "My knee hurts")
            #expect(try await outbox(database, eve).filter { $0.hasPrefix("workout_reply") }.isEmpty)
        }
    }

    @Test(
        "an e-mail waiting to be sent is withdrawn when its news no longer holds; a reply e-mailed is in the lifter's access log; each coach's comment is e-mailed; a request repeated is e-mailed once a day"
    )
    func withdrawalAndLimits() async throws {
        try await TestDatabase.with { database in
            let coaching = database.coachingService()
            let cora = try await database.lifter("cora", kind: .coach)
            let dan = try await database.lifter("dan", kind: .coach)
            let ada = try await database.lifter("ada")
            try await verify(database, [cora, dan, ada])
            func withdraw() async throws -> Int {
                try await database.asOwner { owner in
                    try await owner.query("SELECT spotter_withdraw_stale_notifications() AS n").single?.decode(
                        "n", as: Int.self) ?? -1
                }
            }
            // Asked, withdrawn, asked again: one e-mail, the first withdrawn with its request before it went out.
            _ = try await coaching.requestCoach(ada, username: "cora", scopes: ["details"])
            _ = try await coaching.endLink(ada, other: cora.tenantID.description)
            #expect(try await withdraw() == 1)
            _ = try await coaching.requestCoach(ada, username: "cora", scopes: ["details"])
            #expect(
                try await outbox(database, cora) == ["coach_request: ada asked you to coach them"],
                "the standing request is e-mailed: the first never went out")
            // Once one has gone out, another within the day is not e-mailed.
            try await database.asOwner { try await $0.query("UPDATE email_outbox SET status = 'sent'") }
            _ = try await coaching.endLink(ada, other: cora.tenantID.description)
            _ = try await coaching.requestCoach(ada, username: "cora", scopes: ["details"])
            #expect(try await outbox(database, cora).count == 1, "a third request within a day is not e-mailed")
            _ = try await coaching.respond(cora, other: ada.tenantID.description, accept: true, scopes: [])
            _ = try await coaching.link(dan, ada, scopes: ["details"])

            let workout = try await database.trainingServices().workouts.log(ada, id: "", workoutDraft(at: Date()))
            func comment(_ coach: Principal, _ text: String) async throws -> WorkoutComment {
                try await coaching.commentAsCoach(
                    coach, client: ada.tenantID.description, workoutID: workout.id.description, exerciseIndex: nil,
                    setIndex: nil, body: text)
            }
            let first = try await comment(cora, "Good")
            _ = try await comment(dan, "Agreed")
            #expect(
                try await outbox(database, ada).filter { $0.hasPrefix("workout_comment") }.count == 2,
                "one for each coach")
            // The lifter deletes Cora's comment before it is sent: its e-mail is withdrawn.
            try await coaching.deleteComment(ada, id: first.id.uuidString)
            #expect(try await withdraw() == 1)
            #expect(try await outbox(database, ada).filter { $0.hasPrefix("workout_comment") }.count == 1)

            // Ada writes under it: Dan is e-mailed, and Ada's access log says so.
            _ = try await comment(dan, "Deeper next time")
            _ = try await coaching.comment(
                ada, workoutID: workout.id.description, exerciseIndex: nil, setIndex: nil, body: "My knee hurts")
            #expect(try await outbox(database, dan).filter { $0.hasPrefix("workout_reply") }.count == 1)
            let log = try await coaching.accessLog(ada, coach: "", pageSize: 10, pageToken: "")
            #expect(log.items.contains { $0.method == "ReplyEmail" && $0.coachID == dan.tenantID })
            // Ada ends Dan's coaching before it is sent: withdrawn.
            _ = try await coaching.endLink(ada, other: dan.tenantID.description)
            #expect(try await withdraw() == 2, "the reply, and Dan's news that Ada joined")
            #expect(try await outbox(database, dan).filter { $0.hasPrefix("workout_reply") }.isEmpty)
        }
    }

    @Test("the client limits the database's reply e-mails go by are CoachEntitlements'; an expired tier counts as free")
    func limitsAgree() async throws {
        try await TestDatabase.with { database in
            try await database.asOwner { owner in
                for tier in Tier.allCases {
                    let limits = try await owner.query(
                        """
                        SELECT spotter_coach_client_limit($1, NULL) AS now,
                               spotter_coach_client_limit($1, now() - interval '1 day') AS expired
                        """, [tier.rawValue]
                    ).single
                    #expect(try limits?.decode("now", as: Int.self) == CoachEntitlements.clientLimit(tier), "\(tier)")
                    #expect(try limits?.decode("expired", as: Int.self) == CoachEntitlements.clientLimit(.free))
                }
            }
        }
    }
}

/// E-mails as a transport would send them, by recipient.
private final class SentMail: MailTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var sent: [String: [String]] = [:]

    /// What each recipient was sent, in order.
    var bodies: [String: [String]] { lock.withLock { sent } }

    func send(from sender: String, to recipient: String, subject: String, body: String) async throws {
        lock.withLock { sent[recipient, default: []].append(body) }
    }
}
