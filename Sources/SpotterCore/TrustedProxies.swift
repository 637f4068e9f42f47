import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The proxies (`SPOTTER_TRUSTED_PROXIES`, CIDR ranges) whose `x-forwarded-for` metadata names the
/// client. A call from any other peer is taken from its peer address, whatever it claims.
public struct TrustedProxies: Sendable, Equatable {
    /// One CIDR range: the address bytes (4 or 16) and how many leading bits count.
    struct Range: Sendable, Equatable {
        var bytes: [UInt8]
        var prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            for bit in 0..<prefix {
                let mask = UInt8(0x80) >> UInt8(bit % 8)
                if address[bit / 8] & mask != bytes[bit / 8] & mask { return false }
            }
            return true
        }
    }

    private let ranges: [Range]

    public static let none = TrustedProxies(ranges: [])

    private init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// Parses comma-separated ranges such as `10.0.0.0/8, 192.168.1.5, fd00::/8` (an address alone
    /// is a range of one). Throws naming the entry that is not one.
    public init(parsing text: String) throws(TrustedProxyError) {
        var ranges: [Range] = []
        for entry in text.split(separator: ",").map({ $0.trimmingWhitespaces() }) where !entry.isEmpty {
            let parts = entry.split(separator: "/", maxSplits: 1).map(String.init)
            guard let bytes = Self.bytes(of: parts[0]) else { throw TrustedProxyError(entry: entry) }
            let prefix = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let prefix, (0...bytes.count * 8).contains(prefix) else { throw TrustedProxyError(entry: entry) }
            ranges.append(Range(bytes: bytes, prefix: prefix))
        }
        self.ranges = ranges
    }

    public func trusts(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The client's address: `peer`, unless `peer` is a trusted proxy; then the last address of
    /// the `x-forwarded-for` values (each proxy appends the address it received the call from) that
    /// is not itself a trusted proxy. A malformed entry ends the search at the last good one.
    public func clientAddress(peer: String, forwardedFor values: [String]) -> String {
        guard trusts(peer) else { return peer }
        var client = peer
        let hops = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingWhitespaces() }
        for hop in hops.reversed() {
            guard Self.bytes(of: hop) != nil else { break }
            client = hop
            if !trusts(hop) { break }
        }
        return client
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 address in text, or `nil`.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}

public struct TrustedProxyError: Error, Equatable, CustomStringConvertible {
    public let entry: String

    public init(entry: String) {
        self.entry = entry
    }

    public var description: String {
        "\"\(entry)\" is not an IP address or CIDR range such as 10.0.0.0/8 or fd00::/8"
    }
}
