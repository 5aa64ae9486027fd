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
            throw QueryTranslationError(
                expression: "$0", reason: "the model itself is not a value; use one of its properties.")
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
            // A captured date against an INTEGER milliseconds column is bound as exact REAL
            // milliseconds: rounding it first would move it across the stored values it lies between.
            if case .date(.millisecondsSince1970) = kind, let date = value as? Date {
                return ("?", [.real(date.timeIntervalSince1970 * 1000)])
            }
            do {
                return ("?", [try ColumnValueCoding.encode(encodable, kind: kind)])
            } catch {
                // A value SQLite cannot hold (a UInt64 above Int64.max, NaN): not translatable, so that
                // `ifUntranslatable: .evaluateInMemory` can still answer.
                throw QueryTranslationError(
                    expression: "\(type(of: value))", reason: "the captured value cannot be bound to SQL: \(error)")
            }
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
    /// `LIKE ... ESCAPE ...` and the `instr(...)` text searches: parenthesized inside any other
    /// comparison, for readability.
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
    let column: (AnyKeyPath) throws -> SQLTerm?
    let modelName: String
    /// Variables introduced inside the predicate (`flatMap`, `if let`), bound to what they stand for.
    var bindings: [PredicateExpressions.VariableID: SQLTerm] = [:]
}

/// A `PredicateExpressions` node that knows its SQL.
protocol SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm
}
