import Foundation
import Hummingbird
import SpotterCore

/// A coach's side of Discover in the portal: publishing a template or program (and its next
/// versions), unpublishing it, and the coach's listing in the coach directory. Everything goes
/// through `DiscoverService`, so the rules (built-in exercises only, the author's own plans only)
/// are the API's.
struct DiscoverRoutes {
    let discover: DiscoverService
    let training: TrainingServices
    let coaching: CoachingService
    let pages: Pages

    func add(to router: Router<PortalContext>) {
        for kind in PublicationKind.allCases {
            // The parameter is named as PlanRoutes names it (`/templates/:template`): one router.
            let list = "/\(kind.rawValue)s"
            router.get("\(list)/:\(kind.rawValue)/publish") { request, context in
                let session = try context.signedIn(as: .coach)
                let id = try context.parameters.require(kind.rawValue)
                let name = try await sourceName(session, kind, id)
                let current = try await discover.publication(session.principal, of: kind, source: id)
                return render(
                    session,
                    PublishPage(
                        kind: kind, id: id, name: name, current: current,
                        notice: request.uri.queryParameters.get("done").map { String($0) },
                        form: PublishForm(current)))
            }
            router.post("\(list)/:\(kind.rawValue)/publish") { _, context in
                let session = try context.signedIn(as: .coach)
                let id = try context.parameters.require(kind.rawValue)
                let form = PublishForm(context.form)
                do {
                    let publication = try await discover.publish(
                        session.principal,
                        PublishDraft(
                            kind: kind, sourceID: id, description: form.description, difficulty: form.difficulty,
                            categories: form.categories))
                    return Response.redirect(
                        to: "\(list)/\(id)/publish?done=published-\(publication.version)", type: .normal)
                } catch SpotterError.invalidArgument(let violations) {
                    let name = try await sourceName(session, kind, id)
                    let current = try await discover.publication(session.principal, of: kind, source: id)
                    var page = PublishPage(kind: kind, id: id, name: name, current: current, notice: nil, form: form)
                    page.errors = Dictionary(
                        violations.map { (Self.field($0.field), Self.sentence($0)) },
                        uniquingKeysWith: { first, _ in first })
                    return render(session, page, status: .badRequest)
                }
            }
            router.post("\(list)/:\(kind.rawValue)/unpublish") { _, context in
                let session = try context.signedIn(as: .coach)
                let id = try context.parameters.require(kind.rawValue)
                guard let current = try await discover.publication(session.principal, of: kind, source: id),
                    current.unpublishedAt == nil
                else { throw SpotterError.notFound("publication not found") }
                try await discover.unpublish(session.principal, id: current.id.description)
                return Response.redirect(to: "\(list)/\(id)/publish?done=unpublished", type: .normal)
            }
        }
    }

    /// The name of the coach's own template or program (`notFound` for anything else).
    private func sourceName(_ session: PortalSession, _ kind: PublicationKind, _ id: String) async throws -> String {
        switch kind {
        case .template:
            return try await training.templates.get(session.principal, id: id).content.name
        case .program:
            return try await coaching.ownProgram(session.principal, id: id).content.name
        }
    }

    /// A violation as the form says it: the form's choices, not the API's enum names.
    private static func sentence(_ violation: FieldViolation) -> String {
        switch violation.field {
        case "difficulty": "Choose a difficulty."
        case let field where field.hasPrefix("categories"): "Choose one to three categories."
        default: SessionRoutes.sentence(violation)
        }
    }

    /// `categories[1]` is a problem of the one categories field.
    private static func field(_ name: String) -> String {
        name.hasPrefix("categories") ? "categories" : name
    }

    // MARK: - The publish page

    /// What the form sends and shows again when refused.
    struct PublishForm {
        var description: String
        var difficulty: String
        var categories: [String]

        init(_ current: Publication?) {
            description = current?.description ?? ""
            difficulty = current?.difficulty.rawValue ?? ""
            categories = current?.categories.map(\.rawValue) ?? []
        }

        init(_ form: Form) {
            description = form.text("description")
            difficulty = form.text("difficulty")
            categories = form.all("categories")
        }
    }

    struct PublishPage {
        typealias Choice = ProfileRoutes.Choice

        var kind: String
        var list: String
        var listName: String
        var action: String
        var name: String
        var status: String
        var live: Bool
        var notice: String?
        var description: String
        var difficulties: [Choice]
        var categories: [Choice]
        var button: String
        var errors: [String: String] = [:]

        init(kind: PublicationKind, id: String, name: String, current: Publication?, notice: String?, form: PublishForm)
        {
            self.kind = kind.rawValue
            list = "/\(kind.rawValue)s"
            listName = kind == .template ? "Templates" : "Programs"
            action = "/\(kind.rawValue)s/\(id)"
            self.name = name
            live = current != nil && current?.unpublishedAt == nil
            status = Self.status(current)
            self.notice =
                switch notice {
                case "unpublished": "Unpublished. Lifters who follow it keep their copy."
                case let done? where done.hasPrefix("published-"):
                    "Published as version \(done.dropFirst(10)). Lifters find it in Discover now."
                default: nil
                }
            description = form.description
            difficulties = Difficulty.allCases.map {
                Choice(value: $0.rawValue, label: $0.rawValue.capitalized, checked: form.difficulty == $0.rawValue)
            }
            categories = PublicationCategory.allCases.map {
                Choice(
                    value: $0.rawValue, label: $0.rawValue.replacingOccurrences(of: "_", with: " ").capitalized,
                    checked: form.categories.contains($0.rawValue))
            }
            button = live ? "Publish changes" : "Publish"
        }

        static func status(_ publication: Publication?) -> String {
            guard let publication else { return "Private: only you and the clients you assign it to see it." }
            let followers =
                "\(Format.count(publication.followers, "follower")), "
                + "\(publication.recentFollowers) in the last 30 days"
            if publication.unpublishedAt != nil {
                return "Unpublished (was version \(publication.version), \(followers))."
            }
            return "Public as version \(publication.version) · \(followers) · about "
                + "\(publication.facets.estimatedMinutes) minutes per session."
        }
    }

    private func render(_ session: PortalSession, _ page: PublishPage, status: HTTPResponse.Status = .ok) -> Response {
        pages.render(
            "publish", title: "Publish \(page.name)", session: session, status: status, current: page.list, page)
    }
}
