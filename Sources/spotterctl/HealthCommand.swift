import ArgumentParser
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import SpotterProto
import SpotterSetup

/// `spotterctl health`: asks a running spotterd's gRPC health service whether it serves, over TLS.
/// For container probes and scripts: it never touches the database itself.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Asks a running spotterd whether it is serving (grpc.health.v1.Health/Check over TLS).",
        discussion: """
            Prints SERVING and exits 0; prints NOT_SERVING (the database is unreachable) and exits 1; \
            prints why it got no answer and exits 2. Trusts --ca, \
            else SPOTTER_TLS_CERT, else the development certificate in SPOTTER_DATA_DIR, else the \
            system's roots. Reads the same SPOTTER_* variables as spotterd; never opens the database.
            """
    )

    @Option(help: "host:port of spotterd (default SPOTTER_GRPC_HOST, or 127.0.0.1, and SPOTTER_GRPC_PORT, or 8443).")
    var address: String?
    @Option(help: "A PEM certificate to trust.")
    var ca: String?
    @Option(help: "A service name to ask about instead of the whole server (such as spotter.v1.SyncService).")
    var service = ""
    @Flag(help: "Do not check that the certificate names the host.")
    var noHostnameCheck = false
    @Flag(help: "Do not verify the certificate at all (for a probe on the server's own loopback).")
    var insecure = false
    @Option(parsing: .unconditional, help: "Seconds to wait for the answer (1 to 300).")
    var timeout = 5

    func validate() throws {
        guard (1...300).contains(timeout) else { throw ValidationError("--timeout must be from 1 to 300 seconds") }
    }

    func run() async throws {
        let settings = try ServerConfiguration.fromEnvironment()
        let listening = ["0.0.0.0", "::", ""].contains(settings.host) ? "127.0.0.1" : settings.host
        let target = address ?? "\(listening):\(settings.port)"
        guard let (host, port) = hostAndPort(target) else {
            throw ValidationError("--address must be host:port, such as 127.0.0.1:8443")
        }
        let development = settings.dataDirectory.appendingPathComponent("tls/dev-cert.pem").path
        let trusted =
            ca ?? settings.tlsCertificatePath
            ?? (FileManager.default.fileExists(atPath: development) ? development : nil)
        let verification: TLSConfig.CertificateVerification =
            insecure ? .noVerification : noHostnameCheck ? .noHostnameVerification : .fullVerification
        // An address literal must not become TLS's server name (SNI takes names only).
        let resolvable: any ResolvableTarget =
            if host.contains(":") {
                .ipv6(address: host, port: port)
            } else if host.split(separator: ".").count == 4, host.split(separator: ".").allSatisfy({ UInt8($0) != nil })
            {
                .ipv4(address: host, port: port)
            } else {
                .dns(host: host, port: port)
            }
        let transport = try HTTP2ClientTransport.Posix(
            target: resolvable,
            transportSecurity: .tls { config in
                if let trusted { config.trustRoots = .certificates([.file(path: trusted, format: .pem)]) }
                config.serverCertificateVerification = verification
            })
        let seconds = timeout
        let status: Grpc_Health_V1_HealthCheckResponse.ServingStatus
        do {
            status = try await withGRPCClient(transport: transport) { client in
                var options = CallOptions.defaults
                options.timeout = .seconds(seconds)
                return try await Grpc_Health_V1_Health.Client(wrapping: client).check(
                    .with { $0.service = service }, options: options
                ).status
            }
        } catch let error as RPCError where error.code == .notFound {
            // It answered: the health service knows no such service (exit 1, as NOT_SERVING).
            print("spotterctl: \(target) does not serve '\(service)': \(error.message)")
            throw ExitCode(1)
        } catch let error as RPCError {
            // A certificate it does not trust also ends the connection before any answer: say so.
            let tls = error.message.contains("preface") || error.message.lowercased().contains("certificate")
            print(
                "spotterctl: \(target) did not answer: \(error.code): \(error.message)"
                    + (tls ? " (if it is running, check --ca: its certificate may not be the one spotterd serves)" : "")
            )
            throw ExitCode(2)
        }
        // As the health protocol writes them (`NOT_SERVING`, not Swift's `notServing`).
        switch status {
        case .serving:
            print("SERVING")
        case .notServing:
            print("NOT_SERVING")
            throw ExitCode(1)
        case .serviceUnknown:
            print("SERVICE_UNKNOWN")
            throw ExitCode(1)
        default:
            print("UNKNOWN")
            throw ExitCode(1)
        }
    }
}
