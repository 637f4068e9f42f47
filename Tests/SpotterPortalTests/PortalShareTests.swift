import Foundation
import HTTPTypes
import SpotterCore
import SpotterTestSupport
import Testing

@testable import SpotterPortal

@Suite("Portal share images and downloads")
struct PortalShareTests {
    @Test(
        "a client's workout card and progress chart, linked from their pages; each card read is logged as the workout page is"
    )
    func coachImages() async throws {
        try await PortalHarness.with { portal in
            let world = try await CoachWorld.build(portal)
            let browser = try await portal.signedIn("carla")
            let workout = world.workouts[2]
            let page = try await browser.get("/clients/\(world.client)/workouts/\(workout.id)")
            #expect(page.html.contains("href=\"/clients/\(world.client)/workouts/\(workout.id)/card.png\""))
            let before = try await portal.accessLog(world.lifter).count

            let svg = try await browser.get("/clients/\(world.client)/workouts/\(workout.id)/card.svg")
            #expect(svg.status == .ok)
            #expect(svg.headers[.contentType] == "image/svg+xml")
            #expect(svg.headers[.contentDisposition] == "inline; filename=\"workout-card.svg\"")
            #expect(svg.html.hasPrefix("<svg"))
            #expect(svg.html.contains(">Squat day 110<"))
            let png = try await browser.get("/clients/\(world.client)/workouts/\(workout.id)/card.png")
            #expect(png.headers[.contentType] == "image/png")
            // The test renderer answers the PNG signature and the SVG it was given.
            #expect(png.html.contains("PNG\r\n"))
            #expect(png.html.contains(">Squat day 110<"))
            #expect(
                try await portal.accessLog(world.lifter).dropFirst(before) == [
                    "details GetClientWorkout", "details GetClientWorkout",
                ])

            let progress = try await browser.get(
                "/clients/\(world.client)/progress?exercise=\(Catalog.squat)&from=&to=&formula=epley")
            let chartLink =
                "/clients/\(world.client)/progress/chart.png?exercise=\(Catalog.squat)&amp;from=&amp;to=&amp;formula=epley"
            #expect(progress.html.contains("href=\"\(chartLink)\""))
            let chart = try await browser.get(
                "/clients/\(world.client)/progress/chart.svg?exercise=\(Catalog.squat)&from=&to=&formula=epley")
            #expect(chart.status == .ok)
            #expect(chart.html.contains(">Barbell Back Squat<"))
            #expect(chart.html.components(separatedBy: "<circle").count - 1 == 3 + 1)
        }
    }

    @Test("without the details scope the card is not shared; another coach gets the one not-found page")
    func refused() async throws {
        try await PortalHarness.with { portal in
            let world = try await CoachWorld.build(portal)
            _ = try await portal.coaching.setScopes(
                world.lifter, coach: world.coach.tenantID.description, scopes: ["history"])
            let carla = try await portal.signedIn("carla")
            let card = try await carla.get("/clients/\(world.client)/workouts/\(world.workouts[0].id)/card.png")
            #expect(card.status == .forbidden)
            #expect(card.html.contains("has not shared the details of their workouts with you"))
            _ = try await portal.account("cora", kind: .coach)
            let cora = try await portal.signedIn("cora")
            let hidden = try await cora.get("/clients/\(world.client)/workouts/\(world.workouts[0].id)/card.svg")
            #expect(hidden.status == .notFound)
            #expect(!hidden.html.contains("Squat day"))
        }
    }

    @Test(
        "the profile page offers the account's export; it downloads as JSON and as CSV (sets, template items, body measurements), signed in only"
    )
    func downloads() async throws {
        try await PortalHarness.with { portal in
            let world = try await CoachWorld.build(portal)
            let lena = try await portal.signedIn("lena")
            let profile = try await lena.get("/profile")
            #expect(profile.html.contains("href=\"/export.json\""))
            #expect(profile.html.contains("href=\"/export.csv\""))
            let json = try await lena.get("/export.json")
            #expect(json.status == .ok)
            #expect(json.headers[.contentDisposition] == "attachment; filename=\"spotter-export.json\"")
            let document = try TenantExport.decoder().decode(TenantExport.self, from: Data(json.html.utf8))
            #expect(document.workouts.map(\.id) == world.workouts.map(\.id))
            let csv = try await lena.get("/export.csv")
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(csv.html.hasPrefix(ExportCSV.header))
            #expect(csv.html.contains("Squat day 110"))
            // Templates and body measurements have CSVs of their own, one row per item or measurement.
            _ = try await portal.training.templates.create(
                world.lifter, id: "",
                TemplateDraft(
                    name: "Lower, A", notes: "heavy",
                    items: [
                        TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 5, repsMin: 3, repsMax: 5),
                        TemplateItemDraft(exerciseID: Catalog.deadlift.description, targetSets: 1, repsMin: 5),
                    ]))
            #expect(profile.html.contains("href=\"/export.templates.csv\""))
            #expect(profile.html.contains("href=\"/export.measurements.csv\""))
            let templates = try await lena.get("/export.templates.csv")
            #expect(templates.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(
                templates.headers[.contentDisposition] == "attachment; filename=\"spotter-export.templates.csv\"")
            let rows = templates.html.split(separator: "\r\n").map(String.init)
            #expect(rows.first == ExportCSV.templateColumns.joined(separator: ","))
            #expect(rows.count == 3, "\(rows)")
            #expect(rows.dropFirst().allSatisfy { $0.contains(",\"Lower, A\",heavy,no,1,") }, "\(rows)")
            #expect(rows[1].contains(",Barbell Back Squat,5,3,5,") && rows[2].contains(",Barbell Deadlift,1,5,5,"))
            let measurements = try await lena.get("/export.measurements.csv").html.split(separator: "\r\n")
            #expect(measurements.first.map(String.init) == ExportCSV.measurementColumns.joined(separator: ","))
            #expect(
                measurements.count == 4
                    && measurements.dropFirst().allSatisfy { $0.contains(",body_weight,") && $0.contains(",kg,") })
            // The JSON names each template's exercises too.
            let named = try TenantExport.decoder().decode(
                TenantExport.self, from: Data(try await lena.get("/export.json").html.utf8))
            #expect(named.templates.first?.exerciseNames?[Catalog.deadlift.description] == "Barbell Deadlift")
            let anonymous = try await portal.browser().get("/export.json")
            #expect(anonymous.status != .ok)
            #expect(!anonymous.html.contains("Squat day"))
        }
    }
}

@Suite("Portal import")
struct PortalImportTests {
    @Test("a lifter uploads a Strong export and reads the report; the same file again adds nothing")
    func strong() async throws {
        try await PortalHarness.with { portal in
            _ = try await portal.account("ivy")
            let ivy = try await portal.signedIn("ivy")
            let form = try await ivy.get("/import")
            #expect(form.html.contains("enctype=\"multipart/form-data\""))
            #expect(form.html.contains("<input type=\"radio\" name=\"format\" value=\"strong\" required>"))
            #expect(form.html.contains("<input type=\"radio\" name=\"unit\" value=\"\" checked>"))
            let file = try ImportSamples.data("strong.csv")
            let fields = [("format", "strong"), ("unit", "lb")]
            let first = try await ivy.upload("/import", fields, files: [("file", "strong.csv", file)])
            #expect(first.status == .ok)
            #expect(first.html.contains("Imported strong.csv"))
            #expect(first.html.contains("2 workouts added (9 sets)."))
            #expect(first.html.contains("New custom exercises: Zercher Squat (Barbell)."))
            #expect(first.html.contains("Row 6 repeats row 5 and was left out"))
            let second = try await ivy.upload("/import", fields, files: [("file", "strong.csv", file)])
            #expect(second.html.contains("0 workouts added (0 sets)."))
            #expect(second.html.contains("2 were already here, unchanged."))
            #expect(try await portal.database.count("SELECT count(*)::int FROM workouts") == 2)
            // The file's zone: empty is the profile's (said as the placeholder); a wrong one is
            // named beside its field, with what was typed, and nothing is imported.
            #expect(form.html.contains(#"placeholder="UTC""#) && form.html.contains("Empty: yours (UTC)."))
            let zoned = try await ivy.upload(
                "/import", fields + [("time_zone", "europe/berlin")], files: [("file", "strong.csv", file)])
            #expect(zoned.status == .badRequest)
            #expect(
                zoned.html.contains(
                    #"<p class="field-error" id="time_zone-error">The time zone must be written Europe/Berlin (time zone names are case-sensitive).</p>"#
                ), "\(zoned.html.suffix(2_500))")
            #expect(zoned.html.contains(#"value="europe/berlin""#))
            let berlin = try await ivy.upload(
                "/import", fields + [("time_zone", "Europe/Berlin")], files: [("file", "strong.csv", file)])
            #expect(berlin.html.contains("2 workouts added"), "read an hour earlier than in UTC: new workouts")
            #expect(try await portal.database.count("SELECT count(*)::int FROM workouts") == 4)
        }
    }

    @Test("refusals stay on the page: no file, no app chosen, an unreadable file, no CSRF token; nothing stored")
    func refusals() async throws {
        try await PortalHarness.with { portal in
            _ = try await portal.account("ivy")
            let ivy = try await portal.signedIn("ivy")
            try await ivy.get("/import")
            let noFile = try await ivy.upload("/import", [("format", "hevy")], files: [])
            #expect(noFile.status == .badRequest)
            #expect(noFile.html.contains("Choose the file to import."))
            let noApp = try await ivy.upload("/import", [], files: [("file", "a.csv", Data("x".utf8))])
            #expect(noApp.html.contains("Choose the app the file comes from."))
            #expect(!noApp.html.contains("Choose the file to import."))
            // Neither: each is named beside its own field, the app's under "From".
            let neither = try await ivy.upload("/import", [], files: [])
            #expect(
                neither.html.contains(#"<p class="field-error" id="file-error">Choose the file to import.</p>"#))
            #expect(
                neither.html.contains(#"<p class="field-error" role="alert">Choose the app the file comes from.</p>"#))
            let kept = try await ivy.upload("/import", [("format", "hevy"), ("unit", "lb")], files: [])
            #expect(kept.html.contains("value=\"hevy\" required checked"))
            #expect(kept.html.contains("value=\"lb\" checked"))
            let bad = try await ivy.upload(
                "/import", [("format", "hevy")], files: [("file", "a.csv", Data("title,start_time\nA,B\n".utf8))])
            #expect(bad.status == .badRequest)
            #expect(bad.html.contains("That file could not be imported: it is not a Hevy CSV export"))
            let empty = try await ivy.upload("/import", [("format", "hevy")], files: [("file", "empty.csv", Data())])
            #expect(empty.status == .badRequest)
            #expect(empty.html.contains("The file “empty.csv” is empty."))
            let other = try await ivy.upload(
                "/import", [("format", "spotter")], files: [("file", "x.json", Data(#"{"format":"other"}"#.utf8))])
            #expect(
                other.html.contains(
                    "That file could not be imported: it is not a Spotter export (its &quot;format&quot; must be &quot;spotter-export&quot;)."
                ), "\(other.html)")
            // A large upload is read whole; past 64 MiB it is refused before anything is parsed.
            let large = try await ivy.upload(
                "/import", [("format", "strong")],
                files: [("file", "big.csv", Data(repeating: UInt8(ascii: "a"), count: 5 << 20))])
            #expect(large.status == .badRequest)
            #expect(large.html.contains("That file could not be imported: it is not a Strong CSV export"))
            try await ivy.get("/import")
            let tooLarge = try await ivy.upload(
                "/import", [("format", "strong")],
                files: [("file", "huge.csv", Data(repeating: UInt8(ascii: "a"), count: 65 << 20))])
            #expect(tooLarge.status == .badRequest)
            #expect(tooLarge.html.contains("The file is larger than Spotter accepts (64 MB)."))
            let forged = try await portal.signedIn("ivy")
            let noToken = try await forged.upload(
                "/import", [("format", "strong")], files: [("file", "s.csv", try ImportSamples.data("strong.csv"))])
            #expect(noToken.status == .forbidden)
            #expect(try await portal.database.count("SELECT count(*)::int FROM workouts") == 0)
        }
    }

    @Test("multipart bodies: quoted parameters, a file with CRLFs inside, no closing delimiter")
    func multipart() {
        let body =
            "--XyZ\r\nContent-Disposition: form-data; name=\"format\"\r\n\r\nstrong\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"my \\\"log\\\".csv\"\r\n"
            + "Content-Type: text/csv\r\n\r\na,b\r\nc,d\r\n\r\n--XyZ--\r\n"
        let parsed = Form.multipart(Array(body.utf8), boundary: "XyZ")
        #expect(parsed?.form == Form(fields: [("format", "strong")]))
        #expect(parsed?.files == ["file": Upload(filename: "my \"log\".csv", data: Data("a,b\r\nc,d\r\n".utf8))])
        let unfinished = "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno end"
        #expect(Form.multipart(Array(unfinished.utf8), boundary: "XyZ") == nil)
        // Cut, flipped and spliced bodies are read or refused, never a trap.
        var generator = SystemRandomNumberGenerator()
        let bytes = Array(body.utf8)
        for _ in 0..<5_000 {
            var mutated = bytes
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: mutated.removeLast(Int.random(in: 0...mutated.count, using: &generator))
            case 1:
                for _ in 0..<4 {
                    mutated[Int.random(in: 0..<mutated.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
            default:
                let cut = Int.random(in: 0...mutated.count, using: &generator)
                mutated = Array(mutated[..<cut] + bytes[Int.random(in: 0...bytes.count, using: &generator)...])
            }
            _ = Form.multipart(mutated, boundary: "XyZ")
        }
        #expect(Form.boundary("multipart/form-data; boundary=\"abc\"") == "abc")
        #expect(Form.boundary("application/x-www-form-urlencoded") == nil)
    }
}
