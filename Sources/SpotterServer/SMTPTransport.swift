import Foundation
import Logging
import NIOCore
import NIOExtras
import NIOPosix
import NIOSSL
import SpotterCore

/// Sends mail with SMTP (RFC 5321), STARTTLS (RFC 3207) and AUTH PLAIN (RFC 4954), one connection
/// per message. 5xx replies to MAIL, RCPT or DATA are permanent failures; other failures (4xx, 5xx
/// to EHLO, STARTTLS or AUTH, network errors) are retried later.
public struct SMTPTransport: MailTransport {
    private let configuration: SMTPConfiguration

    public init(configuration: SMTPConfiguration) {
        self.configuration = configuration
    }

    public func send(from sender: String, to recipient: String, subject: String, body: String) async throws {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .connect(host: configuration.host, port: configuration.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineBasedFrameDecoder()))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw MailDeliveryError(
                "cannot connect to \(configuration.host):\(configuration.port): \(error)", permanent: false)
        }
        try await channel.executeThenClose { inbound, outbound in
            var session = SMTPSession(lines: inbound.makeAsyncIterator(), outbound: outbound)
            try await session.expect(220, after: nil)
            var capabilities = try await session.command("EHLO \(configuration.heloName)", expect: 250)
            if configuration.security == .startTLS {
                guard capabilities.contains(where: { $0.uppercased().hasPrefix("STARTTLS") }) else {
                    throw MailDeliveryError("the SMTP server does not offer STARTTLS", permanent: false)
                }
                _ = try await session.command("STARTTLS", expect: 220)
                try await startTLS(on: channel.channel)
                capabilities = try await session.command("EHLO \(configuration.heloName)", expect: 250)
            }
            if let username = configuration.username {
                let credentials = Data(([0] + Array(username.utf8) + [0] + Array((configuration.password ?? "").utf8)))
                _ = try await session.command("AUTH PLAIN \(credentials.base64EncodedString())", expect: 235)
            }
            _ = try await session.command("MAIL FROM:<\(sender)>", expect: 250)
            _ = try await session.command("RCPT TO:<\(recipient)>", expect: 250, 251)
            _ = try await session.command("DATA", expect: 354)
            try await session.write(Self.message(from: sender, to: recipient, subject: subject, body: body) + "\r\n.")
            try await session.expect(250, after: "DATA")
            _ = try? await session.command("QUIT", expect: 221)
        }
    }

    private func startTLS(on channel: any Channel) async throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let file = configuration.trustRootsFile {
            tls.trustRoots = .file(file)
        }
        let context = try NIOSSLContext(configuration: tls)
        let host = configuration.host
        // TLS goes first in the pipeline, below the line decoder; handlers are made on the event loop.
        try await channel.eventLoop.submit {
            let handler = try NIOSSLClientHandler(context: context, serverHostname: host)
            try channel.pipeline.syncOperations.addHandler(handler, position: .first)
        }.get()
    }

    /// RFC 5322 headers and a dot-stuffed, CRLF-terminated UTF-8 body.
    static func message(from sender: String, to recipient: String, subject: String, body: String) -> String {
        let encodedSubject =
            subject.allSatisfy(\.isASCII)
            ? subject : "=?UTF-8?B?\(Data(subject.utf8).base64EncodedString())?="
        let date = rfc5322Date(Date())
        let headers = [
            "From: Spotter <\(sender)>", "To: <\(recipient)>", "Subject: \(encodedSubject)", "Date: \(date)",
            "Message-ID: <\(UUID().lowercasedString)@spotter>", "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit",
        ]
        let lines = body.replacingOccurrences(of: "\r\n", with: "\n").split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .map { $0.hasPrefix(".") ? "." + $0 : String($0) }
        return (headers + [""] + lines).joined(separator: "\r\n")
    }
}

/// `Sat, 21 Nov 2026 11:32:43 +0000` (RFC 5322 section 3.3), in UTC, independent of locale.
func rfc5322Date(_ date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
    let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
    return
        "\(weekdays[(parts.weekday ?? 1) - 1]), \(two(parts.day)) \(months[(parts.month ?? 1) - 1]) \(parts.year ?? 1970) "
        + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) +0000"
}

/// The reply-reading and command-writing half of one SMTP conversation.
private struct SMTPSession {
    var lines: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    var last = ""

    mutating func write(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text + "\r\n"))
    }

    /// Sends a command and reads its reply, which must have one of `codes`; returns the reply lines.
    mutating func command(_ text: String, expect codes: Int...) async throws -> [String] {
        try await write(text)
        last = String(text.prefix(4))
        return try await reply(expect: codes)
    }

    mutating func expect(_ code: Int, after command: String?) async throws {
        last = command ?? "greeting"
        _ = try await reply(expect: [code])
    }

    /// Reads a possibly multi-line reply (`250-…` continues, `250 …` ends).
    private mutating func reply(expect codes: [Int]) async throws -> [String] {
        var texts: [String] = []
        while true {
            guard let buffer = try await lines.next() else {
                throw MailDeliveryError("the SMTP server closed the connection after \(last)", permanent: false)
            }
            var line = String(buffer: buffer)
            if line.hasSuffix("\r") { line.removeLast() }
            guard line.count >= 3, let code = Int(line.prefix(3)) else {
                throw MailDeliveryError("unexpected SMTP reply after \(last): \(line)", permanent: false)
            }
            texts.append(String(line.dropFirst(4)))
            if line.count > 3, line[line.index(line.startIndex, offsetBy: 3)] == "-" { continue }
            guard codes.contains(code) else {
                // A 5xx about this message (sender, recipient, content) will not change on retry; one
                // about the session (EHLO, STARTTLS, AUTH) is a configuration to fix, so retry later.
                let aboutMessage = ["MAIL", "RCPT", "DATA"].contains(last)
                throw MailDeliveryError(
                    "SMTP \(last) answered \(line)", permanent: aboutMessage && (500...599).contains(code))
            }
            return texts
        }
    }
}

/// Development delivery: writes the e-mail to the log instead of sending it.
public struct LogMailTransport: MailTransport {
    private let logger: Logging.Logger

    public init(logger: Logging.Logger) {
        self.logger = logger
    }

    public func send(from sender: String, to recipient: String, subject: String, body: String) async throws {
        // The text in the message, after it: metadata comes first on a line, and a body of several
        // lines there read as if the e-mail came before the note that it was not sent.
        logger.notice(
            "e-mail not sent (no SMTP configured); to \(recipient), \"\(subject)\":\n\(body)",
            metadata: ["to": "\(recipient)", "subject": "\(subject)"]
        )
    }
}
