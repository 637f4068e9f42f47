import Foundation

extension UUID {
    /// The lowercase 8-4-4-4-12 form every id takes on the wire. Written directly: Foundation's
    /// `uuidString` formats through `snprintf`, a visible cost when a pull maps thousands of ids.
    public var lowercasedString: String {
        String(unsafeUninitializedCapacity: 36) { out in
            writeLowercased(into: out)
            return 36
        }
    }

    /// Appends `lowercasedString`'s 36 bytes of UTF-8 to `bytes`, without making a `String`.
    public func appendLowercased(to bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 36))
        bytes.withUnsafeMutableBufferPointer { buffer in
            writeLowercased(into: UnsafeMutableBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Writes the 36 bytes of the lowercase form at the start of `out`.
    private func writeLowercased(into out: UnsafeMutableBufferPointer<UInt8>) {
        let digits: StaticString = "0123456789abcdef"
        withUnsafeBytes(of: uuid) { bytes in
            digits.withUTF8Buffer { digits in
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = digits[Int(byte >> 4)]
                    out[position + 1] = digits[Int(byte & 0x0f)]
                    position += 2
                }
            }
        }
    }

    /// Parses the 8-4-4-4-12 hexadecimal form, in either case: what `UUID(uuidString:)` accepts,
    /// as PostgreSQL writes a `uuid` and clients send ids. Foundation's parser goes through
    /// `sscanf`, which was the largest single cost of decoding a page of workouts with their sets.
    public init?(hexadecimal text: String) {
        var text = text
        guard let value = text.withUTF8({ UUID(hexadecimalUTF8: $0) }) else { return nil }
        self = value
    }

    /// `init?(hexadecimal:)` on the text's UTF-8 (a value in a result's buffer, without a `String`).
    public init?(hexadecimalUTF8 utf8: UnsafeBufferPointer<UInt8>) {
        guard utf8.count == 36 else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &bytes) { out -> Bool in
            var index = 0
            var byte = 0
            while index < 36 {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard utf8[index] == UInt8(ascii: "-") else { return false }
                    index += 1
                    continue
                }
                guard let high = utf8[index].hexadecimalDigitValue,
                    let low = utf8[index + 1].hexadecimalDigitValue
                else {
                    return false
                }
                out[byte] = high << 4 | low
                byte += 1
                index += 2
            }
            return true
        }
        guard parsed else { return nil }
        self.init(uuid: bytes)
    }
}

extension UInt8 {
    /// The value of this byte as a hexadecimal digit (`0`–`9`, `a`–`f`, `A`–`F`), or `nil`.
    public var hexadecimalDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
