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
        resultKind: ColumnKind? = nil
    ) throws -> SQLTerm {
        let left = try translate(lhs, in: context)
        let right = try translate(rhs, in: context)
        let hint = left.kind ?? right.kind
        let l = try left.render(hint: hint, inside: precedence)
        let r = try right.render(hint: hint, inside: precedence, isRightOperand: true)
        return .expression(
            sql: "\(l.sql) \(op) \(r.sql)", arguments: l.arguments + r.arguments, kind: resultKind ?? hint,
            isNullable: left.isNullable || right.isNullable, precedence: precedence)
    }

    static func equality(_ lhs: Any, _ rhs: Any, negated: Bool, in context: PredicateSQLContext) throws -> SQLTerm {
        let left = try translate(lhs, in: context)
        let right = try translate(rhs, in: context)
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
        } else if left.isNullable || right.isNullable {
            op = negated ? "IS NOT" : "IS"
        } else {
            op = negated ? "!=" : "="
        }
        return .expression(
            sql: "\(l.sql) \(op) \(r.sql)", arguments: l.arguments + r.arguments, kind: .bool, isNullable: false,
            precedence: .equality)
    }

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

    static func like(_ base: Any, _ other: Any, prefixOnly: Bool, in context: PredicateSQLContext) throws -> SQLTerm {
        let left = try translate(base, in: context)
        let right = try translate(other, in: context)
        let l = try left.render(hint: .string, inside: .equality)
        if case .value(let value) = right {
            guard let text = value as? String else {
                throw QueryTranslationError(
                    expression: typeName(other), reason: "contains and starts(with:) translate for String values only.")
            }
            if text.utf8.contains(0) {
                // LIKE stops at a NUL in its pattern (which would then match far more rows): compare the
                // UTF-8 bytes instead (https://www.sqlite.org/lang_corefunc.html#instr).
                let needle = SQLValue.blob(Data(text.utf8))
                let sql =
                    prefixOnly
                    ? "substr(CAST(\(l.sql) AS BLOB), 1, ?) = ?" : "instr(CAST(\(l.sql) AS BLOB), ?) > 0"
                let arguments = prefixOnly ? l.arguments + [.integer(Int64(text.utf8.count)), needle] : l.arguments + [needle]
                return .expression(
                    sql: sql, arguments: arguments, kind: .bool, isNullable: left.isNullable,
                    precedence: prefixOnly ? .equality : .comparison)
            }
            let pattern = (prefixOnly ? "" : "%") + escapeLike(text) + "%"
            return .expression(
                sql: "\(l.sql) LIKE ? ESCAPE '\\'", arguments: l.arguments + [.text(pattern)], kind: .bool,
                isNullable: left.isNullable, precedence: .like)
        }
        let l2 = try left.render(hint: .string)
        let r = try right.render(hint: .string)
        // Two columns: no pattern to escape; instr and substr compare exactly
        // (https://www.sqlite.org/lang_corefunc.html#instr).
        let sql =
            prefixOnly
            ? "substr(\(l2.sql), 1, length(\(r.sql))) = \(r.sql)" : "instr(\(l2.sql), \(r.sql)) > 0"
        let arguments = prefixOnly ? l2.arguments + r.arguments + r.arguments : l2.arguments + r.arguments
        return .expression(
            sql: sql, arguments: arguments, kind: .bool, isNullable: false,
            precedence: prefixOnly ? .equality : .comparison)
    }
}
