import Foundation
import SpotterCore
import SwiftProtobuf

/// Refuses requests with a NUL character in any string field, nested or repeated. PostgreSQL's text
/// cannot hold one and a C string ends at it, so such a value would be cut short after validation
/// (an e-mail `bob\0@evil.co` stored as `bob`).
enum ZeroByteCheck {
    /// `invalidArgument` naming the first string field that holds a NUL character.
    static func check(_ message: any SwiftProtobuf.Message) throws(SpotterError) {
        var finder = Finder()
        do {
            try message.traverse(visitor: &finder)
        } catch {
            // Only Finder's Found stops the traversal: the field is named by the slow path below.
            throw .invalid(fieldPath(in: message) ?? "request", "must not contain a NUL character")
        }
    }

    /// The path of the first string holding a NUL (`workout.exercises[0].notes`), read from the JSON
    /// form, which names fields; taken only once a NUL was found.
    private static func fieldPath(in message: any SwiftProtobuf.Message) -> String? {
        var options = JSONEncodingOptions()
        options.preserveProtoFieldNames = true
        guard let json = try? message.jsonUTF8Data(options: options),
            let value = try? JSONSerialization.jsonObject(with: json)
        else { return nil }
        return path(to: value, at: "")
    }

    private static func path(to value: Any, at prefix: String) -> String? {
        switch value {
        case let text as String:
            return text.utf8.contains(0) ? prefix : nil
        case let object as [String: Any]:
            for key in object.keys.sorted() {
                if let found = path(to: object[key]!, at: prefix.isEmpty ? key : "\(prefix).\(key)") { return found }
            }
        case let array as [Any]:
            for (index, item) in array.enumerated() {
                if let found = path(to: item, at: "\(prefix)[\(index)]") { return found }
            }
        default:
            break
        }
        return nil
    }

    private struct Found: Error {}

    /// Visits every string (singular, repeated, map keys and values) and stops at the first NUL.
    private struct Finder: SwiftProtobuf.Visitor {
        private func check(_ text: String) throws {
            if text.utf8.contains(0) { throw Found() }
        }

        mutating func visitSingularStringField(value: String, fieldNumber: Int) throws { try check(value) }

        mutating func visitRepeatedStringField(value: [String], fieldNumber: Int) throws {
            for text in value { try check(text) }
        }

        mutating func visitSingularMessageField<M: Message>(value: M, fieldNumber: Int) throws {
            try value.traverse(visitor: &self)
        }

        mutating func visitRepeatedMessageField<M: Message>(value: [M], fieldNumber: Int) throws {
            for message in value { try message.traverse(visitor: &self) }
        }

        mutating func visitSingularGroupField<G: Message>(value: G, fieldNumber: Int) throws {
            try value.traverse(visitor: &self)
        }

        mutating func visitMapField<KeyType, ValueType: MapValueType>(
            fieldType: _ProtobufMap<KeyType, ValueType>.Type,
            value: _ProtobufMap<KeyType, ValueType>.BaseType,
            fieldNumber: Int
        ) throws {
            for (key, item) in value {
                if let key = key as? String { try check(key) }
                if let item = item as? String { try check(item) }
            }
        }

        mutating func visitMapField<KeyType, ValueType>(
            fieldType: _ProtobufEnumMap<KeyType, ValueType>.Type,
            value: _ProtobufEnumMap<KeyType, ValueType>.BaseType,
            fieldNumber: Int
        ) throws {
            for key in value.keys {
                if let key = key as? String { try check(key) }
            }
        }

        mutating func visitMapField<KeyType, ValueType>(
            fieldType: _ProtobufMessageMap<KeyType, ValueType>.Type,
            value: _ProtobufMessageMap<KeyType, ValueType>.BaseType,
            fieldNumber: Int
        ) throws {
            for (key, item) in value {
                if let key = key as? String { try check(key) }
                try item.traverse(visitor: &self)
            }
        }

        // No other kind of field holds text.
        mutating func visitSingularDoubleField(value: Double, fieldNumber: Int) throws {}
        mutating func visitSingularInt64Field(value: Int64, fieldNumber: Int) throws {}
        mutating func visitSingularUInt64Field(value: UInt64, fieldNumber: Int) throws {}
        mutating func visitSingularBoolField(value: Bool, fieldNumber: Int) throws {}
        mutating func visitSingularBytesField(value: Data, fieldNumber: Int) throws {}
        mutating func visitSingularEnumField<E: Enum>(value: E, fieldNumber: Int) throws {}
        mutating func visitUnknown(bytes: Data) throws {}
    }
}
