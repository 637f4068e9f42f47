import Foundation
import SpotterCore
import SpotterTestSupport
import Testing

/// The portal served by the real server over HTTPS, used in headless Chromium through Selenium
/// (`Tests/Interop/portal_browser.py`). With `SPOTTER_PORTAL_SCREENSHOTS=DIR` it also saves the
/// main pages there (`scripts/screenshots.sh` does, for `docs/screenshots/`).
@Suite("Portal in a real browser", .timeLimit(.minutes(5)))
struct PortalBrowserTests {
    @Test(
        "a coach finds a client, comments on a workout, reads progress and assigns a program; the lifter takes back details"
    )
    func coachAndLifter() async throws {
        try await TestServer.with { server in
            let portalPort = try #require(server.portalPort)
            let demo = try await PortalDemo.seed(
                server.database, coaching: server.database.coachingService(),
                training: server.database.trainingServices(), now: Date())
            var arguments = [
                "--portal", "https://127.0.0.1:\(portalPort)", "--coach", "carla", "--lifter", "lena",
                "--client", demo.client, "--lifter-name", "Lena Marsh", "--training-days", "\(demo.workouts.count)",
                "--program", demo.program.content.name,
            ]
            if let directory = ProcessInfo.processInfo.environment["SPOTTER_PORTAL_SCREENSHOTS"] {
                arguments += ["--screenshots", directory]
            }
            let script = TestDatabase.repositoryRoot.appendingPathComponent("Tests/Interop/portal_browser.py").path
            let result = try await Subprocess.run(
                "/usr/bin/env", ["python3", script] + arguments, timeout: .seconds(180))
            #expect(result.status == 0, "portal_browser.py failed:\n\(result.output)")
        }
    }
}
