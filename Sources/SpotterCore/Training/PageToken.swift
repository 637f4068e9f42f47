import Foundation

/// Opaque page tokens: the sort key of a page's last item and a digest of the query it belongs to
/// (the tenant and the filters), base64url-encoded. Clients never parse them; a token that does not
/// decode is a clear `invalidArgument`, never a crash or a wrong page, and so is one returned for
/// another query (a client that changed its filters and kept the token would get the rest of a
/// list it did not ask for).
public enum PageToken {
    public static let defaultSize = 20
    public static let maxSize = 100

    public static func encode(_ parts: [String]) -> String {
        Base64.encodeURLSafe(Array(parts.joined(separator: "\n").utf8))
    }

    /// The parts of `token`, or `nil` for an empty token.
    public static func decode(_ token: String, parts count: Int, field: String = "page.page_token") throws(SpotterError)
        -> [String]?
    {
        guard !token.isEmpty else { return nil }
        guard let bytes = Base64.decodeURLSafe(token), let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalid(field, "is not a token this call returned")
        }
        let parts = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == count else { throw .invalid(field, "is not a token this call returned") }
        return parts
    }

    /// A page size: 0 means the default; 1–100 otherwise.
    public static func size(_ requested: Int, field: String = "page.page_size") throws(SpotterError) -> Int {
        if requested == 0 { return defaultSize }
        guard (1...maxSize).contains(requested) else { throw .invalid(field, "must be between 1 and \(maxSize)") }
        return requested
    }

    /// A timestamp as exact microseconds, for tokens.
    public static func micros(_ date: Date) -> String {
        String(UnixMicros.of(date))
    }

    public static func date(micros text: String, field: String = "page.page_token") throws(SpotterError) -> Date {
        guard let micros = Int64(text), UnixMicros.valid.contains(micros) else {
            throw .invalid(field, "is not a token this call returned")
        }
        return Date(timeIntervalSince1970: TimeInterval(micros) / 1_000_000)
    }

    /// The cursor `token` carries for `query` (what `Page(fetched:limit:query:cursor:)` made it
    /// for), `nil` for the first page; `invalidArgument` for a token that is not one of `C`'s, or
    /// was returned for another query.
    public static func cursor<C: PageCursor>(
        _: C.Type, from token: String, query: [String], field: String = "page.page_token"
    ) throws(SpotterError) -> C? {
        guard let parts = try decode(token, parts: C.tokenPartCount + 1, field: field) else { return nil }
        guard parts.last == digest(query) else {
            throw .invalid(
                field,
                "was returned for another list, other filters or another account; ask for the first page (no page_token)"
            )
        }
        guard let cursor = C(tokenParts: Array(parts.dropLast())) else {
            throw .invalid(field, "is not a token this call returned")
        }
        return cursor
    }

    /// What a token says of its query: FNV-1a (64 bits, hexadecimal) of the parts, each ended by
    /// a unit separator. Not a secret: it only tells one query from another.
    public static func digest(_ query: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in query {
            for byte in part.utf8 + [0x1F] {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
        }
        return String(hash, radix: 16)
    }

    /// The cursor `token` carries, `nil` for the first page; `invalidArgument` for a token that is
    /// not one of `C`'s. For tokens made without a query (the sync cursor).
    public static func cursor<C: PageCursor>(_: C.Type, from token: String, field: String = "page.page_token")
        throws(SpotterError) -> C?
    {
        guard let parts = try decode(token, parts: C.tokenPartCount, field: field) else { return nil }
        guard let cursor = C(tokenParts: parts) else {
            throw .invalid(field, "is not a token this call returned")
        }
        return cursor
    }
}

/// The sort key where a page ends, written into page tokens as text parts.
public protocol PageCursor: Sendable {
    static var tokenPartCount: Int { get }
    /// `nil` when the parts are not a cursor of this kind.
    init?(tokenParts: [String])
    var tokenParts: [String] { get }
}

/// One page of results.
public struct Page<Item: Sendable>: Sendable {
    public var items: [Item]
    /// Empty on the last page.
    public var nextToken: String

    public init(items: [Item], nextToken: String) {
        self.items = items
        self.nextToken = nextToken
    }

    /// The page of `fetched`, which a store read with one item more than `limit` to learn whether
    /// another page follows; the token then carries the cursor of the page's last item and the
    /// digest of `query` (`PageToken.cursor(_:from:query:)` reads it back).
    public init<C: PageCursor>(fetched: [Item], limit: Int, query: [String], cursor: (Item) -> C) {
        items = Array(fetched.prefix(limit))
        nextToken =
            fetched.count > limit
            ? items.last.map { PageToken.encode(cursor($0).tokenParts + [PageToken.digest(query)]) } ?? "" : ""
    }
}
