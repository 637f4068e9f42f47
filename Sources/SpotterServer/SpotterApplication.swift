import CoreMetrics
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import Logging
import Postgres
import ServiceLifecycle
import SpotterCore
import SpotterPortal
import SpotterPostgres
import SpotterRPC

/// The whole server wired in one place: stores, services, handlers, the gRPC server over TLS and
/// the database health monitor, as one `ServiceGroup`.
public struct SpotterApplication: Sendable {
    public let pool: PostgresPool
    public let mailerPool: PostgresPool
    public let transport: HTTP2ServerTransport.Posix
    public let serviceGroup: ServiceGroup
    /// This process's open Watch streams.
    public let watchHub: SyncWatchHub
    /// The certificate clients should trust when it is a generated development one.
    public let developmentCertificatePath: String?
    /// Every metric of this process (served at `SPOTTER_METRICS_ADDRESS` unless it is off).
    public let metrics: ServerMetrics
    /// The metrics endpoint's port once it listens.
    public let metricsPort: AsyncStream<Int>
    /// The portal's port once it listens (finished at once when the portal is off).
    public let portalPort: AsyncStream<Int>
    /// Checked once before the server listens, then every two seconds inside `serviceGroup`.
    let healthMonitor: DatabaseHealthMonitor

    /// Builds the application on an open database.
    public static func build(
        settings: ServerConfiguration,
        database: PostgresConfiguration,
        logger: Logger
    ) throws -> SpotterApplication {
        let metrics = ServerMetrics()
        let pool = PostgresPool(
            configuration: database.with(role: settings.applicationRole),
            options: PostgresPool.Options(
                maxConnections: settings.poolSize, observer: .recording(into: metrics, pool: "app")),
            logger: logger
        )
        let spotterDatabase = SpotterDatabase(pool: pool)
        let mailerPool = PostgresPool(
            configuration: database.with(role: settings.mailerRole),
            options: PostgresPool.Options(maxConnections: 2, observer: .recording(into: metrics, pool: "mailer")),
            logger: logger
        )
        let outbox = PostgresOutboxStore(pool: mailerPool)
        var delivery = MailDelivery(
            sender: settings.mailFrom,
            store: outbox,
            transport: settings.smtp.map { SMTPTransport(configuration: $0) as any MailTransport }
                ?? LogMailTransport(logger: logger),
            logger: logger
        )
        // Without a portal (SPOTTER_PORTAL_PORT=off) there is no page to link to.
        delivery.portal = settings.portalPort == nil ? nil : settings.auth.publicURL
        // Made up front, so every result is served (at 0) before the first e-mail.
        let sends = Dictionary(
            uniqueKeysWithValues: ["sent", "retry", "failed"].map { result in
                (
                    result,
                    Counter(
                        label: "spotter_outbox_sends_total", dimensions: [("result", result)], factory: metrics.factory)
                )
            })
        delivery.onResult = { result in sends[result]?.increment() }
        // The API's sign-ins are counted by its interceptor, the portal's through `onSignIn`.
        let signIns = Dictionary(
            uniqueKeysWithValues: ["ok", "failed", "throttled"].map { result in
                (
                    result,
                    Counter(
                        label: "spotter_sign_in_attempts_total", dimensions: [("result", result)],
                        factory: metrics.factory)
                )
            })
        metrics.samplePool(pool, name: "app")
        metrics.samplePool(mailerPool, name: "mailer")
        metrics.sampleProcess()
        metrics.sampleOnScrape { [metrics] in
            guard let backlog = try? await outbox.backlog() else { return }
            for (status, count) in backlog {
                metrics.set("spotter_outbox_messages", [("status", status)], to: count)
            }
        }
        let hasher = PasswordHasher(
            cost: settings.passwordCost, maxConcurrent: 2, maxWaiting: settings.passwordQueue)
        let auth = AuthService(
            store: PostgresAuthStore(database: spotterDatabase),
            hasher: hasher,
            newPasswordHasher: PasswordHasher(cost: settings.passwordCost, maxConcurrent: 1, maxWaiting: 4),
            keyring: try settings.mfaKeys.keyring(dataDirectory: settings.dataDirectory),
            policy: settings.auth,
            logger: logger
        )
        let accounts = AccountService(store: PostgresProfileStore(database: spotterDatabase))
        let feedback = FeedbackService(store: PostgresFeedbackStore(database: spotterDatabase))
        let training = TrainingServices(database: spotterDatabase)
        let renderer = RSVGConvert()
        let share = ShareService(training: training, renderer: renderer)
        let coaching = CoachingService(database: spotterDatabase, training: training)
        let discover = DiscoverService(database: spotterDatabase, training: training, coaching: coaching)
        let sync = SyncService(
            database: spotterDatabase, training: training, coaching: coaching,
            retentionDays: settings.syncRetentionDays)
        let watchHub = SyncWatchHub(limitPerTenant: settings.watchStreamsPerTenant)
        let guidedSessions = GuidedSessionService(database: spotterDatabase, training: training, coaching: coaching)
        let runs = RunService(database: spotterDatabase, coaching: coaching)
        metrics.sampleOnScrape { [metrics] in metrics.set("spotter_sync_watch_streams", to: watchHub.streamCount()) }
        let serving = ServingState()

        let reflection = try ReflectionIndex(
            registered: Self.services.union([
                "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection",
            ]))
        let (certificate, key, development) = try tlsFiles(settings)
        let transport = HTTP2ServerTransport.Posix(
            address: .ipv4(host: settings.host, port: settings.port),
            transportSecurity: .tls(
                certificateChain: [.file(path: certificate, format: .pem)],
                privateKey: .file(path: key, format: .pem)
            ),
            config: settings.transport.config(
                logger: logger, tls: try TransportLimits.tlsContext(certificate: certificate, key: key))
        )
        // Set as the graceful shutdown begins: running calls then finish (`RequestInterceptor`).
        let shutdown = ShutdownSignal()
        let server = GRPCServer(
            transport: transport,
            services: [
                AuthHandler(auth: auth),
                AccountHandler(accounts: accounts, auth: auth),
                FeedbackHandler(feedback: feedback),
                ExerciseHandler(exercises: training.exercises),
                WorkoutHandler(workouts: training.workouts),
                TemplateHandler(templates: training.templates),
                ProgressHandler(progress: training.progress),
                ActivityHandler(activity: training.activity),
                BodyHandler(body: training.body),
                TransferHandler(transfer: training.transfer),
                ShareHandler(share: share),
                CoachingHandler(coaching: coaching),
                CoachHandler(coaching: coaching),
                ProgramHandler(coaching: coaching),
                DiscoverHandler(discover: discover),
                SyncHandler(
                    sync: sync, hub: watchHub, auth: auth,
                    sessionCheckInterval: settings.watchSessionCheckInterval),
                SessionHandler(
                    sessions: guidedSessions, hub: watchHub, auth: auth,
                    sessionCheckInterval: settings.watchSessionCheckInterval),
                RunHandler(runs: runs),
                HealthHandler(state: serving, services: Self.services),
                ReflectionHandler(index: reflection),
                ReflectionAlphaHandler(index: reflection),
            ],
            interceptors: [
                RequestInterceptor(
                    auth: auth, logger: logger, deadline: settings.transport.callDeadline,
                    trustedProxies: settings.trustedProxies, metrics: metrics.factory, callScope: spotterDatabase,
                    shutdown: shutdown)
            ]
        )
        let (metricsPort, boundPort) = AsyncStream<Int>.makeStream()
        var extra: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let address = settings.metricsAddress {
            extra.append(
                .init(
                    service: ListeningService(
                        service: MetricsEndpoint(
                            host: address.host, port: address.port, metrics: metrics, logger: logger,
                            bound: { port in
                                boundPort.yield(port)
                                boundPort.finish()
                            }),
                        listener: "the metrics endpoint", host: address.host, port: address.port,
                        setting: "SPOTTER_METRICS_ADDRESS")))
        } else {
            boundPort.finish()
        }
        let (portalPort, boundPortal) = AsyncStream<Int>.makeStream()
        if let port = settings.portalPort {
            let router = try Portal.router(
                {
                    var services = PortalServices(
                        auth: auth, accounts: accounts, coaching: coaching, training: training, discover: discover,
                        sync: sync, feedback: feedback, renderer: renderer)
                    services.onSignIn = { result in signIns[result]?.increment() }
                    return services
                }(),
                sessionLifetime: settings.auth.sessionLifetime, trustedProxies: settings.trustedProxies,
                logger: logger)
            extra.append(
                .init(
                    service: ListeningService(
                        service: try Portal.server(
                            router: router, host: settings.host, port: port, certificatePath: certificate,
                            keyPath: key, logger: logger,
                            bound: { port in
                                boundPortal.yield(port)
                                boundPortal.finish()
                            }),
                        listener: "the coach portal", host: settings.host, port: port,
                        setting: "SPOTTER_PORTAL_PORT (or --portal-port)")))
        } else {
            boundPortal.finish()
        }
        if settings.achievementFeed {
            extra.append(
                .init(
                    service: ActivityReconciler(
                        mailbox: spotterDatabase.activityChanges, activity: training.activity, metrics: metrics,
                        logger: logger)))
        }
        let healthMonitor = DatabaseHealthMonitor(pool: pool, state: serving, interval: .seconds(2), logger: logger)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: extra + [
                    .init(service: healthMonitor),
                    .init(
                        service: ListeningService(
                            service: GRPCServerService(server: server, shutdown: shutdown), listener: "gRPC",
                            host: settings.host,
                            port: settings.port, setting: "SPOTTER_GRPC_PORT (or --port)")),
                    .init(
                        service: MailerService(delivery: delivery, interval: settings.mailerInterval, logger: logger)),
                    .init(
                        service: SyncFeedService(
                            configuration: database.with(role: settings.applicationRole).named(
                                SyncFeedService.listenerName),
                            hub: watchHub, notifier: spotterDatabase.notifier, sync: sync,
                            purgeInterval: .seconds(3600), logger: logger)),
                    .init(
                        service: RetentionService(
                            database: spotterDatabase, accessLogDays: settings.accessLogRetentionDays,
                            interval: .seconds(3600), logger: logger)),
                    .init(service: SessionSweeper(database: spotterDatabase, interval: .seconds(600), logger: logger)),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        return SpotterApplication(
            pool: pool,
            mailerPool: mailerPool,
            transport: transport,
            serviceGroup: group,
            watchHub: watchHub,
            developmentCertificatePath: development ? certificate : nil,
            metrics: metrics,
            metricsPort: metricsPort,
            portalPort: portalPort,
            healthMonitor: healthMonitor
        )
    }

    /// The services the health service answers for, besides the whole server ("").
    static let services: Set<String> = [
        "spotter.v1.AuthService", "spotter.v1.AccountService", "spotter.v1.FeedbackService",
        "spotter.v1.ExerciseService", "spotter.v1.WorkoutService", "spotter.v1.TemplateService",
        "spotter.v1.ProgressService", "spotter.v1.CoachingService", "spotter.v1.CoachService",
        "spotter.v1.ProgramService", "spotter.v1.SyncService", "spotter.v1.TransferService",
        "spotter.v1.ShareService", "spotter.v1.DiscoverService", "spotter.v1.ActivityService",
        "spotter.v1.BodyService", "spotter.v1.SessionService", "spotter.v1.RunService",
        "grpc.health.v1.Health",
    ]

    /// Runs until SIGINT or SIGTERM, then closes the pool.
    public func run() async throws {
        await healthMonitor.checkNow()
        do {
            try await serviceGroup.run()
        } catch {
            await pool.shutdown()
            await mailerPool.shutdown()
            throw error
        }
        await pool.shutdown()
        await mailerPool.shutdown()
    }

    private static func tlsFiles(_ settings: ServerConfiguration) throws -> (String, String, Bool) {
        if let certificate = settings.tlsCertificatePath, let key = settings.tlsKeyPath {
            return (certificate, key, false)
        }
        let generated = try DevelopmentCertificate.ensure(in: settings.dataDirectory)
        return (generated.certificate, generated.key, true)
    }
}
