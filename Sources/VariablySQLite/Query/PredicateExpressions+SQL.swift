import Foundation

// Each supported node of Foundation's predicate tree renders itself; children are translated
// through `PredicateSQL.translate`, which names any node that has no translation.

/// The predicate's input variable.
protocol PredicateRootExpression: SQLTranslatableExpression {}

extension PredicateExpressions.Variable: PredicateRootExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        if let bound = context.bindings[key] { return bound }
        guard Output.self == context.modelType else {
            throw QueryTranslationError(
                expression: PredicateSQL.typeName(self), reason: "only the predicate's own input can be queried.")
        }
        return .root
    }
}

extension PredicateExpressions.KeyPath: SQLTranslatableExpression, ModelKeyPathExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        guard let path = try modelKeyPath(in: context) else {
            throw QueryTranslationError(
                expression: "\(keyPath)", reason: "key paths are only translated on the model's properties.")
        }
        guard let column = try context.column(path) else {
            throw QueryTranslationError(
                expression: "\(path)",
                reason: "the \(context.modelName) sqlite key set has no column for this key path.")
        }
        return column
    }

    /// `\Model.address.city` for `$0.address.city`: nested key paths name flattened columns.
    func modelKeyPath(in context: PredicateSQLContext) throws -> AnyKeyPath? {
        if let variable = root as? any PredicateRootExpression {
            guard case .root = try variable.sqlTerm(in: context) else { return nil }
            return keyPath
        }
        guard let parent = root as? any ModelKeyPathExpression, let base = try parent.modelKeyPath(in: context) else {
            return nil
        }
        return base.appending(path: keyPath as AnyKeyPath)
    }
}

/// A key path expression that can say which key path of the model it reads.
protocol ModelKeyPathExpression {
    func modelKeyPath(in context: PredicateSQLContext) throws -> AnyKeyPath?
}

extension PredicateExpressions.Value: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        if let optional = value as? any OptionalValue, optional.isNil { return .null }
        return .value(value)
    }
}

extension PredicateExpressions.NilLiteral: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm { .null }
}

extension PredicateExpressions.Equal: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        try PredicateSQL.equality(lhs, rhs, negated: false, in: context, node: self)
    }
}

extension PredicateExpressions.NotEqual: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        try PredicateSQL.equality(lhs, rhs, negated: true, in: context, node: self)
    }
}

extension PredicateExpressions.Comparison: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        let sqlOperator =
            switch op {
            case .lessThan: "<"
            case .lessThanOrEqual: "<="
            case .greaterThan: ">"
            case .greaterThanOrEqual: ">="
            }
        return try PredicateSQL.ordering(lhs, sqlOperator, rhs, in: context, node: self)
    }
}

extension PredicateExpressions.Conjunction: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        try PredicateSQL.binary(lhs, "AND", rhs, precedence: .and, in: context, resultKind: .bool, node: self)
    }
}

extension PredicateExpressions.Disjunction: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        try PredicateSQL.binary(lhs, "OR", rhs, precedence: .or, in: context, resultKind: .bool, node: self)
    }
}

extension PredicateExpressions.Negation: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        let inner = try PredicateSQL.translate(wrapped, in: context)
        let rendered = try inner.render(hint: .bool, inside: .not)
        return .expression(
            sql: "NOT \(rendered.sql)", arguments: rendered.arguments, kind: .bool, isNullable: inner.isNullable,
            precedence: .not)
    }
}

extension PredicateExpressions.Arithmetic: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        let (sqlOperator, precedence): (String, SQLPrecedence) =
            switch op {
            case .add: ("+", .additive)
            case .subtract: ("-", .additive)
            case .multiply: ("*", .multiplicative)
            }
        return try PredicateSQL.binary(lhs, sqlOperator, rhs, precedence: precedence, in: context, node: self)
    }
}

extension PredicateExpressions.IntDivision: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        // Integer operands divide as integers in SQLite too (https://www.sqlite.org/lang_expr.html#operators).
        try PredicateSQL.binary(lhs, "/", rhs, precedence: .multiplicative, in: context, node: self)
    }
}

extension PredicateExpressions.IntRemainder: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        try PredicateSQL.binary(lhs, "%", rhs, precedence: .multiplicative, in: context, node: self)
    }
}

extension PredicateExpressions.FloatDivision: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        try PredicateSQL.binary(lhs, "/", rhs, precedence: .multiplicative, in: context, node: self)
    }
}

extension PredicateExpressions.UnaryMinus: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        // A negated captured value stays one bound value: `-50`, not `-?` bound to 50.
        if let captured = wrapped as? PredicateExpressions.Value<Wrapped.Output> {
            return .value(-captured.value)
        }
        let inner = try PredicateSQL.translate(wrapped, in: context)
        let rendered = try inner.render(hint: inner.kind, inside: .unary)
        return .expression(
            sql: "-\(rendered.sql)", arguments: rendered.arguments, kind: inner.kind, isNullable: inner.isNullable,
            precedence: .unary)
    }
}

extension PredicateExpressions.NilCoalesce: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        let left = try PredicateSQL.translate(lhs, in: context)
        let right = try PredicateSQL.translate(rhs, in: context)
        try PredicateSQL.checkSameDateEncoding([left, right], node: self)
        try PredicateSQL.checkEquatable(left, node: self)
        try PredicateSQL.checkEquatable(right, node: self)
        let hint = left.kind ?? right.kind
        let l = try left.render(hint: hint)
        let r = try right.render(hint: hint)
        return .expression(
            sql: "COALESCE(\(l.sql), \(r.sql))", arguments: l.arguments + r.arguments, kind: hint,
            isNullable: right.isNullable, precedence: .atom)
    }
}

extension PredicateExpressions.ForcedUnwrap: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        switch try PredicateSQL.translate(inner, in: context) {
        case .column(let name, let kind, _, let keyPath):
            return .column(quotedName: name, kind: kind, isOptional: false, keyPath: keyPath)
        case .expression(let sql, let arguments, let kind, _, let precedence):
            return .expression(sql: sql, arguments: arguments, kind: kind, isNullable: false, precedence: precedence)
        case let other:
            return other
        }
    }
}

extension PredicateExpressions.Conditional: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        let condition = try PredicateSQL.translate(test, in: context).render(hint: .bool)
        let whenTrue = try PredicateSQL.translate(trueBranch, in: context)
        let whenFalse = try PredicateSQL.translate(falseBranch, in: context)
        try PredicateSQL.checkSameDateEncoding([whenTrue, whenFalse], node: self)
        try PredicateSQL.checkEquatable(whenTrue, node: self)
        try PredicateSQL.checkEquatable(whenFalse, node: self)
        let hint = whenTrue.kind ?? whenFalse.kind
        let t = try whenTrue.render(hint: hint)
        let f = try whenFalse.render(hint: hint)
        return .expression(
            sql: "CASE WHEN \(condition.sql) THEN \(t.sql) ELSE \(f.sql) END",
            arguments: condition.arguments + t.arguments + f.arguments, kind: hint,
            isNullable: whenTrue.isNullable || whenFalse.isNullable, precedence: .atom)
    }
}

extension PredicateExpressions.CollectionContainsCollection: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        try PredicateSQL.textSearch(base, other, prefixOnly: false, in: context)
    }
}

extension PredicateExpressions.SequenceStartsWith: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        try PredicateSQL.textSearch(base, prefix, prefixOnly: true, in: context)
    }
}

extension PredicateExpressions.SequenceContains: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        let elementTerm = try PredicateSQL.translate(element, in: context)
        if let captured = sequence as? PredicateExpressions.Value<LHS.Output> {
            // A captured collection: `column IN (?, ?, ...)`, one bound parameter per element.
            try PredicateSQL.checkEquatable(elementTerm, node: self)
            let column = try elementTerm.render(hint: elementTerm.kind, inside: .equality)
            var arguments = column.arguments
            var count = 0
            for element in captured.value {
                try PredicateSQL.checkEquatable(.value(element), node: self)
                let rendered = try SQLTerm.value(element).render(hint: elementTerm.kind)
                arguments += rendered.arguments
                count += 1
            }
            guard count > 0 else {
                return .expression(sql: "0", arguments: [], kind: .bool, isNullable: false, precedence: .atom)
            }
            let placeholders = Array(repeating: "?", count: count).joined(separator: ", ")
            return .expression(
                sql: "\(column.sql) IN (\(placeholders))", arguments: arguments, kind: .bool,
                isNullable: elementTerm.isNullable, precedence: .equality)
        }
        let sequenceTerm = try PredicateSQL.translate(sequence, in: context)
        guard case .column(let name, let kind, _, _) = sequenceTerm else {
            throw QueryTranslationError(
                expression: PredicateSQL.typeName(self),
                reason: "contains translates on a captured collection or on an array column only.")
        }
        let elementKind: ColumnKind
        switch kind {
        case .stringArray: elementKind = .string
        case .intArray: elementKind = .int
        case .int64Array: elementKind = .int64
        case .doubleArray: elementKind = .double
        case .boolArray: elementKind = .bool
        default:
            throw QueryTranslationError(
                expression: PredicateSQL.typeName(self),
                reason: "contains on a column translates for arrays of String, Int, Int64, Double or Bool only.")
        }
        // An array of scalars is stored as JSON text: https://www.sqlite.org/json1.html#jeach
        let value = try elementTerm.render(hint: elementKind, inside: .equality, isRightOperand: true)
        return .expression(
            sql: "EXISTS (SELECT 1 FROM json_each(\(name)) WHERE json_each.value = \(value.sql))",
            arguments: value.arguments, kind: .bool, isNullable: false, precedence: .atom)
    }
}

extension PredicateExpressions.OptionalFlatMap: SQLTranslatableExpression {
    func sqlTerm(in context: PredicateSQLContext) throws -> SQLTerm {
        // `$0.nickname.flatMap { $0.contains("x") }`, and what `if let` and `?.` compile to: the
        // closure's variable stands for the column's value. Most SQL operators give NULL on a NULL
        // operand, which is Swift's `nil` here (https://www.sqlite.org/nulls.html); where the
        // closure's SQL may not (`EXISTS`, `IS`, `AND`, `CASE`, ...), a NULL value is tested first.
        var inner = context
        let wrappedTerm = try PredicateSQL.translate(wrapped, in: context)
        switch wrappedTerm {
        case .column(let name, let kind, _, let keyPath):
            inner.bindings[variable.key] = .column(quotedName: name, kind: kind, isOptional: false, keyPath: keyPath)
        case .expression(let sql, let arguments, let kind, _, let precedence):
            inner.bindings[variable.key] = .expression(
                sql: sql, arguments: arguments, kind: kind, isNullable: false, precedence: precedence)
        case .null:
            return .null
        case let other:
            inner.bindings[variable.key] = other
        }
        let result = try PredicateSQL.translate(transform, in: inner)
        if wrappedTerm.isNullable, try !PredicateSQL.propagatesNil(transform, of: variable.key, in: inner) {
            switch result {
            case .null:
                return .null
            case .root, .value:
                throw QueryTranslationError(
                    expression: PredicateSQL.typeName(self),
                    reason: "the closure of this optional chain gives a captured value, not a value of the optional's; "
                        + "fetch with `ifUntranslatable: .evaluateInMemory`.")
            case .column, .expression:
                let test = try wrappedTerm.render(hint: wrappedTerm.kind, inside: .equality)
                let value = try result.render(hint: result.kind)
                return .expression(
                    sql: "CASE WHEN \(test.sql) IS NULL THEN NULL ELSE \(value.sql) END",
                    arguments: test.arguments + value.arguments, kind: result.kind, isNullable: true, precedence: .atom)
            }
        }
        switch result {
        case .expression(let sql, let arguments, let kind, _, let precedence):
            return .expression(sql: sql, arguments: arguments, kind: kind, isNullable: true, precedence: precedence)
        case .column(let name, let kind, _, let keyPath):
            return .column(quotedName: name, kind: kind, isOptional: true, keyPath: keyPath)
        case let other:
            return other
        }
    }
}
