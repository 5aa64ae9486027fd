/// SQL text helpers: identifiers are always quoted, so names like `order` or `it"s` work.
enum SQL {
    /// `"name"`, with embedded quotes doubled (https://www.sqlite.org/lang_keywords.html).
    static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A literal for the rare places SQLite does not accept parameters: `DEFAULT` clauses of DDL
    /// (https://www.sqlite.org/lang_createtable.html#the_default_clause). Text quotes are doubled.
    static func literal(_ value: SQLValue) -> String {
        value.description
    }
}
