import VariablySQLite

// MARK: - Values by column name

/// A raw row's values read by column name, for the engine's queries of SQLite's own tables and
/// pragmas (https://www.sqlite.org/pragma.html), which no row type describes.
extension Row {
    /// The text in column `name`, or `nil` when it holds another type or the row has no such column.
    func text(_ name: String) -> String? {
        if case .text(let text)? = self[name] { text } else { nil }
    }

    /// The integer in column `name`, or `nil` when it holds another type or the row has no such column.
    func integer(_ name: String) -> Int64? {
        if case .integer(let integer)? = self[name] { integer } else { nil }
    }
}
