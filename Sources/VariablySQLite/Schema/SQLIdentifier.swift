/// SQL text helpers: identifiers are always quoted, so names like `order` or `it"s` work.
package enum SQL {
    /// `"name"`, with embedded quotes doubled (https://www.sqlite.org/lang_keywords.html).
    package static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The form under which SQLite compares identifiers: the UTF-8 bytes with ASCII letters folded to
    /// lower case, and nothing else (https://www.sqlite.org/lang_keywords.html: "SQLite folds only
    /// ASCII"). Swift's `lowercased()` and `==` would also fold `É` and equate canonically equivalent
    /// strings, which SQLite keeps apart.
    static func identifierKey(_ identifier: String) -> [UInt8] {
        identifier.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
    }

    /// A literal for the rare places SQLite does not accept parameters: `DEFAULT` clauses of DDL
    /// (https://www.sqlite.org/lang_createtable.html#the_default_clause). Text quotes are doubled.
    package static func literal(_ value: SQLValue) -> String {
        value.description
    }

    /// A text literal, quotes doubled, for the same rare places.
    package static func literal(_ text: String) -> String {
        literal(.text(text))
    }
}
