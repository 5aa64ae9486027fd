internal import CSQLite
import Foundation
import VariablyCodable

/// Reads the entries of a key set from the current row of a statement, by column index.
///
/// One backend serves every row of a statement: the entry -> column table is built once, then each
/// read is a type check, a switch and one `sqlite3_column_*` call, without dictionaries or strings.
final class RowDecodingBackend: KeySetDecodingBackend {
    private let statement: Statement
    private let handle: OpaquePointer
    private let slots: [ColumnSlot]
    /// The column each entry is read from, by name, for errors.
    private let columns: [String]

    /// - Parameters:
    ///   - slots: One per key-set entry; `index` is the column, or -1 when the query lacks it.
    ///   - columns: One per key-set entry: the name of its column, for errors.
    init(statement: Statement, slots: [ColumnSlot], columns: [String]) {
        self.statement = statement
        self.handle = statement.handle
        self.slots = slots
        self.columns = columns
    }

    /// Where a value came from, for errors: the column and the SQL.
    private func origin(_ entry: Int) -> String {
        "column \(SQL.quote(columns[entry])) of `\(statement.sql)`"
    }

    /// `error` with the column and the SQL added to its description.
    private func located(_ error: DecodingError, entry: Int) -> DecodingError {
        switch error {
        case .typeMismatch(let type, let context):
            .typeMismatch(
                type,
                .init(
                    codingPath: context.codingPath, debugDescription: context.debugDescription + " (\(origin(entry)))",
                    underlyingError: context.underlyingError))
        case .dataCorrupted(let context):
            .dataCorrupted(
                .init(
                    codingPath: context.codingPath, debugDescription: context.debugDescription + " (\(origin(entry)))",
                    underlyingError: context.underlyingError))
        case .valueNotFound(let type, let context):
            .valueNotFound(
                type,
                .init(
                    codingPath: context.codingPath, debugDescription: context.debugDescription + " (\(origin(entry)))",
                    underlyingError: context.underlyingError))
        default:
            error
        }
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [.codingSource: CodingSource.sqlite] }

    func contains(entry index: Int) -> Bool {
        slots[index].index >= 0
    }

    func decode<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value {
        let slot = slots[index]
        guard slot.index >= 0 else {
            throw DecodingError.keyNotFound(
                AnyCodingKey(columns[index]),
                .init(
                    codingPath: [],
                    debugDescription:
                        "The query `\(statement.sql)` has no column \(SQL.quote(columns[index])) for this property."))
        }
        let (value, storage) = value(at: slot.index)
        guard storage != SQLITE_NULL else {
            throw DecodingError.valueNotFound(
                Value.self, .init(codingPath: [], debugDescription: "The \(origin(index)) is NULL."))
        }
        do {
            return try read(Value.self, slot: slot, value: value, storage: storage)
        } catch let error as DecodingError {
            throw located(error, entry: index)
        }
    }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value? {
        let slot = slots[index]
        guard slot.index >= 0 else { return nil }
        let (value, storage) = value(at: slot.index)
        guard storage != SQLITE_NULL else { return nil }
        do {
            return try read(Value.self, slot: slot, value: value, storage: storage)
        } catch let error as DecodingError {
            throw located(error, entry: index)
        }
    }

    // Each read takes the column's value once (`sqlite3_column_value`) and reads its storage class,
    // number or text from it (`sqlite3_value_*`): one call of the column API per column instead of two
    // or three, each of which enters the connection's mutex, checks the index and settles the error
    // state. The value is "unprotected" (https://www.sqlite.org/c3ref/value.html), a difference that
    // matters only where the connection's mutex is real: connections here are opened
    // `SQLITE_OPEN_NOMUTEX` and used by one thread at a time. It is read before the next step.

    /// Column `column`'s value, and its storage class.
    @inline(__always)
    private func value(at column: Int32) -> (OpaquePointer?, Int32) {
        let value = sqlite3_column_value(handle, column)
        return (value, sqlite3_value_type(value))
    }

    /// The UTF-8 bytes of a value of storage class TEXT, without copying them.
    @inline(__always)
    private static func utf8(of value: OpaquePointer?) -> UnsafeBufferPointer<UInt8> {
        // text before bytes: https://www.sqlite.org/c3ref/value_blob.html ("the safest policy").
        let text = sqlite3_value_text(value)
        return UnsafeBufferPointer(start: text, count: text == nil ? 0 : Int(sqlite3_value_bytes(value)))
    }

    /// The text of a value of storage class TEXT.
    @inline(__always)
    private static func text(of value: OpaquePointer?) -> String {
        ColumnText.string(utf8(of: value))
    }

    // The common scalars, read without generic dispatch when the column holds what the property's kind
    // expects; anything else (NULL, another storage class, a missing column) takes the generic path,
    // which throws the located error.

    func decodeString(entry index: Int) throws -> String {
        let slot = slots[index]
        if case .string = slot.kind, slot.index >= 0 {
            let (value, storage) = value(at: slot.index)
            if storage == SQLITE_TEXT { return Self.text(of: value) }
        }
        return try decode(String.self, entry: index)
    }

    func decodeInt(entry index: Int) throws -> Int {
        let slot = slots[index]
        if case .int = slot.kind, slot.index >= 0 {
            let (value, storage) = value(at: slot.index)
            if storage == SQLITE_INTEGER { return Int(sqlite3_value_int64(value)) }
        }
        return try decode(Int.self, entry: index)
    }

    func decodeInt64(entry index: Int) throws -> Int64 {
        let slot = slots[index]
        if case .int64 = slot.kind, slot.index >= 0 {
            let (value, storage) = value(at: slot.index)
            if storage == SQLITE_INTEGER { return sqlite3_value_int64(value) }
        }
        return try decode(Int64.self, entry: index)
    }

    func decodeDouble(entry index: Int) throws -> Double {
        let slot = slots[index]
        if case .double = slot.kind, slot.index >= 0 {
            let (value, storage) = value(at: slot.index)
            if storage == SQLITE_FLOAT || storage == SQLITE_INTEGER { return sqlite3_value_double(value) }
        }
        return try decode(Double.self, entry: index)
    }

    func decodeBool(entry index: Int) throws -> Bool {
        let slot = slots[index]
        if case .bool = slot.kind, slot.index >= 0 {
            let (value, storage) = value(at: slot.index)
            if storage == SQLITE_INTEGER { return sqlite3_value_int64(value) != 0 }
        }
        return try decode(Bool.self, entry: index)
    }

    func decodeDate(entry index: Int) throws -> Date {
        let slot = slots[index]
        if case .date(.secondsSince1970) = slot.kind, slot.index >= 0 {
            let (value, storage) = value(at: slot.index)
            if storage == SQLITE_FLOAT { return Date(timeIntervalSince1970: sqlite3_value_double(value)) }
        }
        return try decode(Date.self, entry: index)
    }

    func decodeStrings(entry index: Int) throws -> [String] {
        let slot = slots[index]
        if case .stringArray = slot.kind, slot.index >= 0 {
            let (value, storage) = value(at: slot.index)
            if storage == SQLITE_TEXT, let strings = ScalarArrayJSON.decodeStrings(Self.utf8(of: value)) {
                return strings
            }
        }
        return try decode([String].self, entry: index)
    }

    @inline(__always)
    private func read<Value: Decodable>(_ type: Value.Type, slot: ColumnSlot, value: OpaquePointer?, storage: Int32)
        throws -> Value
    {
        // The kind was chosen from the property's type; the bit casts below are between identical types.
        if Value.self == slot.type {
            switch slot.kind {
            case .int where storage == SQLITE_INTEGER:
                return unsafeBitCast(Int(sqlite3_value_int64(value)), to: Value.self)
            case .int64 where storage == SQLITE_INTEGER:
                return unsafeBitCast(sqlite3_value_int64(value), to: Value.self)
            case .bool where storage == SQLITE_INTEGER:
                return unsafeBitCast(sqlite3_value_int64(value) != 0, to: Value.self)
            case .double where storage == SQLITE_FLOAT || storage == SQLITE_INTEGER:
                return unsafeBitCast(sqlite3_value_double(value), to: Value.self)
            case .string where storage == SQLITE_TEXT:
                return unsafeBitCast(Self.text(of: value), to: Value.self)
            case .date(.secondsSince1970) where storage == SQLITE_FLOAT:
                return unsafeBitCast(Date(timeIntervalSince1970: sqlite3_value_double(value)), to: Value.self)
            case .stringArray where storage == SQLITE_TEXT:
                if let strings = ScalarArrayJSON.decodeStrings(Self.utf8(of: value)) {
                    return unsafeBitCast(strings, to: Value.self)
                }
            default:
                break
            }
        }
        return try ColumnValueCoding.decode(Value.self, from: statement.value(at: slot.index), kind: slot.kind)
    }
}
