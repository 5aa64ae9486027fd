import Foundation
import VariablyCodable

/// How one key-set entry is stored in a column, chosen once from the property's type.
enum ColumnKind: Sendable, Equatable {
    case int, int64, int32, otherInteger
    case bool, double, float
    case string, url, uuid, decimal
    case data
    case date(DateEncoding)
    /// A date written as text by a date strategy that no ``DateEncoding`` matches (whole-second ISO
    /// 8601, `yyyy-MM-dd`): stored, read and compared in that strategy's format.
    case formattedDate(DateCodingStrategy)
    case stringArray, intArray, int64Array, doubleArray, boolArray
    /// Anything else: a single value stored as such, objects and collections as JSON text.
    case codable(sqlType: String)

    init(for type: Any.Type, dateEncoding: DateEncoding) {
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(Int.self): self = .int
        case ObjectIdentifier(Int64.self): self = .int64
        case ObjectIdentifier(Int32.self): self = .int32
        case ObjectIdentifier(Bool.self): self = .bool
        case ObjectIdentifier(Double.self): self = .double
        case ObjectIdentifier(Float.self): self = .float
        case ObjectIdentifier(String.self): self = .string
        case ObjectIdentifier(URL.self): self = .url
        case ObjectIdentifier(UUID.self): self = .uuid
        case ObjectIdentifier(Decimal.self): self = .decimal
        case ObjectIdentifier(Data.self): self = .data
        case ObjectIdentifier(Date.self): self = .date(dateEncoding)
        case ObjectIdentifier([String].self): self = .stringArray
        case ObjectIdentifier([Int].self): self = .intArray
        case ObjectIdentifier([Int64].self): self = .int64Array
        case ObjectIdentifier([Double].self): self = .doubleArray
        case ObjectIdentifier([Bool].self): self = .boolArray
        default:
            if type is any FixedWidthInteger.Type {
                self = .otherInteger
            } else if let raw = type as? any RawRepresentable.Type {
                let rawKind = ColumnKind(for: ColumnKind.rawValueType(of: raw), dateEncoding: dateEncoding)
                self = .codable(sqlType: rawKind.sqlType)
            } else {
                self = .codable(sqlType: "TEXT")
            }
        }
    }

    private static func rawValueType<T: RawRepresentable>(of type: T.Type) -> Any.Type { T.RawValue.self }

    /// What the column stores when that does not order as the Swift values do, for predicates' `<`
    /// and for sorts: a value kept as JSON or as its raw value orders by that text or raw value, not
    /// by its `<` (a struct's fields, an enum's declared or custom order); a `Decimal` is text.
    var unorderedStoredForm: String? {
        switch self {
        case .codable: "its JSON text or raw value"
        case .decimal: "its text"
        default: nil
        }
    }

    /// The declared type of the column (https://www.sqlite.org/datatype3.html#type_affinity).
    var sqlType: String {
        switch self {
        case .int, .int64, .int32, .otherInteger, .bool: "INTEGER"
        case .double, .float: "REAL"
        case .string, .url, .uuid, .decimal: "TEXT"
        case .data: "BLOB"
        case .date(let encoding): encoding.sqlType
        case .formattedDate: "TEXT"
        case .stringArray, .intArray, .int64Array, .doubleArray, .boolArray: "TEXT"
        case .codable(let sqlType): sqlType
        }
    }
}
