internal import CSQLite
import Foundation
import VariablyCodable

/// Binds the entries of a key set to a statement's parameters, by parameter index. Text is bound in
/// NFC (see ``TextNormalization``).
///
/// One sink serves every model bound to a statement: the entry -> parameter table is built once.
final class RowEncodingSink: KeySetEncodingSink {
    private let statement: Statement
    private let handle: OpaquePointer
    private let slots: [ColumnSlot]

    /// - Parameter slots: One per key-set entry; `index` is the 1-based parameter, or 0 to skip the entry.
    init(statement: Statement, slots: [ColumnSlot]) {
        self.statement = statement
        self.handle = statement.handle
        self.slots = slots
    }

    func encode<Value: Encodable>(_ value: Value, at index: Int) throws {
        let slot = slots[index]
        let parameter = slot.index
        guard parameter > 0 else { return }
        var code: Int32 = -1
        // The kind was chosen from the property's type; the bit casts below are between identical types.
        if Value.self == slot.type {
            switch slot.kind {
            case .int:
                code = sqlite3_bind_int64(handle, parameter, Int64(unsafeBitCast(value, to: Int.self)))
            case .int64:
                code = sqlite3_bind_int64(handle, parameter, unsafeBitCast(value, to: Int64.self))
            case .int32:
                code = sqlite3_bind_int64(handle, parameter, Int64(unsafeBitCast(value, to: Int32.self)))
            case .bool:
                code = sqlite3_bind_int64(handle, parameter, unsafeBitCast(value, to: Bool.self) ? 1 : 0)
            case .double:
                let double = unsafeBitCast(value, to: Double.self)
                // SQLite binds NaN as NULL; the general path throws for it.
                if !double.isNaN { code = sqlite3_bind_double(handle, parameter, double) }
            case .string:
                code = statement.bindRecordText(unsafeBitCast(value, to: String.self), at: parameter)
            case .date(.secondsSince1970):
                code = sqlite3_bind_double(
                    handle, parameter, unsafeBitCast(value, to: Date.self).timeIntervalSince1970)
            case .stringArray:
                code = statement.bindRecordJSON(unsafeBitCast(value, to: [String].self), at: parameter)
            default:
                break
            }
        }
        if code == -1 {
            try statement.bind(ColumnValueCoding.encode(value, kind: slot.kind), at: parameter)
            return
        }
        guard code == SQLITE_OK else { throw statement.database.error(code: code, sql: statement.sql) }
    }

    func encodeNil(at index: Int) throws {
        let parameter = slots[index].index
        guard parameter > 0 else { return }
        let code = sqlite3_bind_null(handle, parameter)
        guard code == SQLITE_OK else { throw statement.database.error(code: code, sql: statement.sql) }
    }
}

/// Collects the values a model binds, for the ``SQLiteError/arguments`` of a failed write: only
/// used once something has gone wrong, so it may be slow.
final class CapturingEncodingSink: KeySetEncodingSink {
    private let slots: [ColumnSlot]
    private(set) var values: [SQLValue]

    init(slots: [ColumnSlot]) {
        self.slots = slots
        self.values = Array(repeating: .null, count: slots.map { Int($0.index) }.max() ?? 0)
    }

    func encode<Value: Encodable>(_ value: Value, at index: Int) throws {
        let parameter = Int(slots[index].index)
        guard parameter > 0 else { return }
        values[parameter - 1] = try ColumnValueCoding.encode(value, kind: slots[index].kind)
    }

    func encodeNil(at index: Int) throws {}
}
