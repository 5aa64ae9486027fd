internal import CSQLite
import Foundation
import VariablyCodable

/// Reads one stored property straight from a model's memory and binds it, for the types with a
/// fast path.
///
/// Projecting a key path in generic code costs generic-metadata lookups per value, more than
/// binding the value. A stored property of a struct sits at a fixed offset, which
/// `MemoryLayout.offset(of:)` gives once per table ("the key path refers to inline, directly
/// addressable storage"); reading it is then a load. Key paths without an offset (computed
/// properties, classes) and properties with a transform or a date strategy in their key options
/// keep the coder's path.
struct FastColumnReader: Sendable {
    enum Kind: Sendable {
        case int, int64, bool, double, string, optionalString, optionalInt, date, strings
    }

    let kind: Kind
    let offset: Int

    init?<Model>(entry: KeyEntry<Model>, kind: ColumnKind) {
        guard entry.options.transform == nil, entry.options.dates == nil,
            let offset = MemoryLayout<Model>.offset(of: entry.keyPath)
        else { return nil }
        let type = entry.coder.valueType
        let fast: Kind
        switch kind {
        case .int where type == Int.self: fast = .int
        case .int where type == Int?.self: fast = .optionalInt
        case .int64 where type == Int64.self: fast = .int64
        case .bool where type == Bool.self: fast = .bool
        case .double where type == Double.self: fast = .double
        case .string where type == String.self: fast = .string
        case .string where type == String?.self: fast = .optionalString
        case .date(.secondsSince1970) where type == Date.self: fast = .date
        case .stringArray where type == [String].self: fast = .strings
        default: return nil
        }
        self.kind = fast
        self.offset = offset
    }

    /// What ``bind(_:to:at:)`` returns for a value it leaves to the general path (a NaN, which that path refuses).
    static let notBound: Int32 = -1

    /// Binds the property of the model at `base` to parameter `index`; returns SQLite's result code, or
    /// ``notBound``.
    @inline(__always)
    func bind(_ base: UnsafeRawPointer, to statement: Statement, at index: Int32) -> Int32 {
        let handle = statement.handle
        // The types were checked against the property's declared type in `init`.
        switch kind {
        case .int: return sqlite3_bind_int64(handle, index, Int64(base.load(fromByteOffset: offset, as: Int.self)))
        case .int64: return sqlite3_bind_int64(handle, index, base.load(fromByteOffset: offset, as: Int64.self))
        case .bool: return sqlite3_bind_int64(handle, index, base.load(fromByteOffset: offset, as: Bool.self) ? 1 : 0)
        case .double:
            let value = base.load(fromByteOffset: offset, as: Double.self)
            // SQLite would bind NaN as NULL: the general path reports it.
            return value.isNaN ? Self.notBound : sqlite3_bind_double(handle, index, value)
        // Text in NFC, as every record path binds it (see `TextNormalization`).
        case .string: return statement.bindRecordText(base.load(fromByteOffset: offset, as: String.self), at: index)
        case .optionalString:
            guard let value = base.load(fromByteOffset: offset, as: String?.self) else {
                return sqlite3_bind_null(handle, index)
            }
            return statement.bindRecordText(value, at: index)
        case .optionalInt:
            guard let value = base.load(fromByteOffset: offset, as: Int?.self) else {
                return sqlite3_bind_null(handle, index)
            }
            return sqlite3_bind_int64(handle, index, Int64(value))
        case .date:
            return sqlite3_bind_double(
                handle, index, base.load(fromByteOffset: offset, as: Date.self).timeIntervalSince1970)
        case .strings:
            return statement.bindRecordJSON(base.load(fromByteOffset: offset, as: [String].self), at: index)
        }
    }
}
