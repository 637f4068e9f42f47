import Foundation
import SpotterCore
import SpotterServer
import Testing

@Suite("spotterd's settings from the environment")
struct ServerConfigurationTests {
    /// The error `environment` is refused with, as spotterd prints it.
    func refusal(_ environment: [String: String]) -> String? {
        do {
            _ = try ServerConfiguration.fromEnvironment(environment)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("nothing set: the documented defaults")
    func defaults() throws {
        let settings = try ServerConfiguration.fromEnvironment([:])
        #expect(settings.port == 8443 && settings.portalPort == 8444 && settings.host == "127.0.0.1")
        #expect(settings.poolSize == 10)
        #expect(settings.mailFrom == "no-reply@localhost")
        #expect(settings.smtp == nil)
        #expect(settings.metricsAddress?.host == "127.0.0.1" && settings.metricsAddress?.port == 9464)
    }

    @Test("spotterd given only its own login works through it, and then may not migrate")
    func serverLoginAlone() throws {
        let server = "postgresql://spotter_server:secret@db.internal/spotter"
        #expect(
            refusal(["SPOTTER_SERVER_DATABASE_URL": server])?.hasPrefix(
                "SPOTTER_MIGRATE_ON_START: must be false with SPOTTER_SERVER_DATABASE_URL and no SPOTTER_DATABASE_URL")
                == true)
        let alone = try ServerConfiguration.fromEnvironment([
            "SPOTTER_SERVER_DATABASE_URL": server, "SPOTTER_MIGRATE_ON_START": "false",
        ])
        #expect(alone.database == .external(server) && alone.serverDatabaseURL == server)
        let both = try ServerConfiguration.fromEnvironment([
            "SPOTTER_DATABASE_URL": "postgresql://spotter_owner:x@db.internal/spotter",
            "SPOTTER_SERVER_DATABASE_URL": server,
        ])
        #expect(both.database == .external("postgresql://spotter_owner:x@db.internal/spotter"))
    }

    @Test(
        "a value that cannot be used is refused with the variable's name and what it must be",
        arguments: [
            (["SPOTTER_GRPC_PORT": "70000"], "SPOTTER_GRPC_PORT: must be an integer from 0 to 65535"),
            (["SPOTTER_DATABASE_POOL_SIZE": "ten"], "SPOTTER_DATABASE_POOL_SIZE: must be an integer from 1 to 500"),
            (["SPOTTER_PORTAL_PORT": "on"], "SPOTTER_PORTAL_PORT: must be a port from 0 to 65535 or off"),
            (["SPOTTER_MIGRATE_ON_START": "maybe"], "SPOTTER_MIGRATE_ON_START: must be true or false"),
            (["SPOTTER_METRICS_ADDRESS": "9464"], "SPOTTER_METRICS_ADDRESS: must be host:port"),
            (
                ["SPOTTER_TLS_CERT": "/etc/spotter/cert.pem"],
                "SPOTTER_TLS_CERT: set both SPOTTER_TLS_CERT and SPOTTER_TLS_KEY"
            ),
            (
                ["SPOTTER_SMTP_HOST": "mail", "SPOTTER_SMTP_SECURITY": "ssl"],
                "SPOTTER_SMTP_SECURITY: must be starttls or none"
            ),
            (
                ["SPOTTER_SMTP_HOST": "mail", "SPOTTER_SMTP_CA_FILE": "/nonexistent/ca.pem"],
                "SPOTTER_SMTP_CA_FILE: /nonexistent/ca.pem is not a file this process can read"
            ),
            (["SPOTTER_MAIL_FROM": "Spotter <no-reply@example.com>"], "SPOTTER_MAIL_FROM: must be one e-mail address"),
            (["SPOTTER_MAIL_FROM": "no-reply"], "SPOTTER_MAIL_FROM: must be one e-mail address"),
            (["SPOTTER_MAIL_FROM": "a@b@c"], "SPOTTER_MAIL_FROM: must be one e-mail address"),
            (
                ["SPOTTER_MAIL_FROM": "no-reply@example.com>\r\nRCPT TO:<x@y>"],
                "SPOTTER_MAIL_FROM: must be one e-mail address"
            ),
            (
                ["SPOTTER_SMTP_HOST": "mail", "SPOTTER_SMTP_HELO": "spotter\r\nRSET"],
                "SPOTTER_SMTP_HELO: must be a host name"
            ),
            (
                ["SPOTTER_SMTP_HOST": "mail", "SPOTTER_SMTP_HELO": "spotter example"],
                "SPOTTER_SMTP_HELO: must be a host name"
            ),
            (["SPOTTER_SMTP_HOST": "mail", "SPOTTER_SMTP_HELO": "a..b"], "SPOTTER_SMTP_HELO: must be a host name"),
            (["SPOTTER_PUBLIC_URL": "spotter.example.com"], "SPOTTER_PUBLIC_URL: must be the portal's address"),
            (["SPOTTER_PUBLIC_URL": "ftp://spotter.example.com"], "SPOTTER_PUBLIC_URL: must be the portal's address"),
            (
                ["SPOTTER_PUBLIC_URL": "https://spotter.example.com/?a=b"],
                "SPOTTER_PUBLIC_URL: must be the portal's address"
            ),
            (["SPOTTER_PUBLIC_URL": "https://"], "SPOTTER_PUBLIC_URL: must be the portal's address"),
        ])
    func refused(environment: [String: String], message: String) {
        let refusal = refusal(environment)
        #expect(refusal?.hasPrefix(message) == true, "\(String(describing: refusal))")
    }

    @Test("an e-mail sender and an EHLO name that are well formed are kept as given")
    func mailSettings() throws {
        let settings = try ServerConfiguration.fromEnvironment([
            "SPOTTER_SMTP_HOST": "smtp.example.com", "SPOTTER_MAIL_FROM": "coach-news+bounces@spotter.example.com",
            "SPOTTER_SMTP_HELO": "App-1.spotter.example.com",
        ])
        #expect(settings.mailFrom == "coach-news+bounces@spotter.example.com")
        #expect(settings.smtp?.heloName == "App-1.spotter.example.com")
        #expect(
            try ServerConfiguration.fromEnvironment(["SPOTTER_SMTP_HOST": "mail"]).smtp?.heloName
                == "spotter.localdomain")
    }

    @Test("the portal's public address starts every e-mailed link; a trailing slash is dropped")
    func publicURL() throws {
        #expect(try ServerConfiguration.fromEnvironment([:]).auth.publicURL == "https://localhost:8444")
        #expect(
            try ServerConfiguration.fromEnvironment(["SPOTTER_PUBLIC_URL": "https://spotter.example.com/"]).auth
                .publicURL == "https://spotter.example.com")
        #expect(
            try ServerConfiguration.fromEnvironment(["SPOTTER_PUBLIC_URL": "http://10.0.0.5:8444/spotter"]).auth
                .publicURL == "http://10.0.0.5:8444/spotter")
        // No portal and no public address of one: no link at all (it pointed at the gRPC port),
        // and the e-mails give the code alone.
        let noPortal = try ServerConfiguration.fromEnvironment(["SPOTTER_PORTAL_PORT": "off"]).auth.publicURL
        #expect(noPortal == "")
        let reset = Mail.passwordReset(to: "a@example.com", token: "spp_x", publicURL: noPortal)
        #expect(
            !reset.body.contains("http") && reset.body.contains("enter this code in the app: spp_x"), "\(reset.body)")
        #expect(reset.body.contains("The code works once"))
        let verify = Mail.verification(to: "a@example.com", username: "ada", token: "spv_x", publicURL: noPortal)
        #expect(verify.body.contains("please confirm your e-mail address by entering this code in the app: spv_x"))
        let linked = Mail.passwordReset(to: "a@example.com", token: "spp_x", publicURL: "https://s.example")
        #expect(
            linked.body.contains(
                "To choose a new password, open this link:\nhttps://s.example/reset-password?token=spp_x\n\nor enter this code in the app: spp_x"
            ), "\(linked.body)")
    }
}
