import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import SpotterProto
import SpotterTestSupport
import Synchronization
import Testing

/// Two spotterd processes on one PostgreSQL, as a deployment with two replicas runs them.
@Suite("Replicas")
struct ReplicaTests {
    /// One replica as a client sees it: where it listens and the certificate it presents.
    private struct Endpoint: Sendable {
        let port: Int
        let certificate: String

        init(_ process: SpotterdProcess) {
            port = process.port
            certificate = process.certificate
        }

        func profile(_ token: Metadata) async throws -> String {
            try await TestServer.withClient(port: port, certificate: certificate) { client in
                try await Spotter_V1_AccountService.Client(wrapping: client).getProfile(.init(), metadata: token)
                    .username
            }
        }
    }

    /// The replicas a client knows of, changed while it calls them.
    private final class Endpoints: Sendable {
        private let value: Mutex<[Endpoint]>

        init(_ endpoints: [Endpoint]) { value = Mutex(endpoints) }

        var current: [Endpoint] { value.withLock { $0 } }

        func replace(_ index: Int, with endpoint: Endpoint) { value.withLock { $0[index] = endpoint } }
    }

    @Test(
        "two replicas: signed in on one, served by the other; e-mails queued through both are each sent once; a rolling restart fails no call a client would not retry"
    )
    func twoReplicas() async throws {
        try await TestDatabase.with { database in
            let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("smtp-\(UUID())")
            defer { try? FileManager.default.removeItem(at: directory) }
            let smtp = try await MailerTests.SMTPServer(directory: directory)
            defer { smtp.stop() }
            let environment = [
                "SPOTTER_DATABASE_URL": database.ownerConfiguration.connectionString,
                "SPOTTER_SMTP_HOST": "localhost", "SPOTTER_SMTP_PORT": "\(smtp.port)",
                "SPOTTER_SMTP_USERNAME": "mailer", "SPOTTER_SMTP_PASSWORD": "smtp secret",
                "SPOTTER_SMTP_CA_FILE": smtp.certificate, "SPOTTER_MAILER_INTERVAL_MS": "50",
            ]
            var processes = [
                try SpotterdProcess(environment: environment), try SpotterdProcess(environment: environment),
            ]
            defer { for process in processes { process.cleanUp() } }
            for process in processes {
                try #require(try await process.waitUntilServing(), "spotterd:\n\(process.logText)")
            }

            // Signed in through the first, the token works on the second.
            let token = try await processes[0].withClient { try await signUpLifter($0, "ada") }
            #expect(try await Endpoint(processes[1]).profile(token) == "ada")

            // Twenty more registrations, alternately through each: both mailers run, and each
            // verification e-mail (21 with Ada's) is sent exactly once.
            for index in 0..<20 {
                _ = try await processes[index % 2].withClient { try await signUpLifter($0, "lifter\(index)") }
            }
            var received: [[String: Any]] = []
            for _ in 0..<300 where received.count < 21 {
                try await Task.sleep(for: .milliseconds(100))
                received = try smtp.received()
            }
            try await Task.sleep(for: .seconds(1))  // time for a duplicate to show up, were there one
            received = try smtp.received()
            let recipients = received.compactMap { ($0["to"] as? [String])?.first }
            #expect(received.count == 21, "\(received.count) messages")
            #expect(Set(recipients).count == 21)

            // A client calling the replicas in turn, retrying a refused call on the other one, while
            // each replica in turn is stopped (SIGTERM) and replaced by a new process.
            let endpoints = Endpoints([Endpoint(processes[0]), Endpoint(processes[1])])
            let restarting = Flag()
            let calls = Task {
                var outcome = (calls: 0, retried: [String](), failed: [String]())  // failed: after three attempts
                var turn = 0
                while !restarting.isSet || outcome.calls < 40 {
                    turn += 1
                    outcome.calls += 1
                    // Like a gRPC client with a retry policy and fresh name resolution: a refused
                    // attempt goes to the other replica as the client knows them now, three at most.
                    var lastError: (any Error)?
                    for attempt in 0..<3 {
                        do {
                            _ = try await endpoints.current[(turn + attempt) % 2].profile(token)
                            lastError = nil
                            break
                        } catch let error as RPCError {
                            outcome.retried.append("\(error.code)")
                            lastError = error
                        }
                    }
                    if let lastError { outcome.failed.append("\(lastError)") }
                    if outcome.calls > 2000 { break }
                }
                return outcome
            }
            for index in 0..<2 {
                await processes[index].stop()
                let replacement = try SpotterdProcess(environment: environment)
                processes.append(replacement)
                try #require(try await replacement.waitUntilServing(), "spotterd:\n\(replacement.logText)")
                endpoints.replace(index, with: Endpoint(replacement))
            }
            restarting.set()
            let outcome = try await calls.value
            print(
                "rolling restart: \(outcome.calls) calls, \(outcome.retried.count) attempts retried on the other replica "
                    + "(\(Set(outcome.retried).sorted())), \(outcome.failed.count) failed")
            #expect(outcome.failed.isEmpty, "calls that failed three times: \(outcome.failed)")
            #expect(
                outcome.retried.allSatisfy { $0 == "unavailable" },
                "attempts failed with codes a client would not retry: \(outcome.retried)")
            #expect(outcome.calls >= 40)
            for process in processes { await process.stop() }
        }
    }
}
