import Foundation

// Which predicate nodes give NULL whenever a variable is NULL: an optional chain (`?.`, `flatMap`,
// `if let`) whose closure is such a node needs no `CASE WHEN ... IS NULL` around it.

extension PredicateExpressions.Variable: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        key == variable
    }
}

extension PredicateExpressions.Equal: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        try PredicateSQL.equalityPropagatesNil(lhs, rhs, of: variable, in: context)
    }
}

extension PredicateExpressions.NotEqual: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        try PredicateSQL.equalityPropagatesNil(lhs, rhs, of: variable, in: context)
    }
}

extension PredicateExpressions.Comparison: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        try PredicateSQL.anyPropagatesNil([lhs, rhs], of: variable, in: context)
    }
}

extension PredicateExpressions.Arithmetic: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        try PredicateSQL.anyPropagatesNil([lhs, rhs], of: variable, in: context)
    }
}

extension PredicateExpressions.IntDivision: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        try PredicateSQL.anyPropagatesNil([lhs, rhs], of: variable, in: context)
    }
}

extension PredicateExpressions.IntRemainder: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        try PredicateSQL.anyPropagatesNil([lhs, rhs], of: variable, in: context)
    }
}

extension PredicateExpressions.FloatDivision: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        try PredicateSQL.anyPropagatesNil([lhs, rhs], of: variable, in: context)
    }
}

extension PredicateExpressions.UnaryMinus: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        try PredicateSQL.propagatesNil(wrapped, of: variable, in: context)
    }
}

extension PredicateExpressions.Negation: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        try PredicateSQL.propagatesNil(wrapped, of: variable, in: context)
    }
}

extension PredicateExpressions.ForcedUnwrap: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        try PredicateSQL.propagatesNil(inner, of: variable, in: context)
    }
}

extension PredicateExpressions.OptionalFlatMap: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        // NULL when its own optional is (tested first when the closure may not give NULL).
        try PredicateSQL.propagatesNil(wrapped, of: variable, in: context)
    }
}

extension PredicateExpressions.CollectionContainsCollection: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        // instr, substr and LIKE give NULL on a NULL operand.
        try PredicateSQL.anyPropagatesNil([base, other], of: variable, in: context)
    }
}

extension PredicateExpressions.SequenceStartsWith: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        try PredicateSQL.anyPropagatesNil([base, prefix], of: variable, in: context)
    }
}

extension PredicateExpressions.SequenceContains: NilPropagatingExpression {
    func propagatesNil(of variable: PredicateExpressions.VariableID, in context: PredicateSQLContext) throws -> Bool {
        // `NULL IN (...)` is NULL; the empty collection's `0` and an array column's `EXISTS` are not.
        guard let captured = sequence as? PredicateExpressions.Value<LHS.Output> else { return false }
        var elements = captured.value.makeIterator()
        guard elements.next() != nil else { return false }
        return try PredicateSQL.propagatesNil(element, of: variable, in: context)
    }
}
