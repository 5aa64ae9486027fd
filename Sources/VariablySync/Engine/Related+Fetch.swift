import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Reading records with their children

extension Related where Parent: SQLiteStorable & Identifiable, Parent.ID: Codable & Sendable, Child: SQLiteStorable {
    /// The reference of `Child` declared on `reference` to `Parent`'s table.
    ///
    /// - Throws: `DeclarationError` when `reference` is not a declared reference to this model's table.
    static func reference(by reference: any PartialKeyPath<Child> & Sendable) throws(DeclarationError)
        -> TableReference
    {
        let table = try PrimaryKey<Parent>().table
        guard let declared = try PrimaryKey<Child>().reference(at: reference), declared.parentTable == table else {
            throw DeclarationError(
                .undeclaredReference(parentTable: table), model: Child.self, keyPath: reference,
                fix: "declare `.references(\(reference), \(Parent.self).self)` in \(Child.self).sqliteTable")
        }
        return declared
    }

    /// The models and, from the same transaction, their children through `reference`.
    static func fetch(
        where predicate: Predicate<Parent>?, sortedBy sortDescriptors: [SortDescriptor<Parent>], limit: Int?,
        including reference: TableReference, by keyPath: any PartialKeyPath<Child> & Sendable,
        primaryKey: PrimaryKey<Parent>, _ db: Database
    ) throws -> [Self] {
        let parents = try db.fetch(Parent.self, where: predicate, sortedBy: sortDescriptors, limit: limit)
        let keys = try parents.map { try primaryKey.sqlValue(of: $0.id) }
        let children: [Child] = try db.fetch(Child.self, whereColumn: SQL.quote(reference.column), in: keys)
        var byParent: [SQLValue: [Child]] = [:]
        for child in children {
            guard let value = child[keyPath: keyPath] as? any Encodable else { continue }
            byParent[try primaryKey.sqlValue(of: value), default: []].append(child)
        }
        // A parent's children come from one query, in their primary key's order.
        return zip(parents, keys).map { Related(parent: $0, children: byParent[$1] ?? []) }
    }
}
