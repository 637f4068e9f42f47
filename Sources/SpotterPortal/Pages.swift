import HTTPTypes
import Hummingbird
import Mustache

/// Renders the portal's templates into responses.
struct Pages: Sendable {
    private let library: MustacheLibrary

    init() throws {
        var library = MustacheLibrary()
        for (name, text) in Templates.all { try library.register(text, named: name) }
        self.library = library
    }

    /// What every page's layout reads: the page's own values are under `page`. Every lookup a page
    /// does not answer ends here, so it answers without reflection (see TemplateFields.swift).
    private struct View: MustacheParent {
        var title: String
        var nav: Nav?
        var csrf: String
        var assetVersion: String
        var page: Any

        func child(named field: String) -> Any? {
            switch field {
            case "title": title
            case "nav": section(nav)
            case "csrf": csrf
            case "assetVersion": assetVersion
            case "page": page
            default: nil
            }
        }
    }

    private struct Nav {
        struct Link {
            var href: String
            var label: String
            var current: Bool
        }

        var name: String
        var links: [Link]
    }

    /// `template` filled with `page`, inside the layout, as an HTML response.
    func render(
        _ template: String, title: String, session: PortalSession?, status: HTTPResponse.Status = .ok,
        current: String = "", _ page: Any
    ) -> Response {
        let nav = session.map { session in
            let links: [(String, String)] =
                session.isCoach
                ? [
                    ("/clients", "Clients"), ("/templates", "Templates"), ("/programs", "Programs"),
                    ("/profile", "Profile"),
                ]
                : [("/coaches", "Coaches"), ("/access-log", "Access log"), ("/profile", "Profile")]
            return Nav(
                name: session.profile.displayName.isEmpty ? session.profile.username : session.profile.displayName,
                links: links.map { Nav.Link(href: $0.0, label: $0.1, current: $0.0 == current) })
        }
        let view = View(
            title: title, nav: nav, csrf: session?.csrf ?? "", assetVersion: Assets.version, page: page)
        let html = library.render(view, withTemplate: template) ?? ""
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .contentSecurityPolicy:
                    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
                .xContentTypeOptions: "nosniff",
                .referrerPolicy: "same-origin",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    private struct Problem {
        struct Link {
            var href: String
            var label: String
        }

        var heading: String
        var message: String
        /// Where to go from here; the start page when there is nowhere nearer.
        var links: [Link]
    }

    /// A page that says what went wrong, with `links` (href, label) to go on from.
    func problem(
        _ status: HTTPResponse.Status, session: PortalSession?, title: String, message: String,
        links: [(String, String)] = []
    ) -> Response {
        render(
            "problem", title: title, session: session, status: status,
            Problem(
                heading: title, message: message,
                links: (links.isEmpty ? [("/", "Back to the start page")] : links).map {
                    Problem.Link(href: $0.0, label: $0.1)
                }))
    }

    /// The one answer for anything that does not exist or that the caller may not see.
    func notFound(session: PortalSession?) -> Response {
        problem(
            .notFound, session: session, title: "Page not found",
            message: "There is nothing here, or it is not shared with you.")
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let secFetchSite = Self("Sec-Fetch-Site")!
    static let xForwardedHost = Self("X-Forwarded-Host")!
    static let contentSecurityPolicy = Self("Content-Security-Policy")!
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}
