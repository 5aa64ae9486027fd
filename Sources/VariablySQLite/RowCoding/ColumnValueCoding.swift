import Foundation
import VariablyCodable

/// Converts single values between Swift and ``SQLValue`` by ``ColumnKind``: the general path, used
/// for predicate arguments, primary keys and the types the row coders have no fast path for.
enum ColumnValueCoding {
    // MARK: - Encoding

    /// The value as stored; text in NFC (see ``TextNormalization``), so that SQL compares it as Swift
    /// compares strings.
    static func encode(_ value: any Encodable, kind: ColumnKind) throws -> SQLValue {
        // The usual primary key types first (a pull encodes a key per record): a cast to a concrete
        // type costs a fraction of the protocol casts below, and gives the same value.
        switch kind {
        case .int64: if let integer = value as? Int64 { return .integer(integer) }
        case .int: if let integer = value as? Int { return .integer(Int64(integer)) }
        case .string: if let string = value as? String { return .text(TextNormalization.nfc(string)) }
        default: break
        }
        let encoded = try encodeOpened(value, kind: kind)
        guard case .text(let text) = encoded else { return encoded }
        return .text(TextNormalization.nfc(text))
    }

    private static func encodeOpened<Value: Encodable>(_ value: Value, kind: ColumnKind) throws -> SQLValue {
        if let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrappedValue else { return .null }
            return try encode(wrapped, kind: kind)
        }
        switch kind {
        case .int, .int64, .int32, .otherInteger, .bool, .double, .float:
            if let bool = value as? Bool { return .integer(bool ? 1 : 0) }
            if let integer = value as? any BinaryInteger {
                guard let exact = Int64(exactly: integer) else {
                    throw EncodingError.invalidValue(
                        value,
                        .init(
                            codingPath: [], debugDescription: "\(Value.self) does not fit in SQLite's 64-bit INTEGER."))
                }
                return .integer(exact)
            }
            if let double = value as? Double { return try real(double, value) }
            if let float = value as? Float { return try real(Double(float), value) }
        case .string:
            if let string = value as? String { return .text(string) }
        case .url:
            if let url = value as? URL { return .text(url.absoluteString) }
        case .uuid:
            if let uuid = value as? UUID { return .text(uuid.uuidString) }
        case .decimal:
            if let decimal = value as? Decimal { return .text(decimal.description) }
        case .data:
            if let data = value as? Data { return .blob(data) }
        case .date(let encoding):
            if let date = value as? Date { return encoding.sqlValue(date) }
        case .formattedDate(let strategy):
            if let date = value as? Date, case .string(let text) = strategy.encodedValue(for: date) {
                return .text(text)
            }
        case .stringArray:
            if let strings = value as? [String] { return .text(ScalarArrayJSON.encode(strings)) }
        case .intArray, .int64Array, .doubleArray, .boolArray:
            if let text = encodeScalarArray(value) { return .text(text) }
        case .codable:
            break
        }
        // A value of another type than the column's (a predicate comparing with a wider type), or a
        // Codable value: classify it by its own type first, then fall back to JSON.
        let ownKind = ColumnKind(for: Value.self, dateEncoding: kind.dateEncoding ?? .secondsSince1970)
        if ownKind != kind, !ownKind.isCodable {
            return try encodeOpened(value, kind: ownKind)
        }
        return try encodeJSON(value)
    }

    /// A real, or an error for NaN: SQLite stores NaN as NULL (https://www.sqlite.org/c3ref/bind_blob.html),
    /// which would read back as a missing value. Infinities are stored and read back as such.
    private static func real(_ double: Double, _ value: some Encodable) throws -> SQLValue {
        guard !double.isNaN else {
            throw EncodingError.invalidValue(
                value,
                .init(codingPath: [], debugDescription: "NaN cannot be stored in SQLite: it would be stored as NULL."))
        }
        return .real(double)
    }

    static func encodeScalarArray(_ value: Any) -> String? {
        if let values = value as? [Int] { return ScalarArrayJSON.encode(values) { String($0) } }
        if let values = value as? [Int64] { return ScalarArrayJSON.encode(values) { String($0) } }
        if let values = value as? [Bool] { return ScalarArrayJSON.encode(values) { $0 ? "true" : "false" } }
        if let values = value as? [Double], values.allSatisfy(\.isFinite) {
            return ScalarArrayJSON.encode(values) { "\($0)" }
        }
        return nil
    }

    /// A single value (a raw-value enum, a wrapper) is stored as that value; an object or an array as JSON text.
    private static func encodeJSON<Value: Encodable>(_ value: Value) throws -> SQLValue {
        // A JSON value can be a string or a number with the same text: its JSON text tells them apart.
        if let json = value as? JSONValue {
            return json.isNull ? .null : .text(json.jsonString())
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = try encoder.encode(value)
        guard let first = json.first else { return .null }
        switch first {
        case UInt8(ascii: "\""):
            return .text(try JSONDecoder().decode(String.self, from: json))
        case UInt8(ascii: "t"): return .integer(1)
        case UInt8(ascii: "f"): return .integer(0)
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return .text(String(decoding: json, as: UTF8.self))
        default:
            let text = String(decoding: json, as: UTF8.self)
            if let integer = Int64(text) { return .integer(integer) }
            return .real(Double(text) ?? 0)
        }
    }

    // MARK: - Decoding

    static func decode<Value: Decodable>(_ type: Value.Type, from value: SQLValue, kind: ColumnKind) throws -> Value {
        let scalar: Any?
        do {
            scalar = try decodeScalar(value, kind: kind, as: Value.self)
        } catch let error as DecodingError {
            // A value of another storage class than the column's (written by other SQL). The column's own
            // type stays strict; what reads any value (a `JSONValue` for lenient decoding, a probe for
            // presence) still reads it, so that `.lenient()` and `ifInvalid:` defaults see the value.
            if ColumnKind(for: Value.self, dateEncoding: kind.dateEncoding ?? .secondsSince1970) == kind {
                throw error
            }
            return try decodeJSON(Value.self, from: value)
        }
        if let scalar, let result = scalar as? Value {
            return result
        }
        return try decodeJSON(Value.self, from: value)
    }

    private static func decodeScalar<Value>(_ value: SQLValue, kind: ColumnKind, as type: Value.Type) throws -> Any? {
        switch (kind, value) {
        case (.bool, .integer(let integer)): return integer != 0
        case (.int, .integer(let integer)): return try exactly(Int.self, integer)
        case (.int64, .integer(let integer)): return integer
        case (.int32, .integer(let integer)): return try exactly(Int32.self, integer)
        case (.otherInteger, .integer(let integer)):
            guard let type = Value.self as? any FixedWidthInteger.Type else { return nil }
            return try exactly(type, integer)
        case (.int, .real(let real)), (.int64, .real(let real)), (.int32, .real(let real)):
            guard let integer = Int64(exactly: real) else { throw mismatch(Value.self, "a non-integral REAL") }
            return try decodeScalar(.integer(integer), kind: kind, as: type)
        case (.double, .real(let real)): return real
        case (.double, .integer(let integer)): return Double(integer)
        case (.float, .real(let real)): return Float(real)
        case (.float, .integer(let integer)): return Float(integer)
        case (.string, .text(let text)): return text
        case (.url, .text(let text)):
            guard let url = URL(string: text) else { throw corrupted("Invalid URL.") }
            return url
        case (.uuid, .text(let text)):
            guard let uuid = UUID(uuidString: text) else { throw corrupted("Invalid UUID.") }
            return uuid
        case (.uuid, .blob(let data)) where data.count == 16:
            return data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        case (.decimal, .text(let text)):
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw corrupted("Invalid decimal number.")
            }
            return decimal
        case (.decimal, .integer(let integer)): return Decimal(integer)
        case (.decimal, .real(let real)): return Decimal(real)
        case (.data, .blob(let data)): return data
        case (.data, .text(let text)): return Data(text.utf8)
        case (.date(let encoding), _): return try decodeDate(value, encoding: encoding)
        case (.formattedDate(let strategy), .text(let text)):
            guard let date = strategy.date(from: text) else { throw corrupted("\"\(text)\" is not a date.") }
            return date
        case (.stringArray, .text(let text)):
            var text = text
            return text.withUTF8 { ScalarArrayJSON.decodeStrings($0) }
        case (.intArray, .text(let text)):
            var text = text
            return text.withUTF8 { ScalarArrayJSON.decodeScalars($0) { Int($0) } }
        case (.int64Array, .text(let text)):
            var text = text
            return text.withUTF8 { ScalarArrayJSON.decodeScalars($0) { Int64($0) } }
        case (.doubleArray, .text(let text)):
            var text = text
            return text.withUTF8 { ScalarArrayJSON.decodeScalars($0) { Double($0) } }
        case (.boolArray, .text(let text)):
            var text = text
            return text.withUTF8 {
                ScalarArrayJSON.decodeScalars($0) { $0 == "true" ? true : $0 == "false" ? false : nil }
            }
        case (.codable, _):
            return nil
        default:
            throw mismatch(Value.self, "a value of storage class \(value.storageClassName)")
        }
    }

    static func decodeDate(_ value: SQLValue, encoding: DateEncoding) throws -> Date {
        switch value {
        case .real(let seconds): return Date(timeIntervalSince1970: seconds)
        case .integer(let integer):
            return Date(
                timeIntervalSince1970: encoding == .millisecondsSince1970 ? Double(integer) / 1000 : Double(integer))
        case .text(let text):
            guard let date = DateEncoding.parseISO8601(text) else { throw corrupted("Invalid ISO 8601 date.") }
            return date
        case .null, .blob: throw mismatch(Date.self, "a value of storage class \(value.storageClassName)")
        }
    }

    private static func decodeJSON<Value: Decodable>(_ type: Value.Type, from value: SQLValue) throws -> Value {
        // One decoder for every reading tried below (a value may be tried as a string, then a number).
        let decoder = JSONDecoder()
        let json: Data
        switch value {
        case .text(let text):
            // Objects and arrays are stored as JSON; single values (a raw-value enum) as themselves.
            if let first = text.utf8.first(where: { $0 > 0x20 }),
                first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
                let decoded = try? decoder.decode(Value.self, from: Data(text.utf8))
            {
                return decoded
            }
            if Value.self == JSONValue.self {
                // Stored as its JSON text (see `encodeJSON`); older rows hold a string's bare text.
                return ((try? JSONValue(parsing: text)) ?? .string(text)) as! Value
            }
            // A single value: a string's text, or a number or Boolean that the TEXT column turned into
            // text ('9', '1'). Read it as a string first, then as that JSON value.
            if let string = try? decoder.decode(Value.self, from: quoted(text)) { return string }
            let isJSONScalar = Double(text) != nil || text == "true" || text == "false"
            if isJSONScalar, let scalar = try? decoder.decode(Value.self, from: Data(text.utf8)) { return scalar }
            if text == "1" || text == "0",
                let flag = try? decoder.decode(Value.self, from: Data((text == "1" ? "true" : "false").utf8))
            {
                return flag
            }
            json = quoted(text)
        case .integer(let integer):
            let number = Data(String(integer).utf8)
            if let value = try? decoder.decode(Value.self, from: number) { return value }
            // A Boolean single value is stored as 1 or 0 (SQLite has no Booleans).
            if integer == 0 || integer == 1,
                let flag = try? decoder.decode(Value.self, from: Data((integer == 1 ? "true" : "false").utf8))
            {
                return flag
            }
            json = number
        case .real(let real): json = Data("\(real)".utf8)
        case .null: json = Data("null".utf8)
        case .blob: throw mismatch(Value.self, "a BLOB")
        }
        return try decoder.decode(Value.self, from: json)
    }

    /// `text` as a JSON string.
    private static func quoted(_ text: String) -> Data {
        // Encoding a String cannot fail.
        (try? JSONEncoder().encode(text)) ?? Data()
    }

    private static func exactly<T: FixedWidthInteger>(_ type: T.Type, _ integer: Int64) throws -> T {
        guard let value = T(exactly: integer) else { throw corrupted("\(integer) does not fit in \(T.self).") }
        return value
    }

    static func mismatch(_ type: Any.Type, _ found: String) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: [], debugDescription: "Expected \(type), found \(found)."))
    }

    static func corrupted(_ message: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: message))
    }
}

extension ColumnKind {
    var dateEncoding: DateEncoding? {
        if case .date(let encoding) = self { return encoding }
        return nil
    }

    var isCodable: Bool {
        if case .codable = self { return true }
        return false
    }
}

extension SQLValue {
    var storageClassName: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

/// Lets generic code see through an `Optional` held as `Any`.
protocol OptionalValue {
    var wrappedValue: (any Encodable)? { get }
    var isNil: Bool { get }
}

extension Optional: OptionalValue {
    var wrappedValue: (any Encodable)? {
        switch self {
        case .some(let value): value as? any Encodable
        case .none: nil
        }
    }

    var isNil: Bool { self == nil }
}
