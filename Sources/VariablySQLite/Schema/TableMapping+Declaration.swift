import Foundation
import VariablyCodable

// MARK: - Checking the declaration

extension TableMapping {
    /// The elements of a ``SQLiteTable`` resolved to key set entries.
    struct DeclaredElements {
        var dateEncodings: [Int: DateEncoding] = [:]
        var defaults: [Int: SQLValue] = [:]
        /// The declared indexes, then one for each reference column that none starts with.
        var indexes: [Index] = []
        var references: [Int: TableReference] = [:]

        init(table: SQLiteTable<Model>, keySet: KeySet<Model>, primaryKeyEntry: Int) throws(DeclarationError) {
            for element in table.elements {
                switch element.kind {
                case .dateEncoding(let keyPath, let encoding):
                    let entry = try Self.entry(of: keyPath, "date encoding", in: keySet, source: table.source)
                    dateEncodings[entry] = encoding
                case .defaultValue(let keyPath, let value):
                    try Self.checkDefault(value, of: keyPath)
                    let entry = try Self.entry(of: keyPath, "default value", in: keySet, source: table.source)
                    defaults[entry] = value
                case .index(let keyPaths, let name, let isUnique):
                    try addIndex(keyPaths, name: name, isUnique: isUnique, table: table, keySet: keySet)
                case .reference(let keyPath, let parent, let onDelete, _):
                    let entry = try Self.entry(of: keyPath, "reference", in: keySet, source: table.source)
                    let isOptional = keySet.entries[entry].coder.isOptional
                    guard onDelete != .setNull || isOptional else {
                        throw DeclarationError(
                            .setNullOnRequiredReference, model: Model.self, keyPath: keyPath,
                            fix: "make the property optional, or choose .cascade or .restrict")
                    }
                    let target = try parent()
                    references[entry] = TableReference(
                        column: keySet.entries[entry].columnName, parentTable: target.table,
                        parentColumn: target.column, onDelete: onDelete, isOptional: isOptional)
                }
            }
            indexes += Index.forReferences(references, table: table.name, besides: indexes, primaryKey: primaryKeyEntry)
        }

        private mutating func addIndex(
            _ keyPaths: [any PartialKeyPath<Model> & Sendable], name: String?, isUnique: Bool,
            table: SQLiteTable<Model>, keySet: KeySet<Model>
        ) throws(DeclarationError) {
            let role = isUnique ? "unique constraint" : "index"
            guard !keyPaths.isEmpty else {
                throw DeclarationError(
                    .emptyIndex(isUnique: isUnique), model: Model.self,
                    fix: "list at least one property: " + (isUnique ? ".unique(\\.email)" : ".index(\\.userName)"))
            }
            var entries: [Int] = []
            for keyPath in keyPaths {
                entries.append(try Self.entry(of: keyPath, role, in: keySet, source: table.source))
            }
            let names = entries.map { keySet.entries[$0].columnName }
            let name = name ?? Index.defaultName(table: table.name, columns: names, isUnique: isUnique)
            guard !indexes.contains(where: { SQL.identifierKey($0.name) == SQL.identifierKey(name) }) else {
                throw DeclarationError(
                    .duplicateIndexName(name), model: Model.self, keyPath: keyPaths[0],
                    fix: "give one of the two indexes another name")
            }
            indexes.append(Index(name: name, columns: names, entries: entries, isUnique: isUnique))
        }

        /// The entry of `keyPath`, which an element (`role`) names.
        private static func entry(
            of keyPath: AnyKeyPath, _ role: String, in keySet: KeySet<Model>, source: CodingSource
        ) throws(DeclarationError) -> Int {
            guard let index = keySet.index(of: keyPath) else {
                throw DeclarationError(
                    .propertyWithoutKey(source, role: role), model: Model.self, keyPath: keyPath,
                    fix: "give the property a key in the \(source) key set, or remove it from the \(role)")
            }
            return index
        }

        /// A real default must be one SQLite gives back: NaN is stored as `NULL`, and a `REAL` column keeps
        /// integral values as integers, so the sign of `-0.0` is lost
        /// (https://www.sqlite.org/datatype3.html#storage_classes_and_datatypes).
        private static func checkDefault(_ value: SQLValue, of keyPath: AnyKeyPath) throws(DeclarationError) {
            guard case .real(let real) = value, real.isNaN || (real == 0 && real.sign == .minus) else { return }
            throw DeclarationError(
                .unstorableDefaultValue(real), model: Model.self, keyPath: keyPath,
                fix: real.isNaN ? "declare another default value" : "declare 0 instead")
        }
    }

    /// The key set that names the table's columns, with no key dropped: a key the key set dropped
    /// (empty, or a property declared twice) would lose a value on every write.
    static func storableKeySet(of table: SQLiteTable<Model>) throws(DeclarationError) -> KeySet<Model> {
        guard let keySet = Model.keySets[table.source] else {
            throw DeclarationError(
                .noKeySet(table.source), model: Model.self,
                fix: "add `KeySet(.\(table.source), style: .snakeCase)` to its keySets")
        }
        for problem in Model.keySets.problems where problem.source == table.source {
            switch problem.kind {
            case .emptyKey, .duplicateKeyPath, .optionDoesNotFit, .underivableKey:
                throw DeclarationError(problem, model: Model.self)
            default: continue
            }
        }
        return keySet
    }

    /// The entry of the table's primary key.
    static func primaryKeyEntry(of table: SQLiteTable<Model>, in keySet: KeySet<Model>) throws(DeclarationError)
        -> Int
    {
        let byName = table.primaryKeyPropertyName.flatMap { name in
            keySet.entries.firstIndex { $0.propertyName == name }
        }
        guard let entry = keySet.index(of: table.primaryKey) ?? byName else {
            throw DeclarationError(
                .primaryKeyWithoutKey(table.source), model: Model.self, keyPath: table.primaryKey,
                fix: "give the property a key in the \(table.source) key set, or declare another primary key")
        }
        return entry
    }

    /// The entries' coders, without the date strategies that became column encodings, and the date
    /// strategies that write text no encoding matches (stored and compared in their own format).
    ///
    /// A date strategy on the key or key set of this source is the column's encoding: declared both
    /// ways, the two must agree, or predicates would compare values in different units.
    static func dateCoders(
        of table: SQLiteTable<Model>, keySet: KeySet<Model>, declared: inout DeclaredElements
    ) throws(DeclarationError) -> (coders: [KeyCoder<Model>], formattedDates: [Int: DateCodingStrategy]) {
        var coders = keySet.entries.map(\.coder)
        var formattedDates: [Int: DateCodingStrategy] = [:]
        for (index, entry) in keySet.entries.enumerated() {
            guard let strategy = entry.options.dates, entry.options.transform == nil,
                entry.coder.storedType == Date.self || entry.coder.storedType == Date?.self
            else { continue }
            let encoding = DateEncoding(writing: strategy)
            if let stored = declared.dateEncodings[index], stored != encoding {
                throw DeclarationError(
                    .conflictingDateEncodings(
                        declared: "\(stored)", written: encoding.map { "\($0)" } ?? "\(strategy.output)"),
                    model: Model.self, keyPath: entry.keyPath,
                    fix: "keep one of the two: the SQLiteTable's .dateEncoding or the \(table.source) date strategy")
            }
            if let encoding {
                declared.dateEncodings[index] = encoding
            } else {
                formattedDates[index] = strategy
            }
            coders[index] = entry.coder.withoutDateStrategy()
        }
        return (coders, formattedDates)
    }

    /// The table's columns, in entry order.
    static func columns(
        of table: SQLiteTable<Model>, keySet: KeySet<Model>, declared: DeclaredElements,
        formattedDates: [Int: DateCodingStrategy], primaryKeyEntry: Int
    ) throws(DeclarationError) -> [Column] {
        var columns: [Column] = []
        for (index, entry) in keySet.entries.enumerated() {
            // A transform's encoded values are what the column holds.
            let transform = entry.options.transform
            let storedType: Any.Type = transform?.encodedType ?? entry.coder.storedType
            var kind = ColumnKind(for: storedType, dateEncoding: declared.dateEncodings[index] ?? .secondsSince1970)
            if let strategy = formattedDates[index] { kind = .formattedDate(strategy) }
            guard transform == nil || index != primaryKeyEntry else {
                throw DeclarationError(
                    .transformedPrimaryKey, model: Model.self, keyPath: entry.keyPath,
                    fix: "remove the transform from the primary key's \(table.source) key: ids are bound as the "
                        + "property's values, so a key column stores them as they are")
            }
            let name = entry.columnName
            // SQLite refuses a table with duplicate columns; an empty name would lose the value on every write.
            guard !name.isEmpty && !entry.key.primary.keys.contains(where: \.isEmpty) else {
                throw DeclarationError(
                    .emptyColumnName, model: Model.self, keyPath: entry.keyPath,
                    fix: "give the property a key with no empty part in the \(table.source) key set")
            }
            columns.append(
                Column(
                    name: name, quotedName: SQL.quote(name), kind: kind, isOptional: entry.coder.isOptional,
                    isPrimaryKey: index == primaryKeyEntry, defaultValue: declared.defaults[index],
                    storedType: storedType, isTransformed: transform != nil, reference: declared.references[index]))
        }
        return columns
    }
}
