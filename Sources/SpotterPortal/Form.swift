import Foundation
import Hummingbird
import SpotterCore

/// The fields of an `application/x-www-form-urlencoded` body, in the order sent.
struct Form: Sendable, Equatable {
    /// Forms are small: a comment is the longest field (2,000 characters).
    static let maximumSize = 64 * 1024

    private(set) var fields: [(name: String, value: String)] = []

    init(fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    static func == (lhs: Form, rhs: Form) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The first value of `name`.
    subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Every value of `name` (a group of checkboxes).
    func all(_ name: String) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    /// The first value of `name`, trimmed; empty when it is missing.
    func text(_ name: String) -> String {
        (self[name] ?? "").trimmingWhitespacesAndNewlines()
    }

    static func read(_ request: Request) async throws -> Form {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maximumSize)
        } catch {
            throw PortalError.badRequest("The form is larger than Spotter accepts (64 kB).")
        }
        return parse(String(buffer: buffer))
    }

    /// Parses `a=1&b=two+words`; a field that is not valid percent-encoding keeps its raw text.
    static func parse(_ body: String) -> Form {
        var form = Form()
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            let value = parts.count > 1 ? decode(parts[1]) : ""
            form.fields.append((name, value))
        }
        return form
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return lineFeeds(spaced.removingPercentEncoding ?? spaced)
    }

    /// A browser sends a text area's line breaks as CR LF; Spotter keeps them as the API does, as LF
    /// (a bio saved in the portal read back over RPC with `\r\n`).
    private static func lineFeeds(_ text: String) -> String {
        guard text.contains(where: { $0 == "\r\n" || $0 == "\r" }) else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }

    /// Percent-encodes a value for a query string or form body.
    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

/// A file sent in a `multipart/form-data` form.
struct Upload: Sendable, Equatable {
    var filename: String
    var data: Data
}

extension Form {
    /// The largest multipart form: an import file and a few fields.
    static let maximumUploadSize = TransferService.maxImportBytes + 64 * 1024

    /// A `multipart/form-data` body (RFC 7578): its text fields as a form, its files by field
    /// name. `nil` when the body is not one.
    static func multipart(_ body: [UInt8], boundary: String) -> (form: Form, files: [String: Upload])? {
        guard !boundary.isEmpty, boundary.utf8.count <= 70 else { return nil }
        let delimiter = Array(("--" + boundary).utf8)
        guard var start = body.firstRange(of: delimiter)?.upperBound else { return nil }
        var form = Form()
        var files: [String: Upload] = [:]
        let separator = Array("\r\n--".utf8) + delimiter.dropFirst(2)
        while true {
            // After a delimiter: "--" ends the body, CRLF starts a part.
            if body[start...].starts(with: Array("--".utf8)) { return (form, files) }
            guard body[start...].starts(with: Array("\r\n".utf8)) else { return nil }
            let partStart = start + 2
            guard let headersEnd = body[partStart...].firstRange(of: Array("\r\n\r\n".utf8)),
                let next = body[headersEnd.upperBound...].firstRange(of: separator)
            else { return nil }
            let headers = String(decoding: body[partStart..<headersEnd.lowerBound], as: UTF8.self)
            let content = body[headersEnd.upperBound..<next.lowerBound]
            if let disposition = Self.disposition(headers), let name = disposition["name"] {
                if let filename = disposition["filename"] {
                    files[name] = Upload(filename: filename, data: Data(content))
                } else {
                    form.fields.append((name, lineFeeds(String(decoding: content, as: UTF8.self))))
                }
            }
            start = next.upperBound
        }
    }

    /// The parameters of a part's `Content-Disposition: form-data; name="…"; filename="…"`.
    private static func disposition(_ headers: String) -> [String: String]? {
        for line in headers.split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-disposition" else { continue }
            var values: [String: String] = [:]
            for parameter in parts[1].split(separator: ";").dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { continue }
                var value = pair[1].trimmingWhitespaces()
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                    value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
                }
                values[pair[0].trimmingWhitespaces().lowercased()] = value
            }
            return values
        }
        return nil
    }

    /// The boundary of a `multipart/form-data` content type; `nil` for any other type.
    static func boundary(_ contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingWhitespaces().lowercased() == "boundary" else {
                continue
            }
            return pair[1].trimmingWhitespaces().trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }
}
