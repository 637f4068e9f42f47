import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import Logging
import Postgres
import ServiceLifecycle
import SpotterCore
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

    /// Builds the application on an open database.
    public static func build(
        settings: ServerConfiguration,
        database: PostgresConfiguration,
        logger: Logger
    ) throws -> SpotterApplication {
        let pool = PostgresPool(
            configuration: database.with(role: settings.applicationRole),
            options: PostgresPool.Options(maxConnections: settings.poolSize),
            logger: logger
        )
        let spotterDatabase = SpotterDatabase(pool: pool)
        let mailerPool = PostgresPool(
            configuration: database.with(role: settings.mailerRole),
            options: PostgresPool.Options(maxConnections: 2),
            logger: logger
        )
        let delivery = MailDelivery(
            sender: settings.mailFrom,
            store: PostgresOutboxStore(pool: mailerPool),
            transport: settings.smtp.map { SMTPTransport(configuration: $0) as any MailTransport }
                ?? LogMailTransport(logger: logger),
            logger: logger
        )
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
        let coaching = CoachingService(database: spotterDatabase, training: training)
        let sync = SyncService(
            database: spotterDatabase, training: training, coaching: coaching,
            retentionDays: settings.syncRetentionDays)
        let watchHub = SyncWatchHub(limitPerTenant: settings.watchStreamsPerTenant)
        let serving = ServingState()

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
        let server = GRPCServer(
            transport: transport,
            services: [
                AuthHandler(auth: auth),
                AccountHandler(accounts: accounts),
                FeedbackHandler(feedback: feedback),
                ExerciseHandler(exercises: training.exercises),
                WorkoutHandler(workouts: training.workouts),
                TemplateHandler(templates: training.templates),
                ProgressHandler(progress: training.progress),
                CoachingHandler(coaching: coaching),
                CoachHandler(coaching: coaching),
                ProgramHandler(coaching: coaching),
                SyncHandler(
                    sync: sync, hub: watchHub, auth: auth,
                    sessionCheckInterval: settings.watchSessionCheckInterval),
                HealthHandler(
                    state: serving,
                    services: [
                        "spotter.v1.AuthService", "spotter.v1.AccountService", "spotter.v1.FeedbackService",
                        "spotter.v1.ExerciseService", "spotter.v1.WorkoutService", "spotter.v1.TemplateService",
                        "spotter.v1.ProgressService", "spotter.v1.CoachingService", "spotter.v1.CoachService",
                        "spotter.v1.ProgramService", "spotter.v1.SyncService", "grpc.health.v1.Health",
                    ]
                ),
            ],
            interceptors: [
                RequestInterceptor(
                    auth: auth, logger: logger, deadline: settings.transport.callDeadline,
                    trustedProxies: settings.trustedProxies)
            ]
        )
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(
                        service: DatabaseHealthMonitor(
                            pool: pool, state: serving, interval: .seconds(2), logger: logger)),
                    .init(service: GRPCServerService(server: server)),
                    .init(
                        service: MailerService(delivery: delivery, interval: settings.mailerInterval, logger: logger)),
                    .init(
                        service: SyncFeedService(
                            configuration: database.with(role: settings.applicationRole).named(
                                SyncFeedService.listenerName),
                            hub: watchHub, sync: sync,
                            purgeInterval: .seconds(3600), logger: logger)),
                    .init(
                        service: RetentionService(
                            database: spotterDatabase, accessLogDays: settings.accessLogRetentionDays,
                            interval: .seconds(3600), logger: logger)),
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
            developmentCertificatePath: development ? certificate : nil
        )
    }

    /// Runs until SIGINT or SIGTERM, then closes the pool.
    public func run() async throws {
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
