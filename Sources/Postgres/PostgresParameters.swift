import Foundation

/// A statement's parameters as libpq takes them: each one's text followed by a NUL, all in one
/// buffer, written by the parameters themselves (`PostgresEncodable.appendPostgresText`); NULL is
/// no text. One allocation for a statement's parameters, where a `String` and a C copy of it for
/// each parameter cost two or more.
struct PostgresParameters: Sendable {
    /// The texts, each followed by a NUL.
    private var bytes: [UInt8] = []
    /// Where each parameter's text starts in `bytes`; `nil` for NULL.
    private var starts: [Int?] = []

    /// Refuses a text holding a NUL, which would arrive cut short, naming the parameter.
    init(_ parameters: [any PostgresEncodable]) throws(PostgresError) {
        bytes.reserveCapacity(parameters.count * 16)
        starts.reserveCapacity(parameters.count)
        for (index, parameter) in parameters.enumerated() {
            let start = bytes.count
            guard parameter.appendPostgresText(to: &bytes) else {
                starts.append(nil)
                continue
            }
            guard !bytes[start...].contains(0) else {
                throw PostgresError(
                    kind: .parameter, message: "parameter $\(index + 1) holds a NUL character, which text cannot",
                    sqlState: "22021")
            }
            bytes.append(0)
            starts.append(start)
        }
    }

    var count: Int { starts.count }

    /// Each parameter's text, `nil` for NULL (for `PostgresStatementLog`).
    var texts: [String?] {
        starts.map { start in
            start.map { start in
                String(decoding: bytes[start..<bytes[start...].firstIndex(of: 0)!], as: UTF8.self)
            }
        }
    }

    /// Calls `body` with libpq's `paramValues`: a pointer to each text, or null for NULL.
    func withPointers<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { texts in
                withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: max(starts.count, 1)) {
                    pointers in
                    for (index, start) in starts.enumerated() {
                        pointers[index] = start.flatMap { start in texts.baseAddress.map { UnsafePointer($0 + start) } }
                    }
                    return body(UnsafePointer(pointers.baseAddress!))
                }
            }
        }
    }
}
