import Foundation
import VariablyCodable

/// One ``TableMapping`` per model type, built on first use.
///
/// `@unchecked Sendable`: `mappings` is only read and written while `lock` is held, and the
/// mappings it holds are immutable and `Sendable`.
final class MappingCache: @unchecked Sendable {
    static let shared = MappingCache()
    private let lock = NSLock()
    private var mappings: [ObjectIdentifier: any Sendable] = [:]
    /// The model type that first used each table name (as SQLite compares names).
    private var owners: [[UInt8]: (type: ObjectIdentifier, name: String)] = [:]

    /// The mapping of `type`, made by `make` on first use.
    ///
    /// - Throws: What `make` throws, or `DeclarationError` when the table is named after the type and
    ///   another type of the same name has it; nothing is cached then.
    func mapping<Model>(
        for type: Model.Type, make: () throws(DeclarationError) -> TableMapping<Model>
    ) throws(DeclarationError) -> TableMapping<Model> {
        lock.lock()
        defer { lock.unlock() }
        if let mapping = mappings[ObjectIdentifier(type)] as? TableMapping<Model> { return mapping }
        let mapping = try make()
        let key = SQL.identifierKey(mapping.tableName)
        if let owner = owners[key], owner.type != ObjectIdentifier(type) {
            // Two declarations naming one table may be deliberate; two types that merely share a name are not.
            guard !mapping.isNamedAfterType else {
                throw DeclarationError(
                    .sharedTableName(mapping.tableName, otherModel: owner.name), modelType: String(reflecting: type),
                    fix:
                        "declare `static let sqliteTable = SQLiteTable(\"...\", primaryKey: \\.id)` with a name of its own"
                )
            }
        } else {
            owners[key] = (ObjectIdentifier(type), String(reflecting: type))
        }
        mappings[ObjectIdentifier(type)] = mapping
        return mapping
    }
}
