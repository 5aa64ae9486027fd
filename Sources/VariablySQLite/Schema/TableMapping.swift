import Foundation
import VariablyCodable

/// A model's table resolved once per process: columns in key-set order, their kinds, and the SQL of
/// every records operation, so that no operation builds SQL or looks up names per row.
final class TableMapping<Model: SQLiteStorable>: Sendable {
    struct Column: Sendable {
        let name: String
        let quotedName: String
        let kind: ColumnKind
        let isOptional: Bool
        let isPrimaryKey: Bool
        let defaultValue: SQLValue?
        /// The type the column holds (the wrapped type for an optional): the property's, or the
        /// encoded type of its value transform.
        let storedType: Any.Type
        /// Whether a value transform stands between the property and the column: SQL then sees the
        /// encoded values, which it cannot compare or sort as the property's.
        let isTransformed: Bool
        /// The parent this column references, if declared.
        let reference: TableReference?

        var sqlType: String { kind.sqlType }

        /// `"name" TYPE [PRIMARY KEY] [NOT NULL] [DEFAULT x] [REFERENCES …]`.
        var definition: String {
            var text = quotedName + " " + sqlType
            if isPrimaryKey { text += " PRIMARY KEY" }
            if !isOptional { text += " NOT NULL" }
            if let defaultValue { text += " DEFAULT " + SQL.literal(defaultValue) }
            if let reference { text += " " + reference.clause }
            return text
        }
    }

    struct Index: Sendable {
        let name: String
        let columns: [String]
        /// The key set entries of ``columns``, in the same order.
        let entries: [Int]
        let isUnique: Bool

        /// `<table>_unique_<columns>_<hash>` or `<table>_on_<columns>_<hash>`: readable, and unambiguous
        /// through a hash of the exact names, since `_` joins names that may contain `_` themselves
        /// (`.unique(\.a, \.b)` and `.unique(\.aB)` in snake case both read `a_b`).
        static func defaultName(table: String, columns: [String], isUnique: Bool) -> String {
            let kind = isUnique ? "unique" : "on"
            let digest = StableDigest.hex(of: ([table, kind] + columns).joined(separator: "\u{0}"))
            return "\(table)_\(kind)_\(columns.joined(separator: "_"))_\(digest)"
        }

        /// An index for each reference column that no declared index starts with, in column order.
        /// SQLite does not index a foreign key's child column: without one, every delete or key
        /// change of a parent scans the child table (https://www.sqlite.org/foreignkeys.html#fk_indexes),
        /// and so does every look-up of the children parked for a parent.
        static func forReferences(
            _ references: [Int: TableReference], table: String, besides declared: [Index], primaryKey: Int
        ) -> [Index] {
            references.keys.sorted().compactMap { entry in
                guard entry != primaryKey, !declared.contains(where: { $0.entries.first == entry }),
                    let column = references[entry]?.column
                else { return nil }
                let name = defaultName(table: table, columns: [column], isUnique: false)
                guard !declared.contains(where: { SQL.identifierKey($0.name) == SQL.identifierKey(name) }) else {
                    return nil
                }
                return Index(name: name, columns: [column], entries: [entry], isUnique: false)
            }
        }

        func createSQL(table: String) -> String {
            "CREATE \(isUnique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(SQL.quote(name)) ON \(SQL.quote(table)) ("
                + columns.map(SQL.quote).joined(separator: ", ") + ")"
        }
    }

    let tableName: String
    /// Whether ``tableName`` is the type's bare name, chosen by default rather than declared.
    let isNamedAfterType: Bool
    let quotedTable: String
    let keySet: KeySet<Model>
    /// The entries' coders, in entry order: copying a whole `KeyEntry` per value costs more than binding it.
    let coders: [KeyCoder<Model>]
    /// Per entry, a direct reader when the property's type has a fast path (see ``FastColumnReader``).
    let fastReaders: [FastColumnReader?]
    let columns: [Column]
    /// The columns' names, in entry order (for errors).
    let columnNames: [String]
    let indexes: [Index]
    /// The declared references to parent tables, in column order.
    let references: [TableReference]
    /// The entries of indexed columns other than the primary key, in groups that share no index: a
    /// change to one group's columns touches none of the other groups' indexes. Groups and their
    /// entries are in entry order.
    let indexGroups: [IndexGroup]
    let primaryKeyEntry: Int
    /// The plans of the merging upserts (see ``Database/upsert(_:primaryKeys:updatingEntries:atomically:)``).
    let mergingPlans = MergingPlanCache()

    let createTableSQL: String
    let selectSQL: String
    let insertSQL: String
    let upsertSQL: String
    let updateSQL: String
    let selectByIDSQL: String
    let deleteByIDSQL: String
    let countSQL: String

    /// Column `i` of ``selectSQL`` is entry `i`.
    let readSlots: [ColumnSlot]
    /// Parameter `i + 1` of ``insertSQL`` and ``upsertSQL`` is entry `i`.
    let insertSlots: [ColumnSlot]
    /// ``updateSQL`` sets the other columns first, then matches the primary key last.
    let updateSlots: [ColumnSlot]

    /// Resolves `table` against the model's key set.
    ///
    /// - Throws: `DeclarationError` for a declaration that cannot be stored.
    init(table: SQLiteTable<Model>) throws(DeclarationError) {
        let keySet = try Self.storableKeySet(of: table)
        let primaryKeyEntry = try Self.primaryKeyEntry(of: table, in: keySet)
        var declared = try DeclaredElements(table: table, keySet: keySet, primaryKeyEntry: primaryKeyEntry)
        let (coders, formattedDates) = try Self.dateCoders(of: table, keySet: keySet, declared: &declared)
        let columns = try Self.columns(
            of: table, keySet: keySet, declared: declared, formattedDates: formattedDates,
            primaryKeyEntry: primaryKeyEntry)
        let indexes = declared.indexes
        self.tableName = table.name
        self.isNamedAfterType = table.isNamedAfterType
        self.quotedTable = SQL.quote(table.name)
        self.keySet = keySet
        self.coders = coders
        self.fastReaders = zip(keySet.entries, columns).map { FastColumnReader(entry: $0, kind: $1.kind) }
        self.columns = columns
        self.columnNames = columns.map(\.name)
        self.indexes = indexes
        self.references = columns.compactMap(\.reference)
        self.indexGroups = IndexGroup.groups(of: indexes, excluding: primaryKeyEntry)
        self.primaryKeyEntry = primaryKeyEntry

        let names = columns.map(\.quotedName)
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let primaryKey = columns[primaryKeyEntry].quotedName
        let others = columns.indices.filter { $0 != primaryKeyEntry }
        createTableSQL = "CREATE TABLE \(quotedTable) (" + columns.map(\.definition).joined(separator: ", ") + ")"
        selectSQL = "SELECT " + names.joined(separator: ", ") + " FROM \(quotedTable)"
        insertSQL = "INSERT INTO \(quotedTable) (" + names.joined(separator: ", ") + ") VALUES (\(placeholders))"
        // https://www.sqlite.org/lang_upsert.html; with no other column there is nothing to update.
        upsertSQL =
            insertSQL + " ON CONFLICT (\(primaryKey)) "
            + (others.isEmpty
                ? "DO NOTHING"
                : "DO UPDATE SET " + others.map { "\(names[$0]) = excluded.\(names[$0])" }.joined(separator: ", "))
        updateSQL =
            "UPDATE \(quotedTable) SET " + others.map { "\(names[$0]) = ?" }.joined(separator: ", ")
            + " WHERE \(primaryKey) = ?"
        selectByIDSQL = selectSQL + " WHERE \(primaryKey) = ?"
        deleteByIDSQL = "DELETE FROM \(quotedTable) WHERE \(primaryKey) = ?"
        countSQL = "SELECT COUNT(*) FROM \(quotedTable)"

        readSlots = columns.enumerated().map { ColumnSlot(type: $1.storedType, kind: $1.kind, index: Int32($0)) }
        insertSlots = columns.enumerated().map { ColumnSlot(type: $1.storedType, kind: $1.kind, index: Int32($0 + 1)) }
        var updateSlots = insertSlots
        for (position, entry) in others.enumerated() {
            updateSlots[entry] = ColumnSlot(
                type: columns[entry].storedType, kind: columns[entry].kind, index: Int32(position + 1))
        }
        updateSlots[primaryKeyEntry] = ColumnSlot(
            type: columns[primaryKeyEntry].storedType, kind: columns[primaryKeyEntry].kind,
            index: Int32(others.count + 1))
        self.updateSlots = updateSlots
    }

    /// Indexed columns that share an index, for writes that touch an index only when its columns change.
    struct IndexGroup: Sendable, Equatable {
        /// Key set entries, ascending.
        let entries: [Int]
        /// Whether one of the group's indexes is unique.
        let isUnique: Bool

        /// The indexes' columns, merged into groups wherever two indexes share a column.
        static func groups(of indexes: [Index], excluding primaryKeyEntry: Int) -> [IndexGroup] {
            var groups: [IndexGroup] = []
            for index in indexes {
                var entries = Set(index.entries.filter { $0 != primaryKeyEntry })
                guard !entries.isEmpty else { continue }
                var isUnique = index.isUnique
                groups.removeAll { group in
                    guard !entries.isDisjoint(with: group.entries) else { return false }
                    entries.formUnion(group.entries)
                    isUnique = isUnique || group.isUnique
                    return true
                }
                groups.append(IndexGroup(entries: entries.sorted(), isUnique: isUnique))
            }
            return groups.sorted { $0.entries[0] < $1.entries[0] }
        }
    }

    /// The `CREATE INDEX` statements of the declared indexes and unique constraints.
    var createIndexSQL: [String] { indexes.map { $0.createSQL(table: tableName) } }

    /// The column of entry `index`'s key path, for predicates and sort descriptors.
    func column(for keyPath: AnyKeyPath) -> (entry: Int, column: Column)? {
        keySet.index(of: keyPath).map { ($0, columns[$0]) }
    }

    /// Slots that read the entries from a statement with arbitrary columns, matched by name once.
    func readSlots(for statement: Statement) -> [ColumnSlot] {
        var byName: [[UInt8]: Int32] = [:]
        for (index, name) in statement.columnNames.enumerated() where byName[SQL.identifierKey(name)] == nil {
            byName[SQL.identifierKey(name)] = Int32(index)
        }
        return columns.map {
            ColumnSlot(type: $0.storedType, kind: $0.kind, index: byName[SQL.identifierKey($0.name)] ?? -1)
        }
    }

    // MARK: - Cache

    /// The model's mapping, built on first use.
    ///
    /// - Throws: `DeclarationError` for a declaration that cannot be stored; nothing is cached then.
    static var shared: TableMapping<Model> {
        get throws(DeclarationError) {
            try MappingCache.shared.mapping(for: Model.self) { () throws(DeclarationError) in
                try TableMapping(table: Model.sqliteTable)
            }
        }
    }
}

/// A column that references a parent table's primary key (``TableElement/references(_:_:onDelete:)``).
package struct TableReference: Sendable, Equatable {
    /// The child's column, unquoted.
    package let column: String
    /// The parent's table, unquoted.
    package let parentTable: String
    /// The parent's primary key column, unquoted.
    package let parentColumn: String
    package let onDelete: ReferenceAction
    /// Whether the column may be `NULL`: a record may exist before its parent does.
    package let isOptional: Bool

    /// The column constraint (https://www.sqlite.org/foreignkeys.html#fk_deferred).
    var clause: String {
        "REFERENCES \(SQL.quote(parentTable)) (\(SQL.quote(parentColumn))) ON UPDATE CASCADE ON DELETE \(onDelete.sql) "
            + "DEFERRABLE INITIALLY DEFERRED"
    }
}

extension KeyEntry {
    /// The entry's column: its key, a nested path (`address.city`) flattened as `address_city`.
    var columnName: String { key.primary.keys.joined(separator: "_") }
}
