import Foundation

/// Translation helpers shared by the predicate expression nodes.
enum PredicateSQL {
    static func translate(_ expression: Any, in context: PredicateSQLContext) throws -> SQLTerm {
        guard let translatable = expression as? any SQLTranslatableExpression else {
            throw QueryTranslationError(
                expression: typeName(expression),
                reason: "this kind of expression has no SQL translation; rewrite the predicate with comparisons, "
                    + "&&, ||, !, arithmetic, String.contains/starts(with:) or a captured collection's contains, "
                    + "or pass `ifUntranslatable: .evaluateInMemory`.")
        }
        return try translatable.sqlTerm(in: context)
    }

    static func typeName(_ expression: Any) -> String {
        // "PredicateExpressions.IntRemainder<PredicateExpressions.KeyPath<...>, ...>" without module prefixes.
        String(reflecting: type(of: expression))
            .replacingOccurrences(of: "FoundationEssentials.", with: "")
            .replacingOccurrences(of: "Foundation.", with: "")
    }

    static func binary(
        _ lhs: Any, _ op: String, _ rhs: Any, precedence: SQLPrecedence, in context: PredicateSQLContext,
        resultKind: ColumnKind? = nil, node: Any
    ) throws -> SQLTerm {
        try combine(
            try translate(lhs, in: context), op, try translate(rhs, in: context), precedence: precedence,
            resultKind: resultKind, node: node)
    }

    /// `left op right`, both already translated.
    static func combine(
        _ left: SQLTerm, _ op: String, _ right: SQLTerm, precedence: SQLPrecedence, resultKind: ColumnKind?, node: Any
    ) throws -> SQLTerm {
        try checkSameDateEncoding([left, right], node: node)
        let hint = left.kind ?? right.kind
        let l = try left.render(hint: hint, inside: precedence)
        let r = try right.render(hint: hint, inside: precedence, isRightOperand: true)
        return .expression(
            sql: "\(l.sql) \(op) \(r.sql)", arguments: l.arguments + r.arguments, kind: resultKind ?? hint,
            isNullable: left.isNullable || right.isNullable, precedence: precedence)
    }

    /// `<`, `<=`, `>`, `>=`: only on columns whose stored values order like the Swift values.
    static func ordering(_ lhs: Any, _ op: String, _ rhs: Any, in context: PredicateSQLContext, node: Any) throws
        -> SQLTerm
    {
        let left = try translate(lhs, in: context)
        let right = try translate(rhs, in: context)
        try checkOrderable(left, node: node)
        try checkOrderable(right, node: node)
        try checkNormalizedText(left, node: node)
        try checkNormalizedText(right, node: node)
        return try combine(left, op, right, precedence: .comparison, resultKind: .bool, node: node)
    }

    /// Swift's `<` on strings is the byte order of their NFC forms when both are in NFC, as stored text
    /// is; with a string that is not, it can disagree with that order and even with its own `==`
    /// (`"\u{212B}" < "\u{C5}d"` is false). Such a captured string is compared in memory only.
    static func checkNormalizedText(_ term: SQLTerm, node: Any) throws {
        guard case .value(let value) = term, let text = value as? String,
            !TextNormalization.nfc(text).unicodeScalars.elementsEqual(text.unicodeScalars)
        else { return }
        throw QueryTranslationError(
            expression: typeName(node),
            reason: "<, <=, > and >= against a captured text that is not in NFC (Unicode Normalization Form C) order "
                + "differently in Swift than the stored text, which is in NFC; pass "
                + "`text.precomposedStringWithCanonicalMapping`, or fetch with `ifUntranslatable: .evaluateInMemory`.")
    }

    static func equality(
        _ lhs: Any, _ rhs: Any, negated: Bool, in context: PredicateSQLContext, node: Any
    ) throws -> SQLTerm {
        let left = try translate(lhs, in: context)
        let right = try translate(rhs, in: context)
        try checkSameDateEncoding([left, right], node: node)
        let hint = left.kind ?? right.kind
        let l = try left.render(hint: hint, inside: .equality)
        let r = try right.render(hint: hint, inside: .equality, isRightOperand: true)
        // Swift's == treats nil as a value; SQL's = yields NULL with NULL, so nullable sides use IS
        // (https://www.sqlite.org/lang_expr.html#isisnot), which SQLite can still answer from an index.
        let op: String
        if case .null = right {
            return .expression(
                sql: "\(l.sql) IS \(negated ? "NOT " : "")NULL", arguments: l.arguments, kind: .bool, isNullable: false,
                precedence: .equality)
        }
        try checkEquatable(left, node: node)
        try checkEquatable(right, node: node)
        if left.isNullable || right.isNullable {
            op = negated ? "IS NOT" : "IS"
        } else {
            op = negated ? "!=" : "="
        }
        return .expression(
            sql: "\(l.sql) \(op) \(r.sql)", arguments: l.arguments + r.arguments, kind: .bool, isNullable: false,
            precedence: .equality)
    }

    // MARK: - What SQL cannot compare as Swift does

    /// Two dates stored in different encodings (REAL seconds, INTEGER milliseconds, ISO 8601 text, a
    /// strategy's own text) are numbers or text in different units: SQL cannot compare, coalesce or
    /// choose between them.
    static func checkSameDateEncoding(_ terms: [SQLTerm], node: Any) throws {
        let dateKinds = terms.compactMap(\.kind).filter(\.isDate)
        guard let first = dateKinds.first, let other = dateKinds.first(where: { $0 != first }) else { return }
        throw QueryTranslationError(
            expression: typeName(node),
            reason: "it compares or combines dates stored in different encodings (\(first.dateDescription) and "
                + "\(other.dateDescription)), which SQL would compare in different units; declare both columns with "
                + "the same date encoding, or fetch with `ifUntranslatable: .evaluateInMemory`.")
    }

    /// A value stored as JSON or as its raw value orders by that text or raw value, not by its `<`
    /// (a struct's fields, an enum's declared or custom order); a `Decimal` is stored as text.
    static func checkOrderable(_ term: SQLTerm, node: Any) throws {
        guard let stored = term.kind?.unorderedStoredForm else { return }
        throw QueryTranslationError(
            expression: columnName(term) ?? typeName(node),
            reason: "<, <=, > and >= would compare the value stored in the column (\(stored)), not the Swift "
                + "values' order; compare with == or !=, or fetch with `ifUntranslatable: .evaluateInMemory`.")
    }

    /// A `Set` is stored as a JSON array in its iteration order, which differs between equal sets; so is
    /// a `Set`, or a dictionary with keys that are not string-like, inside a captured value.
    static func checkEquatable(_ term: SQLTerm, node: Any) throws {
        if isUnorderedCollection(term) {
            throw QueryTranslationError(
                expression: columnName(term) ?? typeName(node),
                reason: "a Set is stored as a JSON array in its iteration order, which differs between equal sets, "
                    + "so SQL cannot compare it; fetch with `ifUntranslatable: .evaluateInMemory`.")
        }
        guard case .value(let value) = term, let encodable = value as? any Encodable,
            let collection = UnorderedCollectionProbe.firstUnorderedCollection(in: encodable)
        else { return }
        throw QueryTranslationError(
            expression: typeName(node),
            reason: "the captured \(type(of: value)) holds \(collection), stored as a JSON array in its iteration "
                + "order, which differs between equal values, so SQL cannot compare it; fetch with "
                + "`ifUntranslatable: .evaluateInMemory`.")
    }

    /// A column whose property is a `Set` (or another `SetAlgebra` stored as a collection, not a raw value).
    static func isUnorderedCollection(_ term: SQLTerm) -> Bool {
        guard case .column(_, _, _, let keyPath) = term else { return false }
        var valueType = type(of: keyPath).valueType
        while let optional = valueType as? any PredicateOptionalType.Type { valueType = optional.wrappedType }
        return UnorderedCollectionProbe.isStoredAsArrayInIterationOrder(valueType)
    }

    private static func columnName(_ term: SQLTerm) -> String? {
        guard case .column(_, _, _, let keyPath) = term else { return nil }
        return "\(keyPath)"
    }

    // MARK: - Text search

    /// `%`, `_` and `\` are LIKE wildcards or our escape character: escape them
    /// (https://www.sqlite.org/lang_expr.html#like). By Unicode scalar: a `%` followed by a combining
    /// mark is one `Character` but still a wildcard to LIKE.
    static func escapeLike(_ text: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "%" || scalar == "_" || scalar == "\\" { escaped.append("\\") }
            escaped.append(scalar)
        }
        return String(escaped)
    }

    /// `contains` and `starts(with:)` on text, with Swift's answers: a byte search keeps what could
    /// match (sound since text is stored and bound in NFC), then `variably_contains` /
    /// `variably_starts_with` decide by `Character`, as `#Predicate` does (see ``SwiftTextSearch``).
    ///
    /// The byte search: `contains` compares the UTF-8 bytes with `instr` (`LIKE` stops at a NUL in the
    /// stored text, and `LIKE '%x%'` cannot use an index anyway). A prefix from a captured value stays
    /// `LIKE 'prefix%'`, which can use an index; a NUL in the stored text after the prefix does not
    /// change its answer. Other prefixes are `instr(...) = 1`: `substr` of an empty BLOB is NULL, not an
    /// empty BLOB (https://www.sqlite.org/lang_corefunc.html#instr).
    static func textSearch(_ base: Any, _ other: Any, prefixOnly: Bool, in context: PredicateSQLContext) throws
        -> SQLTerm
    {
        let left = try translate(base, in: context)
        let right = try translate(other, in: context)
        for term in [left, right] {
            switch term.kind {
            case nil, .string: continue
            case .some:
                throw QueryTranslationError(
                    expression: columnName(term) ?? typeName(other),
                    reason: "contains and starts(with:) translate for String values only.")
            }
        }
        let function = prefixOnly ? "variably_starts_with" : "variably_contains"
        if case .value(let value) = right {
            guard let captured = value as? String else {
                throw QueryTranslationError(
                    expression: typeName(other), reason: "contains and starts(with:) translate for String values only.")
            }
            // The filter looks for the NFC bytes, as stored; Swift's search gets the text as captured.
            let text = TextNormalization.nfc(captured)
            let l = try left.render(hint: .string, inside: .and)
            let filter: (sql: String, argument: SQLValue)
            if prefixOnly, !text.utf8.contains(0) {
                filter = ("\(l.sql) LIKE ? ESCAPE '\\'", .text(escapeLike(text) + "%"))
            } else {
                // A prefix with a NUL: LIKE stops at a NUL in its pattern (which would then match far more rows).
                filter = ("instr(CAST(\(l.sql) AS BLOB), ?) \(prefixOnly ? "= 1" : "> 0")", .blob(Data(text.utf8)))
            }
            return .expression(
                sql: "\(filter.sql) AND \(function)(\(l.sql), ?)",
                arguments: l.arguments + [filter.argument] + l.arguments + [.text(captured)], kind: .bool,
                isNullable: left.isNullable, precedence: .and)
        }
        // Two columns (or a captured text and a column): no pattern to escape; compare the bytes too
        // (text `length` stops at a NUL).
        let l = try left.render(hint: .string)
        let r = try right.render(hint: .string)
        return .expression(
            sql: "instr(CAST(\(l.sql) AS BLOB), CAST(\(r.sql) AS BLOB)) \(prefixOnly ? "= 1" : "> 0") "
                + "AND \(function)(\(l.sql), \(r.sql))",
            arguments: l.arguments + r.arguments + l.arguments + r.arguments, kind: .bool,
            isNullable: left.isNullable || right.isNullable, precedence: .and)
    }
}

/// Lets a key path's value type be seen through `Optional`.
protocol PredicateOptionalType {
    static var wrappedType: Any.Type { get }
}

extension Optional: PredicateOptionalType {
    static var wrappedType: Any.Type { Wrapped.self }
}

extension ColumnKind {
    fileprivate var isDate: Bool {
        switch self {
        case .date, .formattedDate: true
        default: false
        }
    }

    fileprivate var dateDescription: String {
        switch self {
        case .date(.secondsSince1970): "REAL seconds since 1970"
        case .date(.millisecondsSince1970): "INTEGER milliseconds since 1970"
        case .date(.iso8601): "ISO 8601 text with fractional seconds"
        case .formattedDate(let strategy): "text written by \(strategy.output)"
        default: "\(self)"
        }
    }
}

// MARK: - Optional chains

/// A node that can tell whether its SQL is NULL whenever a `flatMap` variable is NULL.
protocol NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool
}

extension PredicateSQL {
    /// Whether the SQL of `expression` is certainly NULL when the flatMap variable `variable` is:
    /// most operators and functions give NULL on a NULL operand, but `IS`, `EXISTS`, `CASE`,
    /// `COALESCE`, `AND` and `OR` may not (https://www.sqlite.org/nulls.html).
    static func propagatesNil(
        _ expression: Any, of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext
    ) throws -> Bool {
        guard let node = expression as? any NilPropagatingExpression else { return false }
        return try node.propagatesNil(of: variable, in: context)
    }

    /// Whether any of `expressions` is NULL when `variable` is (binary operators and functions give NULL
    /// on a NULL operand).
    static func anyPropagatesNil(
        _ expressions: [Any], of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext
    ) throws -> Bool {
        for expression in expressions where try propagatesNil(expression, of: variable, in: context) { return true }
        return false
    }

    /// `=` and `!=` give NULL on a NULL operand; `IS` and `IS NOT`, used when a side may be NULL, do not.
    static func equalityPropagatesNil(
        _ lhs: Any, _ rhs: Any, of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext
    ) throws -> Bool {
        guard try anyPropagatesNil([lhs, rhs], of: variable, in: context) else { return false }
        let left = try translate(lhs, in: context)
        let right = try translate(rhs, in: context)
        if case .null = right { return false }
        return !left.isNullable && !right.isNullable
    }
}
