public import Foundation
import VariablyCodable
public import VariablySQLite

// MARK: - Records with their children

extension Repository {
    /// Cached models matching a predicate, each with the records of `child`'s table that reference it
    /// through `reference` (a column declared with `.references(_:_:onDelete:)` to this model's table),
    /// read in one snapshot: two queries, whatever the number of models.
    ///
    /// ```swift
    /// let threads = try await posts.fetch(
    ///     where: #Predicate { $0.authorID == 1 }, sortedBy: [SortDescriptor(\.id)], including: Comment.self, by: \.postID)
    /// ```
    ///
    /// - Parameters:
    ///   - predicate: The filter of the models, or `nil` for every model.
    ///   - sortDescriptors: The models' order; the children are in their primary key's order.
    ///   - limit: The most models returned.
    ///   - child: The referencing model.
    ///   - reference: The child's property that references this model.
    /// - Throws: `DeclarationError` when `reference` is not a declared reference to this model's table,
    ///   `QueryTranslationError` for a predicate SQL cannot express, `SQLiteError`.
    /// - Complexity: The models' query, plus one indexed look-up per model when `reference`'s column
    ///   has an index (declare `.index(\.postID)` on large tables).
    public nonisolated func fetch<Child: SQLiteStorable & Sendable>(
        where predicate: Predicate<Model>? = nil, sortedBy sortDescriptors: [SortDescriptor<Model>] = [],
        limit: Int? = nil, including child: Child.Type, by reference: any PartialKeyPath<Child> & Sendable
    ) async throws -> [Related<Model, Child>] {
        let related = try Related<Model, Child>.reference(by: reference)
        let primaryKey = table.primaryKey
        return try await database.read { db in
            try Related.fetch(
                where: predicate, sortedBy: sortDescriptors, limit: limit, including: related, by: reference,
                primaryKey: primaryKey, db)
        }
    }

    /// The same records with their children, now and after every committed write to either table, when
    /// they differ from the last ones: a screen of posts with their comments stays current without a
    /// query of its own per child table.
    ///
    /// ```swift
    /// for try await threads in posts.observe(where: #Predicate { $0.authorID == 1 }, including: Comment.self, by: \.postID) {
    ///     print(threads.map { "\($0.parent.title): \($0.children.count)" })
    /// }
    /// ```
    ///
    /// - Parameters: As ``fetch(where:sortedBy:limit:including:by:)``.
    /// - Returns: An asynchronous sequence of results; it ends with the error of a query that fails, or at
    ///   once with a `DeclarationError` when `reference` is not a declared reference to this model's table.
    public nonisolated func observe<Child: SQLiteStorable & Sendable & Equatable>(
        where predicate: Predicate<Model>? = nil, sortedBy sortDescriptors: [SortDescriptor<Model>] = [],
        limit: Int? = nil, including child: Child.Type, by reference: any PartialKeyPath<Child> & Sendable
    ) -> AsyncThrowingStream<[Related<Model, Child>], any Error> where Model: Equatable {
        let related: TableReference
        let tables: Set<String>
        let primaryKey = table.primaryKey
        do {
            related = try Related<Model, Child>.reference(by: reference)
            tables = [primaryKey.table, try PrimaryKey<Child>().table]
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        return database.observe(tables: tables) { db in
            try Related.fetch(
                where: predicate, sortedBy: sortDescriptors, limit: limit, including: related, by: reference,
                primaryKey: primaryKey, db)
        }
    }
}
