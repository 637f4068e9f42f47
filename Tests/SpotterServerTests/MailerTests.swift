import Foundation
import GRPCCore
import Logging
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterProto
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// The mailer against a real SMTP server (Python's aiosmtpd) on loopback with STARTTLS and AUTH.
@Suite("Mailer")
struct MailerTests {
    /// A running aiosmtpd; killed when the test ends.
    final class SMTPServer: Sendable {
        let port: Int
        let messages: URL
        let certificate: String
        private let process: Process

        init(directory: URL) async throws {
            let (certificatePEM, keyPEM) = try DevelopmentCertificate.make(validFor: 3600)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            certificate = directory.appendingPathComponent("cert.pem").path
            let key = directory.appendingPathComponent("key.pem").path
            try certificatePEM.write(toFile: certificate, atomically: true, encoding: .utf8)
            try keyPEM.write(toFile: key, atomically: true, encoding: .utf8)
            messages = directory.appendingPathComponent("messages")
            let portFile = directory.appendingPathComponent("port").path
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "python3", TestDatabase.repositoryRoot.appendingPathComponent("Tests/Interop/smtp_server.py").path,
                "--port-file", portFile, "--messages", messages.path, "--cert", certificate, "--key", key,
                "--user", "mailer", "--password", "smtp secret",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            var port: Int?
            for _ in 0..<100 where port == nil {
                try await Task.sleep(for: .milliseconds(100))
                port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            }
            guard let port else {
                process.end()
                throw MailDeliveryError("aiosmtpd did not start (pip install aiosmtpd)", permanent: true)
            }
            self.port = port
        }

        func stop() {
            process.end()
        }

        func received() throws -> [[String: Any]] {
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: messages.path)) ?? [])
                .filter { $0.hasSuffix(".json") }
            return try files.map { file in
                let data = try Data(contentsOf: messages.appendingPathComponent(file))
                return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
            }
        }

        func configuration(password: String = "smtp secret") -> SMTPConfiguration {
            SMTPConfiguration(
                host: "localhost",
                port: port,
                security: .startTLS,
                username: "mailer",
                password: password,
                trustRootsFile: certificate
            )
        }
    }

    private func withSMTPServer<T: Sendable>(_ body: (SMTPServer) async throws -> T) async throws -> T {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("smtp-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await SMTPServer(directory: directory)
        defer { server.stop() }
        return try await body(server)
    }

    private func delivery(
        _ database: TestDatabase, _ smtp: SMTPConfiguration, logger: Logger = Logger(label: "test")
    ) -> (MailDelivery, PostgresPool) {
        let pool = PostgresPool(
            configuration: database.ownerConfiguration.with(role: "spotter_mailer"),
            logger: Logger(label: "test")
        )
        let delivery = MailDelivery(
            sender: "no-reply@spotter.test",
            store: PostgresOutboxStore(pool: pool),
            transport: SMTPTransport(configuration: smtp),
            logger: logger
        )
        return (delivery, pool)
    }

    private func register(_ database: TestDatabase, _ email: String, _ username: String) async throws {
        _ = try await database.authService().register(
            .init(email: email, username: username, password: "long enough password", kind: .lifter)
        )
    }

    @Test("delivers over STARTTLS with AUTH; 550 fails for good, 451 is retried later")
    func deliversAndClassifiesFailures() async throws {
        try await withSMTPServer { smtp in
            try await TestDatabase.with { database in
                try await register(database, "ada@example.com", "ada")
                try await register(database, "bounce@example.com", "bouncer")
                try await register(database, "defer@example.com", "deferrer")
                let lines = RecordingLogHandler.Lines()
                let (delivery, pool) = delivery(
                    database, smtp.configuration(),
                    logger: Logger(label: "test") { _ in RecordingLogHandler(lines: lines) })
                let sent = try await delivery.deliverDue()
                #expect(sent == 1)
                // Each failure is logged with the message id as spotterctl prints it, and without the
                // member's address (a server's reply may quote it).
                let failures = lines.all.filter { $0.message == "e-mail delivery failed" }
                #expect(failures.count == 2, "\(lines.all)")
                for failure in failures {
                    let id = failure.metadata["message"] ?? ""
                    #expect(id == id.lowercased() && UUID(uuidString: id) != nil, "\(failure.metadata)")
                    #expect(!"\(failure.metadata)".contains("@example.com"), "\(failure.metadata)")
                }

                let received = try smtp.received()
                #expect(received.count == 1)
                let message = try #require(received.first)
                #expect(message["to"] as? [String] == ["ada@example.com"])
                #expect(message["from"] as? String == "no-reply@spotter.test")
                #expect(message["tls"] as? Bool == true)
                let data = try #require(message["data"] as? String)
                let code = try #require(try await database.emailedCode(to: "ada@example.com", kind: "verify_email"))
                #expect(data.contains("Subject: Confirm your Spotter e-mail address"))
                #expect(data.contains(code))

                let owner = try await database.ownerConnection()
                let rows = try await owner.query(
                    "SELECT recipient, status, attempts, last_error, next_attempt_at > now() AS later FROM email_outbox"
                )
                var byRecipient: [String: PostgresRow] = [:]
                for row in rows { byRecipient[try row.decode("recipient")] = row }
                #expect(try byRecipient["ada@example.com"]?.decode("status", as: String.self) == "sent")
                let bounce = try #require(byRecipient["bounce@example.com"])
                #expect(try bounce.decode("status", as: String.self) == "failed")
                #expect(try bounce.decode("last_error", as: String?.self)?.contains("550") == true)
                let deferred = try #require(byRecipient["defer@example.com"])
                #expect(try deferred.decode("status", as: String.self) == "pending")
                #expect(try deferred.decode("attempts", as: Int.self) == 1)
                #expect(try deferred.decode("later", as: Bool.self))
                #expect(try deferred.decode("last_error", as: String?.self)?.contains("451") == true)
                await owner.close()

                // Nothing is due again right away: the deferred message waits for its backoff.
                #expect(try await delivery.deliverDue() == 0)
                #expect(try smtp.received().count == 1)
                await pool.shutdown()
            }
        }
    }

    @Test("a wrong SMTP password fails the attempt but keeps the message pending for a retry")
    func wrongPassword() async throws {
        try await withSMTPServer { smtp in
            try await TestDatabase.with { database in
                try await register(database, "ada@example.com", "ada")
                let (delivery, pool) = delivery(database, smtp.configuration(password: "wrong"))
                #expect(try await delivery.deliverDue() == 0)
                #expect(try smtp.received().isEmpty)
                let pending = try await database.count(
                    "SELECT count(*)::int FROM email_outbox WHERE status = 'pending' AND attempts = 1 AND last_error LIKE '%535%'"
                )
                #expect(pending == 1)
                await pool.shutdown()
            }
        }
    }

    @Test("backoff doubles from 30 seconds, is capped at 6 hours, and gives up after 8 attempts")
    func backoff() {
        let delivery = MailDelivery(
            sender: "x@example.com",
            store: UnusedOutbox(),
            transport: LogMailTransport(logger: Logger(label: "test")),
            logger: Logger(label: "test")
        )
        let now = Date(timeIntervalSince1970: 0)
        #expect(delivery.retryTime(afterAttempt: 1, now: now) == now.addingTimeInterval(30))
        #expect(delivery.retryTime(afterAttempt: 2, now: now) == now.addingTimeInterval(60))
        #expect(delivery.retryTime(afterAttempt: 7, now: now) == now.addingTimeInterval(1920))
        #expect(delivery.retryTime(afterAttempt: 8, now: now) == nil)
    }

    @Test("spotterd delivers a registration e-mail on its own when SMTP is configured")
    func serverDelivers() async throws {
        try await withSMTPServer { smtp in
            let environment = [
                "SPOTTER_SMTP_HOST": "localhost", "SPOTTER_SMTP_PORT": "\(smtp.port)",
                "SPOTTER_SMTP_USERNAME": "mailer", "SPOTTER_SMTP_PASSWORD": "smtp secret",
                "SPOTTER_SMTP_CA_FILE": smtp.certificate, "SPOTTER_MAIL_FROM": "hello@spotter.test",
                "SPOTTER_MAILER_INTERVAL_MS": "100",
            ]
            try await TestServer.with(environment: environment) { server in
                try await server.withClient { client in
                    _ = try await Spotter_V1_AuthService.Client(wrapping: client).register(
                        .with {
                            $0.email = "ada@example.com"
                            $0.username = "ada"
                            $0.password = "correct horse battery"
                            $0.kind = .lifter
                        })
                }
                var received: [[String: Any]] = []
                for _ in 0..<100 where received.isEmpty {
                    try await Task.sleep(for: .milliseconds(100))
                    received = try smtp.received()
                }
                #expect(received.first?["to"] as? [String] == ["ada@example.com"])
                #expect(received.first?["from"] as? String == "hello@spotter.test")
            }
        }
    }
}

/// An outbox nobody reads, for tests of pure rules.
private struct UnusedOutbox: OutboxStore {
    func claimDue(now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery] { [] }
    func markSent(_ delivery: OutboxDelivery, at: Date) async throws {}
    func markFailed(_ delivery: OutboxDelivery, error: String, retryAt: Date?) async throws {}
}

@Suite("SMTP message format")
struct SMTPMessageTests {
    @Test("dates follow RFC 5322 in UTC")
    func rfc5322() {
        #expect(rfc5322Date(Date(timeIntervalSince1970: 1_795_260_763)) == "Sat, 21 Nov 2026 11:32:43 +0000")
        #expect(rfc5322Date(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 +0000")
    }

    @Test("lines starting with a dot are dot-stuffed, line ends are CRLF, and non-ASCII subjects are encoded")
    func dotStuffingAndEncoding() {
        let text = SMTPTransport.message(from: "a@x.test", to: "b@y.test", subject: "Grüße", body: "one\n.two\r\nthree")
        #expect(text.contains("Subject: =?UTF-8?B?R3LDvMOfZQ==?="))
        #expect(text.hasSuffix("\r\n\r\none\r\n..two\r\nthree"))
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
    }
}
