import Foundation
import Hummingbird
import SpotterCore

/// Feedback and bug reports from the portal, as the apps send them (`FeedbackService`): a form,
/// and the reports sent with the answers an administrator gave (`spotterctl feedback resolve`).
struct FeedbackRoutes {
    let feedback: FeedbackService
    let pages: Pages

    struct FeedbackPage {
        struct Report {
            var kind: String
            var subject: String
            var body: String
            var sent: String
            var answer: String?
            var answered: String?
        }

        var values: [String: String] = [:]
        var errors: [String: String] = [:]
        var kinds: [ProfileRoutes.Choice] = []
        var sent = false
        var reports: [Report] = []
        var hasReports = false
    }

    func add(to router: Router<PortalContext>) {
        router.get("/feedback") { request, context in
            let session = try context.signedIn()
            return try await page(
                session, FeedbackPage(sent: request.uri.queryParameters.get("sent") != nil),
                values: ["kind": "feedback"])
        }
        router.post("/feedback") { _, context in
            let session = try context.signedIn()
            let form = context.form
            let values = ["kind": form.text("kind"), "subject": form.text("subject"), "body": form["body"] ?? ""]
            do {
                _ = try await feedback.submit(
                    session.principal, kind: FeedbackKind(rawValue: values["kind"] ?? ""),
                    subject: values["subject"] ?? "", body: values["body"] ?? "", appVersion: "web portal")
                return Response.redirect(to: "/feedback?sent=1", type: .normal)
            } catch SpotterError.invalidArgument(let violations) {
                var errors = SessionRoutes.fieldErrors(violations, [:])
                // The field is "What happened, or what you would like", not a comment.
                if let body = violations.first(where: { $0.field == "body" }) {
                    errors["body"] = "The description \(body.reason)."
                }
                return try await page(session, FeedbackPage(errors: errors), values: values, status: .badRequest)
            }
        }
    }

    private func page(
        _ session: PortalSession, _ page: FeedbackPage, values: [String: String], status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let format = Format(session.profile)
        var page = page
        page.values = values
        page.kinds = [("feedback", "An idea or a remark"), ("bug", "Something does not work")].map {
            ProfileRoutes.Choice(value: $0.0, label: $0.1, checked: values["kind"] == $0.0)
        }
        page.reports = try await feedback.feedback(session.principal).map { report in
            FeedbackPage.Report(
                kind: report.kind == .bug ? "Bug" : "Feedback", subject: report.subject, body: report.body,
                sent: format.day(report.createdAt), answer: report.resolution,
                answered: report.resolvedAt.map { format.day($0) })
        }
        page.hasReports = !page.reports.isEmpty
        return pages.render("feedback", title: "Feedback", session: session, status: status, page)
    }
}
