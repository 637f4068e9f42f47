import Foundation
import Hummingbird

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
        (self[name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
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
        return spaced.removingPercentEncoding ?? spaced
    }

    /// Percent-encodes a value for a query string or form body.
    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
