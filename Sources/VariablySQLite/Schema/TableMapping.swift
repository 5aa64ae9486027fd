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

    init(table: SQLiteTable<Model>) {
        guard let keySet = Model.keySets[table.source] else {
            preconditionFailure(
                "\(Model.self) has no \(table.source) key set: add `KeySet(.\(table.source), style: .snakeCase)` to its keySets."
            )
        }
        // A key the key set dropped (empty, or a property declared twice) would lose a value on every write.
        let dropped = Model.keySets.problems.filter { problem in
            guard problem.source == table.source else { return false }
            switch problem.kind {
            case .emptyKey, .duplicateKeyPath: return true
            default: return false
            }
        }
        precondition(
            dropped.isEmpty,
            "The \(table.source) key set of \(Model.self) cannot be stored: "
                + dropped.map(\.description).joined(separator: "; ")
                + ". `try \(Model.self).keySets.validate()` lists every problem.")
        let byName = table.primaryKeyPropertyName.flatMap { name in
            keySet.entries.firstIndex { $0.propertyName == name }
        }
        guard let primaryKeyEntry = keySet.index(of: table.primaryKey) ?? byName else {
            preconditionFailure(
                "The primary key \(table.primaryKey) of \(Model.self) has no key in its \(table.source) key set: add it."
            )
        }
        var dateEncodings: [Int: DateEncoding] = [:]
        var defaults: [Int: SQLValue] = [:]
        var indexes: [Index] = []
        var references: [Int: TableReference] = [:]
        func entryIndex(_ keyPath: AnyKeyPath, _ role: String) -> Int {
            guard let index = keySet.index(of: keyPath) else {
                preconditionFailure(
                    "The \(role) on \(keyPath) of \(Model.self) names a property without a \(table.source) key.")
            }
            return index
        }
        func columnName(_ entry: KeyEntry<Model>) -> String { entry.columnName }
        for element in table.elements {
            switch element.kind {
            case .dateEncoding(let keyPath, let encoding):
                dateEncodings[entryIndex(keyPath, "date encoding")] = encoding
            case .defaultValue(let keyPath, let value):
                defaults[entryIndex(keyPath, "default value")] = value
            case .index(let keyPaths, let name, let isUnique):
                let entries = keyPaths.map { entryIndex($0, "index") }
                let names = entries.map { columnName(keySet.entries[$0]) }
                let name = name ?? Index.defaultName(table: table.name, columns: names, isUnique: isUnique)
                precondition(
                    !indexes.contains { SQL.identifierKey($0.name) == SQL.identifierKey(name) },
                    "\(Model.self) declares two indexes named \(SQL.quote(name)): give one another name.")
                indexes.append(Index(name: name, columns: names, entries: entries, isUnique: isUnique))
            case .reference(let keyPath, let parent, let onDelete, _):
                let entry = entryIndex(keyPath, "reference")
                let target = parent()
                precondition(
                    onDelete != .setNull || keySet.entries[entry].coder.isOptional,
                    "The reference \(keyPath) of \(Model.self) sets NULL when its parent is deleted: make the property optional, "
                        + "or choose .cascade or .restrict.")
                references[entry] = TableReference(
                    column: columnName(keySet.entries[entry]), parentTable: target.table, parentColumn: target.column,
                    onDelete: onDelete, isOptional: keySet.entries[entry].coder.isOptional)
            }
        }
        indexes += Index.forReferences(references, table: table.name, besides: indexes, primaryKey: primaryKeyEntry)
        // A date strategy on the key or key set of this source is the column's encoding: declared both
        // ways, the two must agree, or predicates would compare values in different units. A strategy
        // that no encoding matches writes text that is stored and compared in its own format.
        var coders = keySet.entries.map(\.coder)
        var formattedDates: [Int: DateCodingStrategy] = [:]
        for (index, entry) in keySet.entries.enumerated() {
            guard let strategy = entry.options.dates, entry.options.transform == nil,
                entry.coder.storedType == Date.self || entry.coder.storedType == Date?.self
            else { continue }
            let property = entry.propertyName ?? "\(entry.keyPath)"
            let encoding = DateEncoding(writing: strategy)
            if let declared = dateEncodings[index], declared != encoding {
                preconditionFailure(
                    "\(Model.self).\(property) is stored as \(declared) by its SQLiteTable but written as "
                        + "\(encoding.map { "\($0)" } ?? "\(strategy.output)") by its \(table.source) date strategy: keep one of the two."
                )
            }
            if let encoding {
                dateEncodings[index] = encoding
            } else {
                formattedDates[index] = strategy
            }
            coders[index] = entry.coder.withoutDateStrategy()
        }
        var columns: [Column] = []
        for (index, entry) in keySet.entries.enumerated() {
            // A transform's encoded values are what the column holds.
            let transform = entry.options.transform
            let storedType: Any.Type = transform?.encodedType ?? entry.coder.storedType
            var kind = ColumnKind(for: storedType, dateEncoding: dateEncodings[index] ?? .secondsSince1970)
            if let strategy = formattedDates[index] { kind = .formattedDate(strategy) }
            precondition(
                transform == nil || index != primaryKeyEntry,
                "The primary key \(entry.propertyName ?? "\(entry.keyPath)") of \(Model.self) has a value transform in its "
                    + "\(table.source) key set: ids are bound as the property's values, so a key column stores them as they are."
            )
            let name = columnName(entry)
            // SQLite refuses a table with duplicate columns; an empty name would lose the value on every write.
            precondition(
                !name.isEmpty && !entry.key.primary.keys.contains(where: \.isEmpty),
                "The \(table.source) key of \(entry.propertyName ?? "\(entry.keyPath)") in \(Model.self) has an empty name: a column needs one."
            )
            columns.append(
                Column(
                    name: name, quotedName: SQL.quote(name), kind: kind, isOptional: entry.coder.isOptional,
                    isPrimaryKey: index == primaryKeyEntry, defaultValue: defaults[index],
                    storedType: storedType, isTransformed: transform != nil, reference: references[index]))
        }
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

    static var shared: TableMapping<Model> {
        MappingCache.shared.mapping(for: Model.self) { TableMapping(table: Model.sqliteTable) }
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
