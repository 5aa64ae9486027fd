public import VariablyCodable

/// The rows of a bound statement, read as models by a loop that the caller's module may inline: there
/// the loop is specialized for the model, so that each model goes into the array without a generic
/// copy and its `init(from:)` is a direct call. Everything else (preparing, binding, the column
/// layout, errors) stays here.
@usableFromInline final class RowCursor<Model: SQLiteStorable> {
    private let statement: Statement
    private let arguments: StatementArguments
    /// The key paths the model's `init(from:)` reads, resolved on the first row.
    private let keyPathOrder = KeyPathOrder()
    /// The current row, as the model's `init(from:)` reads it.
    @usableFromInline let container: DecodingContainer<Model>

    /// A cursor over `statement`, bound to `arguments`, reading `slots` through `mapping`'s key set.
    ///
    /// - Throws: ``SQLiteError`` when the arguments cannot be bound.
    init(statement: Statement, arguments: StatementArguments, mapping: TableMapping<Model>, slots: [ColumnSlot]) throws
    {
        try statement.bind(arguments)
        self.statement = statement
        self.arguments = arguments
        let backend = RowDecodingBackend(statement: statement, slots: slots, columns: mapping.columnNames)
        container = DecodingContainer(
            source: mapping.keySet.source, keySet: mapping.keySet, backend: backend, keyPathOrder: keyPathOrder)
    }

    /// Moves to the next row; `false` after the last.
    ///
    /// - Throws: ``SQLiteError``.
    @usableFromInline func step() throws -> Bool {
        keyPathOrder.startRow()
        return try statement.step()
    }

    /// `error`, thrown while reading, with the statement reset and an ``SQLiteError`` naming the
    /// arguments.
    @usableFromInline func failure(_ error: any Error) -> any Error {
        statement.reset()
        if let error = error as? SQLiteError { return error.adding(arguments) }
        return error
    }

    /// Every remaining row as a model.
    ///
    /// - Throws: ``SQLiteError`` or `VariablyCodingError`; the statement is reset.
    /// - Complexity: O(*n*) in the rows.
    @inlinable func collect() throws -> [Model] {
        var models: [Model] = []
        do {
            while try step() {
                models.append(try Model(from: container))
            }
        } catch {
            throw failure(error)
        }
        return models
    }
}
