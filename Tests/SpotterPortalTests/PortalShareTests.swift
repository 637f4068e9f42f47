import Foundation
import HTTPTypes
import SpotterCore
import SpotterTestSupport
import Testing

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

    @Test("the profile page offers the account's export; it downloads as JSON and as CSV, signed in only")
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
            let anonymous = try await portal.browser().get("/export.json")
            #expect(anonymous.status != .ok)
            #expect(!anonymous.html.contains("Squat day"))
        }
    }
}
