import Foundation
import VariablySQLite

/// One table as the `PullEngine` sees it, whatever its model: where it sits in the graph of
/// references, how its part of a feed page is decoded, how a batch of its pages is made, and how one
/// of its records is looked up on the server. Holds values only (no repository), so that a database
/// can keep the tables of every repository opened on it.
struct EngineTable: Sendable {
    let table: String
    /// The other tables it references through required columns.
    let parents: Set<String>
    /// The other tables it references through optional columns only: a cycle may go through them.
    let optionalParents: Set<String>
    /// Every reference the table declares, its own table's included.
    let references: [TableReference]
    let type: ObjectIdentifier
    /// Decodes the table's part of a feed page, off the writer.
    let decodeFeed: @Sendable (RemoteFeedChanges, SyncCursor) throws -> any Sendable
    /// Decodes records the server sent for this table (a JSON array), off the writer.
    let decodeRecords: @Sendable (Data) throws -> any Sendable
    /// The table's share of a batch, from its decoded parts, inside the writer's transaction; `hasParked`
    /// tells whether the table has parked records to look at.
    let makeBatch: @Sendable ([any Sendable], Bool, Database) throws -> any TableBatching
    /// The server's current JSON of the record whose id is the JSON text given, or `nil` when the server
    /// answers that it has no such record.
    let lookUp: @Sendable (String) async throws -> Data?

    init<Model>(_ repository: SyncTable<Model>) {
        let key = repository.primaryKey
        table = key.table
        references = key.references
        let others = key.references.filter { $0.parentTable != key.table }
        parents = Set(others.filter { !$0.isOptional }.map(\.parentTable))
        optionalParents = Set(others.filter(\.isOptional).map(\.parentTable)).subtracting(parents)
        type = ObjectIdentifier(Model.self)
        let primaryKey = key
        let versionField = repository.recordVersions?.field
        let failsPages = repository.configuration.malformedRecords == .failPage
        let table = key.table
        let dateObserver = repository.dateObserver
        decodeFeed = { changes, cursor in
            let ids: [Model.ID]
            do {
                let decoder = RecordIDDecoder<Model>()
                ids = try changes.deletedIDs.map { try decoder.id(from: Data($0.jsonString().utf8)) }
            } catch {
                throw RemoteSourceError.invalidResponse(
                    "the deletions of \(table) are not ids of \(Model.self): \(error)")
            }
            let records = changes.records.isEmpty ? Data("[]".utf8) : changes.records
            var fetched = try SyncTable<Model>.decode(
                RemotePage(records: records, deletedIDs: ids, nextCursor: cursor, hasMore: true))
            if failsPages, !fetched.skipped.isEmpty { throw SyncError.malformedRecords(fetched.skipped) }
            fetched.keys = try primaryKey.sqlValues(ofModels: fetched.models)
            if let versionField {
                fetched.versions = SyncTable<Model>.versions(in: records, field: versionField, of: fetched)
            }
            fetched.serverDates = dateObserver.formats(in: records)
            return fetched
        }
        decodeRecords = { records in
            var fetched = try SyncTable<Model>.decode(
                RemotePage(records: records, deletedIDs: [], nextCursor: SyncCursor(""), hasMore: true))
            fetched.keys = try primaryKey.sqlValues(ofModels: fetched.models)
            return fetched
        }
        let applier = repository.pageApplier
        makeBatch = { parts, hasParked, db in
            try TableBatch<Model>(
                pages: parts.compactMap { $0 as? SyncTable<Model>.FetchedPage }, applier: applier,
                versioned: versionField != nil, hasParked: hasParked, db)
        }
        let remote = repository.remote
        lookUp = { idText in
            let id = try JSONDecoder().decode([Model.ID].self, from: Data("[\(idText)]".utf8))[0]
            return try await remote.currentRecord(id: id)
        }
    }

    /// `tables` with each after the tables it references; in a cycle, references through optional
    /// columns give way first (a record is created with them empty and completed later), and tables
    /// still in a cycle keep the order they were given in.
    static func ordered(_ tables: [EngineTable]) -> [EngineTable] {
        var placed: [EngineTable] = []
        var remaining = tables
        while !remaining.isEmpty {
            let names = Set(remaining.map(\.table))
            let ready =
                remaining.firstIndex { $0.parents.union($0.optionalParents).isDisjoint(with: names) }
                ?? remaining.firstIndex { $0.parents.isDisjoint(with: names) } ?? 0
            placed.append(remaining.remove(at: ready))
        }
        return placed
    }
}

// MARK: - The tables of a database

extension SQLiteDatabase {
    private static var engineTablesKey: String { "VariablySync.engineTables" }

    /// Registers the table of a repository opened on this database: a pull of any table applies the
    /// parked records of every registered one whose parents it brings.
    func registerEngineTable(_ table: EngineTable) {
        attachments.update(Self.engineTablesKey) { value in
            var tables = value as? [String: EngineTable] ?? [:]
            tables[table.table] = table
            value = tables
        }
    }

    /// The tables of the repositories opened on this database, each after the tables it references.
    var engineTables: [EngineTable] {
        let tables = attachments[Self.engineTablesKey] as? [String: EngineTable] ?? [:]
        return EngineTable.ordered(tables.values.sorted { $0.table < $1.table })
    }
}
