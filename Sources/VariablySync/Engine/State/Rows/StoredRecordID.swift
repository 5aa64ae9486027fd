import Foundation
import VariablySQLite

/// A record's id as the sync state keeps it, in the one `record_id` column its tables share for every
/// model: the JSON text of the primary key as the model's table stores it (`42`, `"E621E1F8-…"`),
/// exactly as SQLite's `json_quote` writes it, since the capture triggers write it that way.
///
/// The engine's generic code never holds ids as text: ``SyncTable/storedID(of:)`` and
/// ``SyncTable/id(of:)`` convert through the primary key's column coding (the `.sqlite` key set's), the
/// same coding that stores and reads the key in the model's table. A synced table's key is stored as an
/// integer or as text (``SyncTable`` refuses others when it opens), the two storage classes whose JSON
/// text is exact.
struct StoredRecordID: RawRepresentable, Hashable, Sendable, Codable, SQLValueConvertible, CustomStringConvertible {
    /// The JSON text.
    let rawValue: String

    /// The id stored as `rawValue`, read from the sync state.
    init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The id of the record whose primary key is stored as `key` (an integer or text), as `json_quote`
    /// writes it; `nil` for any other storage class.
    init?(key: SQLValue) {
        switch key {
        case .integer(let integer): rawValue = String(integer)
        case .text(let text): rawValue = Self.quoted(text)
        default: return nil
        }
    }

    /// The primary key, as the model's table stores it; `nil` for text that no `json_quote` of an
    /// integer or text gives (a state written by hand).
    var key: SQLValue? {
        if rawValue.hasPrefix("\"") {
            return (try? JSONDecoder().decode(String.self, from: Data(rawValue.utf8))).map(SQLValue.text)
        }
        return Int64(rawValue).map(SQLValue.integer)
    }

    var sqlValue: SQLValue { .text(rawValue) }

    /// The JSON text, as errors and descriptions name the record (`42`, `"a1"`).
    var description: String { rawValue }

    /// `text` as a JSON string, escaped as SQLite's `json_quote` escapes it: `"` and `\` with a
    /// backslash, the control characters below U+0020 as `\b`, `\t`, `\n`, `\f`, `\r` or `\u00xx`, and
    /// every other character as itself (`/`, U+007F and U+2028 included).
    static func quoted(_ text: String) -> String {
        var result = "\""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: result += "\\\""
            case 0x5C: result += "\\\\"
            case 0x08: result += "\\b"
            case 0x09: result += "\\t"
            case 0x0A: result += "\\n"
            case 0x0C: result += "\\f"
            case 0x0D: result += "\\r"
            case 0..<0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
