import Foundation
import Hummingbird
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import SpotterCore

/// The services the portal calls: the same ones the gRPC handlers call.
public struct PortalServices: Sendable {
    public var auth: AuthService
    public var accounts: AccountService
    public var coaching: CoachingService
    public var training: TrainingServices
    /// Share images, PNG through `renderer`.
    public var share: ShareService
    public var discover: DiscoverService
    /// The apps registered to sync, listed and forgotten on the security page.
    public var sync: SyncService
    /// Feedback and bug reports, sent and read back with their answers.
    public var feedback: FeedbackService
    /// Told each sign-in attempt's result ("ok", "failed", "throttled"): spotterd counts the portal's
    /// in `spotter_sign_in_attempts_total` with the API's.
    public var onSignIn: @Sendable (String) -> Void = { _ in }

    public init(
        auth: AuthService, accounts: AccountService, coaching: CoachingService, training: TrainingServices,
        discover: DiscoverService, sync: SyncService, feedback: FeedbackService, renderer: any ImageRenderer
    ) {
        self.auth = auth
        self.sync = sync
        self.feedback = feedback
        self.accounts = accounts
        self.coaching = coaching
        self.training = training
        self.discover = discover
        share = ShareService(training: training, renderer: renderer)
    }
}

/// The coach portal: server-rendered pages over `SpotterCore`, served over HTTPS by `spotterd`.
public enum Portal {
    /// Every route of the portal. `sessionLifetime` is how long the browser keeps the cookie (the
    /// session's own end is the server's to decide).
    public static func router(
        _ services: PortalServices, sessionLifetime: TimeInterval, trustedProxies: TrustedProxies = .none,
        logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) throws -> Router<PortalContext> {
        let pages = try Pages()
        let router = Router(context: PortalContext.self)
        router.add(
            middleware: PortalMiddleware(
                auth: services.auth, accounts: services.accounts,
                refresher: SessionRefresher(auth: services.auth, now: now), pages: pages,
                sessionLifetime: sessionLifetime, trustedProxies: trustedProxies, logger: logger))
        router.get("/assets/:name") { _, context in
            guard let response = Assets.response(try context.parameters.require("name")) else {
                throw HTTPError(.notFound)
            }
            return response
        }
        router.get("/healthz") { _, _ in "ok" }
        router.get("/") { _, context in
            guard let session = context.session else { return Response.redirect(to: "/sign-in", type: .found) }
            return Response.redirect(to: session.isCoach ? "/clients" : "/coaches", type: .found)
        }
        SessionRoutes(
            auth: services.auth, pages: pages, sessionLifetime: sessionLifetime, onSignIn: services.onSignIn
        ).add(to: router)
        SecurityRoutes(auth: services.auth, sync: services.sync, pages: pages).add(to: router)
        CoachRoutes(
            coaching: services.coaching, training: services.training, share: services.share, pages: pages,
            publicURL: services.auth.publicURL, now: now
        ).add(to: router)
        PlanRoutes(
            coaching: services.coaching, training: services.training, discover: services.discover, pages: pages
        ).add(to: router)
        DiscoverRoutes(
            discover: services.discover, training: services.training, coaching: services.coaching, pages: pages
        ).add(to: router)
        LifterRoutes(coaching: services.coaching, discover: services.discover, pages: pages).add(to: router)
        FeedbackRoutes(feedback: services.feedback, pages: pages).add(to: router)
        ProfileRoutes(
            accounts: services.accounts, auth: services.auth, coaching: services.coaching, discover: services.discover,
            transfer: services.training.transfer, pages: pages
        ).add(to: router)
        return router
    }

    /// The portal as a service of `spotterd`: HTTPS (HTTP/1.1) on `host:port` with the gRPC
    /// listener's certificate. `bound` is told the port once it listens (the port may be 0).
    public static func server(
        router: Router<PortalContext>, host: String, port: Int, certificatePath: String, keyPath: String,
        logger: Logger, bound: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws -> some Service {
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificatePath).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: keyPath, format: .pem)))
        return Application(
            router: router,
            server: try .tls(.http1(), tlsConfiguration: tls),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "spotter-portal"),
            onServerRunning: { channel in bound(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
