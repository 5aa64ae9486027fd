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
    /// let feed = try await essays.fetch(
    ///     where: #Predicate { $0.writerID == 1 }, sortedBy: [SortDescriptor(\.id)], including: Remark.self, by: \.essayID)
    /// ```
    ///
    /// - Parameters:
    ///   - predicate: The filter of the models, or `nil` for every model.
    ///   - sortDescriptors: The models' order; the children are in their primary key's order.
    ///   - limit: The most models returned.
    ///   - child: The referencing model.
    ///   - reference: The child's property that references this model; declaring no such reference is
    ///     a programming error and traps.
    /// - Throws: `QueryTranslationError` for a predicate SQL cannot express, `SQLiteError`.
    /// - Complexity: The models' query, plus one indexed look-up per model when `reference`'s column
    ///   has an index (declare `.index(\.essayID)` on large tables).
    public nonisolated func fetch<Child: SQLiteStorable & Sendable>(
        where predicate: Predicate<Model>? = nil, sortedBy sortDescriptors: [SortDescriptor<Model>] = [],
        limit: Int? = nil, including child: Child.Type, by reference: any PartialKeyPath<Child> & Sendable
    ) async throws -> [Related<Model, Child>] {
        let childKey = PrimaryKey<Child>()
        guard let declared = childKey.reference(at: reference), declared.parentTable == primaryKey.table else {
            preconditionFailure(
                "\(reference) of \(Child.self) is not a declared reference to \(Model.self)'s table \"\(primaryKey.table)\": "
                    + "declare `.references(\(reference), \(Model.self).self)` in \(Child.self).sqliteTable.")
        }
        let primaryKey = self.primaryKey
        return try await database.read { db in
            let parents = try db.fetch(Model.self, where: predicate, sortedBy: sortDescriptors, limit: limit)
            let keys = try parents.map { try primaryKey.sqlValue(of: $0.id) }
            let children = try db.fetch(Child.self, whereColumn: SQL.quote(declared.column), in: keys)
            var byParent: [SQLValue: [Child]] = [:]
            for child in children {
                guard let value = child[keyPath: reference] as? any Encodable else { continue }
                byParent[try primaryKey.sqlValue(of: value), default: []].append(child)
            }
            // A parent's children come from one query, in their primary key's order.
            return zip(parents, keys).map { Related(parent: $0, children: byParent[$1] ?? []) }
        }
    }
}
