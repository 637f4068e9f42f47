import Foundation
import Hummingbird
import SpotterCore

/// The signed-in tenant's own profile: name, bio and specialities (what the public coach directory
/// shows), time zone and unit; and the tier, with what it allows and what the next one unlocks.
struct ProfileRoutes {
    let accounts: AccountService
    let auth: AuthService
    let coaching: CoachingService
    let discover: DiscoverService
    let transfer: TransferService
    let pages: Pages

    func add(to router: Router<PortalContext>) {
        // The account's own export, streamed as the ExportAccount RPC streams it.
        for format in ExportFormat.allCases {
            router.get("/export.\(format.rawValue)") { _, context in
                let principal = try context.signedIn().principal
                let transfer = transfer
                return Response(
                    status: .ok,
                    headers: [
                        .contentType: format == .json ? format.mediaType : "text/csv; charset=utf-8",
                        .contentDisposition: "attachment; filename=\"spotter-export.\(format.rawValue)\"",
                    ],
                    body: ResponseBody { writer in
                        try await transfer.export(principal, format: format) { data in
                            try await writer.write(ByteBuffer(bytes: data))
                        }
                        try await writer.finish(nil)
                    })
            }
        }
        router.get("/import") { _, context in
            importPage(try context.signedIn(), ImportPage())
        }
        // The report is the answer to the POST itself: sending the form again (a reload) imports
        // the same file again, which adds nothing.
        router.post("/import") { _, context in
            let session = try context.signedIn()
            var page = ImportPage(
                format: context.form.text("format"), unit: context.form.text("unit"),
                timeZone: context.form.text("time_zone").trimmingWhitespaces())
            // Each missing choice is named beside its own field.
            let format = ImportFormat(rawValue: page.format)
            let upload = context.uploads["file"]
            let file = upload.flatMap { $0.data.isEmpty ? nil : $0 }
            if format == nil { page.formatError = "Choose the app the file comes from." }
            if file == nil {
                page.error =
                    upload.map { $0.filename.isEmpty ? nil : $0.filename }?.map { "The file “\($0)” is empty." }
                    ?? "Choose the file to import."
            }
            guard let format, let file else { return importPage(session, page, status: .badRequest) }
            do {
                let report = try await transfer.importWorkouts(
                    session.principal, format: format, unit: WeightUnit(rawValue: page.unit),
                    timeZone: page.values["time_zone"] ?? "", data: file.data)
                page.report = ImportPage.Report(report, filename: file.filename, format: Format(session.profile))
                return importPage(session, page)
            } catch SpotterError.invalidArgument(let violations) where violations.map(\.field) == ["time_zone"] {
                page.errors["time_zone"] = SessionRoutes.sentence(violations[0])
                return importPage(session, page, status: .badRequest)
            } catch SpotterError.invalidArgument(let violations) {
                // The file's own problems ("data") read "it is not UTF-8 text"; any other names its field.
                let reasons = violations.map { violation in
                    let sentence =
                        violation.field == "data" ? "it " + violation.reason : SessionRoutes.sentence(violation)
                    return sentence.hasSuffix(".") ? String(sentence.dropLast()) : sentence
                }
                page.error = "That file could not be imported: " + reasons.joined(separator: "; ") + "."
                return importPage(session, page, status: .badRequest)
            }
        }
        router.post("/profile/directory") { _, context in
            let session = try context.signedIn(as: .coach)
            let listed = context.form["listed"] == "on"
            let typed = context.form.text("highlights")
            let highlights = typed.split(whereSeparator: \.isNewline).map {
                $0.trimmingWhitespaces()
            }.filter { !$0.isEmpty }
            do {
                _ = try await discover.setListing(session.principal, listed: listed, highlights: highlights)
                return Response.redirect(to: "/profile?listed=1", type: .normal)
            } catch SpotterError.invalidArgument(let violations) {
                // On the profile page, beside the listing, with what was typed.
                let error =
                    "Your listing was not saved: "
                    + violations.map { Self.highlightProblem($0, highlights) }.joined(separator: " ")
                return try await page(
                    session, ProfileForm(session.profile), listing: (listed, typed, error), status: .badRequest)
            }
        }
        router.get("/profile") { request, context in
            let session = try context.signedIn()
            let saved = request.uri.queryParameters.get("saved") != nil
            let listed = request.uri.queryParameters.get("listed") != nil
            let sent = request.uri.queryParameters.get("verification") == "sent"
            // Just signed up (/sign-up): where the link went, and what to do next.
            let welcome =
                request.uri.queryParameters.get("welcome") == nil
                ? nil
                : "Welcome to Spotter. A link to confirm your address is on its way to \(session.profile.email). "
                    + (session.isCoach
                        ? "Next, invite your first client under Clients."
                        : "Next, add your coach under Coaches with the code they gave you, or find one there under Find a coach.")
            return try await page(
                session, ProfileForm(session.profile), saved: saved, listedSaved: listed,
                verification: welcome ?? (sent ? "A new link is on its way to \(session.profile.email)." : nil))
        }
        // A new verification link for an address not yet verified (AuthService/ResendVerificationEmail).
        router.post("/profile/verify-email") { _, context in
            let session = try context.signedIn()
            do {
                try await auth.resendVerification(session.principal)
            } catch SpotterError.failedPrecondition {
                return Response.redirect(to: "/profile", type: .normal)
            } catch SpotterError.tooManyRequests(let message, _) {
                return try await page(
                    session, ProfileForm(session.profile), verificationRefused: message.sentenceCased + ".",
                    status: .tooManyRequests)
            }
            return Response.redirect(to: "/profile?verification=sent#verify", type: .normal)
        }
        router.post("/profile") { _, context in
            let session = try context.signedIn()
            let form = ProfileForm(context.form)
            do {
                var update = form.update
                if !session.isCoach {
                    // A lifter's form has no bio or specialities: nothing of them changes.
                    update.bio = nil
                    update.specialities = nil
                }
                _ = try await accounts.updateProfile(session.principal, update)
                return Response.redirect(to: "/profile?saved=1", type: .normal)
            } catch SpotterError.invalidArgument(let violations) {
                var errors: [String: String] = [:]
                for violation in violations {
                    // `specialities[2]` is a problem of the one specialities field.
                    let field = violation.field.hasPrefix("specialities") ? "specialities" : violation.field
                    let list = form.specialityList
                    let sentence =
                        if let index = Self.index(violation.field), list.indices.contains(index) {
                            "The speciality “\(list[index])” \(violation.reason)."
                        } else {
                            SessionRoutes.sentence(violation)
                        }
                    errors[field] = [errors[field], sentence].compactMap { $0 }.joined(separator: " ")
                }
                return try await page(session, form, errors: errors, status: .badRequest)
            }
        }
    }

    /// The N of a field named `name[N]`.
    static func index(_ field: String) -> Int? {
        guard let open = field.firstIndex(of: "["), let close = field.firstIndex(of: "]") else { return nil }
        return Int(field[field.index(after: open)..<close])
    }

    /// What the form shows and sends back: the typed text, kept as typed when it is refused.
    struct ProfileForm {
        var displayName: String
        var bio: String
        var specialities: String
        var timeZone: String
        var unit: String
        var emailNotifications: Bool

        init(_ profile: Profile) {
            displayName = profile.displayName
            bio = profile.bio
            specialities = profile.specialities.joined(separator: ", ")
            timeZone = profile.timeZone
            unit = profile.unit.rawValue
            emailNotifications = profile.emailNotifications
        }

        init(_ form: Form) {
            displayName = form["display_name"] ?? ""
            bio = form["bio"] ?? ""
            specialities = form["specialities"] ?? ""
            timeZone = form.text("time_zone")
            unit = form["unit"] ?? ""
            // An unchecked box sends nothing.
            emailNotifications = form["email_notifications"] != nil
        }

        /// The specialities typed, separated by commas; blanks between commas are dropped.
        var specialityList: [String] {
            specialities.split(separator: ",").map { $0.trimmingWhitespaces() }.filter { !$0.isEmpty }
        }

        var update: ProfileUpdate {
            ProfileUpdate(
                displayName: displayName, timeZone: timeZone, unit: WeightUnit(rawValue: unit), bio: bio,
                specialities: specialityList, emailNotifications: emailNotifications)
        }
    }

    /// A radio button or checkbox of a form.
    struct Choice {
        var value: String
        var label: String
        var checked: Bool
    }

    /// The weight units as radio buttons, `checked` ("kg" or "lb") chosen.
    static func units(checked: String) -> [Choice] {
        [("kg", "Kilograms (kg)"), ("lb", "Pounds (lb)")].map {
            Choice(value: $0.0, label: $0.1, checked: checked == $0.0)
        }
    }

    struct ImportPage {
        struct Report {
            struct Skipped {
                var name: String
                var date: String
                var reason: String
            }

            var filename: String
            var added: String
            var unchanged: String?
            var created: String?
            var measurements: String?
            /// `2 templates and 1 program added.` (a Spotter export).
            var plans: String?
            var hasSkipped: Bool
            var skipped: [Skipped]
            var hasNotes: Bool
            var notes: [String]
            var moreNotes: String?

            /// At most this many of the notes are listed.
            static let notesShown = 50

            init(_ report: ImportReport, filename: String, format: Format) {
                self.filename = filename
                let sets = "\(Format.count(report.setsAdded, "set"))"
                added = "\(Format.count(report.workoutsAdded, "workout")) added (\(sets))."
                unchanged =
                    report.workoutsUnchanged == 0
                    ? nil
                    : "\(report.workoutsUnchanged) \(report.workoutsUnchanged == 1 ? "was" : "were") already here, unchanged."
                measurements =
                    report.measurementsAdded + report.measurementsUnchanged == 0
                    ? nil
                    : "\(Format.count(report.measurementsAdded, "body measurement")) added"
                        + (report.measurementsUnchanged == 0
                            ? "." : ", \(report.measurementsUnchanged) already here, unchanged.")
                let plansAdded = [
                    report.templatesAdded == 0 ? nil : Format.count(report.templatesAdded, "template"),
                    report.programsAdded == 0 ? nil : Format.count(report.programsAdded, "program"),
                ].compactMap(\.self)
                plans = plansAdded.isEmpty ? nil : plansAdded.joined(separator: " and ") + " added."
                created =
                    report.exercisesCreated.isEmpty
                    ? nil : "New custom exercises: \(report.exercisesCreated.joined(separator: ", "))."
                skipped = report.skipped.map {
                    Skipped(name: $0.name, date: format.moment($0.startedAt), reason: $0.reason)
                }
                hasSkipped = !skipped.isEmpty
                notes = report.notes.prefix(Self.notesShown).map(\.sentenceCased)
                hasNotes = !notes.isEmpty
                moreNotes =
                    report.notes.count > Self.notesShown
                    ? "… and \(report.notes.count - Self.notesShown) more." : nil
            }
        }

        let format: String
        let unit: String
        // Stored, not computed: templates find values by reflection, which sees stored ones only.
        let formats: [Choice]
        let units: [Choice]
        /// The zone the file's local times were written in, as typed ("" for the profile's).
        var values: [String: String]
        var errors: [String: String] = [:]
        /// The profile's zone, which an empty field means.
        var profileTimeZone = ""
        let timeZones = TimeZone.knownTimeZoneIdentifiers.sorted()
        var error: String?
        var formatError: String?
        var report: Report?

        init(format: String = "", unit: String = "", timeZone: String = "") {
            self.format = format
            self.unit = unit
            values = ["time_zone": timeZone]
            formats = [("strong", "Strong (CSV)"), ("hevy", "Hevy (CSV)"), ("spotter", "A Spotter export (JSON)")].map {
                Choice(value: $0.0, label: $0.1, checked: $0.0 == format)
            }
            units = [("", "My unit"), ("kg", "Kilograms"), ("lb", "Pounds")].map {
                Choice(value: $0.0, label: $0.1, checked: $0.0 == unit)
            }
        }
    }

    private func importPage(_ session: PortalSession, _ page: ImportPage, status: HTTPResponse.Status = .ok)
        -> Response
    {
        var page = page
        page.profileTimeZone = session.profile.timeZone
        return pages.render(
            "import", title: "Import workouts", session: session, status: status, current: "/profile", page)
    }

    struct ProfilePage {
        var values: [String: String]
        var errors: [String: String]
        var saved: Bool
        var isCoach: Bool
        var emailNotifications: Bool
        var units: [Choice]
        var timeZones: [String]
        var username: String
        var email: String
        var tier: String
        var allows: String
        var next: String
        var expires: String?
        /// The coach directory listing (coaches).
        var listed: Bool
        var highlights: String
        var listedSaved: Bool
        var listingError: String?
        /// The address is not verified yet: offer a new link.
        var unverified: Bool
        var verification: String?
        var verificationRefused: String?
    }

    private static func highlightProblem(_ violation: FieldViolation, _ highlights: [String]) -> String {
        if violation.field.hasPrefix("highlights["), let index = index(violation.field),
            highlights.indices.contains(index)
        {
            return "Line \(index + 1) \(violation.reason)."
        }
        return "Highlights \(violation.reason)."
    }

    /// The profile page; `listing` shows a refused directory listing as typed, with its error.
    private func page(
        _ session: PortalSession, _ form: ProfileForm, saved: Bool = false, listedSaved: Bool = false,
        errors: [String: String] = [:], listing refused: (listed: Bool, highlights: String, error: String)? = nil,
        verification: String? = nil, verificationRefused: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let profile = session.profile
        let format = Format(profile)
        let tier = profile.tier.effective(at: Date())
        var summary = Self.tierSummary(tier, kind: profile.kind)
        if profile.kind == .coach {
            let links = try await coaching.links(session.principal, includeClosed: false)
            let active = links.filter { $0.status == .active }.count
            let limit = CoachEntitlements.clientLimit(tier)
            let use =
                active <= limit
                ? "\(active) of \(limit) clients in use. "
                : "\(Format.count(active, "active client")), \(active - limit) more than this tier covers: "
                    + "the latest to join are paused until a link ends or the tier rises. "
            summary.allows = use + summary.allows
        }
        let listing = session.isCoach ? try await discover.listing(session.principal) : (listed: false, highlights: [])
        let page = ProfilePage(
            values: [
                "display_name": form.displayName, "bio": form.bio, "specialities": form.specialities,
                "time_zone": form.timeZone,
            ],
            errors: errors, saved: saved, isCoach: session.isCoach, emailNotifications: form.emailNotifications,
            units: Self.units(checked: form.unit),
            timeZones: TimeZone.knownTimeZoneIdentifiers.sorted(), username: profile.username, email: profile.email,
            tier: summary.name, allows: summary.allows, next: summary.next,
            expires: profile.tier.expiresAt.flatMap {
                Self.tierEnd($0, effective: tier, stored: profile.tier.tier, format)
            },
            listed: refused?.listed ?? listing.listed,
            highlights: refused?.highlights ?? listing.highlights.joined(separator: "\n"), listedSaved: listedSaved,
            listingError: refused?.error, unverified: profile.emailVerifiedAt == nil, verification: verification,
            verificationRefused: verificationRefused)
        return pages.render(
            "profile", title: "Your profile", session: session, status: status, current: "/profile", page)
    }

    /// When a paid tier ends, or that it has: a tier set through a day (`tiers set … --until
    /// 2027-01-31` ends at the next midnight, UTC) is "through Sun 31 Jan 2027", which "until Mon 1
    /// Feb" would read as one day more; one set to end at another moment says it, in the viewer's
    /// zone; one that has ended says so, beside "Free".
    static func tierEnd(_ end: Date, effective: Tier, stored: Tier, _ format: Format) -> String? {
        guard effective != .free else {
            guard stored != .free else { return nil }
            return
                "(your \(tierSummary(stored, kind: stored == .pro ? .lifter : .coach).name) tier ended \(format.moment(end)))"
        }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = .gmt
        let time = utc.dateComponents([.hour, .minute, .second], from: end)
        guard time.hour == 0, time.minute == 0, time.second == 0 else { return "until \(format.moment(end))" }
        return "through \(Format(timeZone: "UTC", unit: format.unit).day(end.addingTimeInterval(-1)))"
    }

    /// The tier's name, what it allows and what the next tier up unlocks (PRODUCT.md, "Subscription tiers").
    static func tierSummary(_ tier: Tier, kind: TenantKind) -> (name: String, allows: String, next: String) {
        let coach = CoachEntitlements.clientLimit(.coach)
        let coachPro = CoachEntitlements.clientLimit(.coachPro)
        switch (kind, tier) {
        case (.coach, .coachPro):
            return (
                "Coach Pro", "Your clients' progress on every exercise and their statistics.",
                "This is the top tier. For more than \(coachPro) clients, contact support."
            )
        case (.coach, .coach):
            return (
                "Coach", "Your clients' progress on the big three (squat, bench press, deadlift) and their statistics.",
                "Coach Pro unlocks up to \(coachPro) clients and their progress on every exercise."
            )
        case (.coach, _):
            return (
                "Free", "One client, with their workouts as they share them; no progress charts.",
                "The Coach tier (US$0.99 a month) unlocks up to \(coach) clients and their big-three progress and statistics."
            )
        case (_, .pro):
            return (
                "Pro", "Progress for every exercise, body weight and body-fat tracking, and advanced statistics.",
                "This is the top lifter tier."
            )
        default:
            return (
                "Free", "Logging, templates, history, sync and export; progress for squat, bench press and deadlift.",
                "Pro (US$1.99 a month) unlocks progress for every exercise, body weight and body-fat tracking, and advanced statistics."
            )
        }
    }
}
