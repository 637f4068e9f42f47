import Foundation

extension UUID {
    /// The lowercase 8-4-4-4-12 form every id takes on the wire. Written directly: Foundation's
    /// `uuidString` formats through `snprintf`, a visible cost when a pull maps thousands of ids.
    public var lowercasedString: String {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
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
                    return position
                }
            }
        }
    }
}
