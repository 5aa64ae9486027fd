import Foundation

/// A translated predicate sub-expression, before it is rendered into SQL text.
enum SQLTerm {
    /// The predicate's input, `$0`.
    case root
    /// A column of the model's table.
    case column(quotedName: String, kind: ColumnKind, isOptional: Bool, keyPath: AnyKeyPath)
    /// A captured value, encoded once the column it is compared with is known.
    case value(Any)
    /// `nil`.
    case null
    /// Rendered SQL with its arguments and the precedence of its outermost operator.
    case expression(sql: String, arguments: [SQLValue], kind: ColumnKind?, isNullable: Bool, precedence: SQLPrecedence)

    var kind: ColumnKind? {
        switch self {
        case .column(_, let kind, _, _): kind
        case .expression(_, _, let kind, _, _): kind
        case .root, .value, .null: nil
        }
    }

    var isNullable: Bool {
        switch self {
        case .column(_, _, let isOptional, _): isOptional
        case .expression(_, _, _, let isNullable, _): isNullable
        case .null: true
        case .value(let value): (value as? any OptionalValue)?.isNil ?? false
        case .root: false
        }
    }

    /// SQL text and arguments; a captured value is bound, encoded like a column of kind `hint`.
    /// - Parameters:
    ///   - hint: The kind a captured value is encoded as.
    ///   - parent: The precedence of the operator this term is an operand of; the term is
    ///     parenthesized when it binds less tightly (or as tightly, on the right of a binary operator).
    func render(
        hint: ColumnKind?, inside parent: SQLPrecedence = .none, isRightOperand: Bool = false
    ) throws -> (sql: String, arguments: [SQLValue]) {
        switch self {
        case .root:
            throw QueryTranslationError(expression: "$0", reason: "the model itself is not a value; use one of its properties.")
        case .column(let name, _, _, _):
            return (name, [])
        case .null:
            return ("NULL", [])
        case .value(let value):
            guard let encodable = value as? any Encodable else {
                throw QueryTranslationError(
                    expression: "\(type(of: value))", reason: "captured values must be Encodable to be bound.")
            }
            let kind = hint ?? ColumnKind(for: type(of: value), dateEncoding: .secondsSince1970)
            return ("?", [try ColumnValueCoding.encode(encodable, kind: kind)])
        case .expression(let sql, let arguments, _, _, let precedence):
            let needsParentheses = precedence < parent || (isRightOperand && precedence == parent)
            return (needsParentheses ? "(" + sql + ")" : sql, arguments)
        }
    }
}

/// How tightly SQL operators bind, loosest first (https://www.sqlite.org/lang_expr.html#operators).
struct SQLPrecedence: Comparable {
    let rank: Int

    static let none = SQLPrecedence(rank: 0)
    static let or = SQLPrecedence(rank: 1)
    static let and = SQLPrecedence(rank: 2)
    static let not = SQLPrecedence(rank: 3)
    /// `=`, `!=`, `IS`, `IS NOT`, `IN`, `LIKE`.
    static let equality = SQLPrecedence(rank: 4)
    /// `LIKE ... ESCAPE ...`: parenthesized inside any other comparison, for readability.
    static let like = SQLPrecedence(rank: 3)
    /// `<`, `<=`, `>`, `>=`.
    static let comparison = SQLPrecedence(rank: 5)
    static let additive = SQLPrecedence(rank: 7)
    static let multiplicative = SQLPrecedence(rank: 8)
    static let unary = SQLPrecedence(rank: 9)
    /// Names, parameters, function calls, `CASE ... END`.
    static let atom = SQLPrecedence(rank: 10)

    static func < (lhs: SQLPrecedence, rhs: SQLPrecedence) -> Bool { lhs.rank < rhs.rank }
}

/// What translation needs from the model's table: columns by key path.
struct PredicateSQLContext {
    let modelType: Any.Type
    let column: (AnyKeyPath) -> SQLTerm?
    let modelName: String
    /// Variables introduced inside the predicate (`flatMap`, `if let`), bound to what they stand for.
    var bindings: [PredicateExpressions.VariableID: SQLTerm] = [:]
}

/// A `PredicateExpressions` node that knows its SQL.
protocol SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm
}

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
    /// (https://www.sqlite.org/lang_expr.html#like).
    static func escapeLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
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
