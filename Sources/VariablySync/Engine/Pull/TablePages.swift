import Foundation
import VariablyCodable
import VariablySQLite

/// One table's decoded pages of a batch, whatever its model: what the `PullEngine` makes the table's
/// share of a transaction from.
protocol TablePages: Sendable {
    /// The table's name.
    var table: String { get }
    /// The pages decoded.
    var pageCount: Int { get }
    /// Records received, malformed ones included.
    var recordCount: Int { get }
    /// The primary keys the pages hold, records skipped as malformed included: a resync keeps them.
    var receivedKeys: [SQLValue] { get }
    /// Decodes `changes`, the table's part of a feed page, and adds it after the pages already here.
    mutating func add(_ changes: RemoteFeedChanges, cursor: SyncCursor) throws
    /// The table's share of a transaction: these pages after the table's parked records whose parents
    /// are here now (when `hasParked`), inside the writer's transaction.
    func makeBatch(hasParked: Bool, _ db: Database) throws -> any TableBatching
}

/// ``TablePages`` of `Model`'s table.
struct FetchedPages<Model: SQLiteStorable & Identifiable & Sendable>: TablePages where Model.ID: Codable & Sendable {
    let source: SyncTable<Model>
    private(set) var pages: [FetchedPage<Model>]

    init(_ source: SyncTable<Model>, pages: [FetchedPage<Model>] = []) {
        self.source = source
        self.pages = pages
    }

    var table: String { source.primaryKey.table }
    var pageCount: Int { pages.count }
    var recordCount: Int { pages.reduce(0) { $0 + $1.recordCount } }

    var receivedKeys: [SQLValue] {
        let primaryKey = source.primaryKey
        return pages.flatMap { page in
            page.keys + page.skipped.compactMap { record in record.id.flatMap { try? primaryKey.sqlValue(of: $0) } }
        }
    }

    mutating func add(_ changes: RemoteFeedChanges, cursor: SyncCursor) throws {
        let ids: [Model.ID]
        do {
            let decoder = RecordIDDecoder<Model>()
            ids = try changes.deletedIDs.map { try decoder.id(from: Data($0.jsonString().utf8)) }
        } catch {
            throw RemoteSourceError.invalidResponse(
                "the deletions of \(table) are not ids of \(Model.self): \(error)")
        }
        let records = changes.records.isEmpty ? Data("[]".utf8) : changes.records
        pages.append(
            try source.decode(RemotePage(records: records, deletedIDs: ids, nextCursor: cursor, hasMore: true)))
    }

    func makeBatch(hasParked: Bool, _ db: Database) throws -> any TableBatching {
        try TableBatch<Model>(
            pages: pages, applier: source.pageApplier, versioned: source.recordVersions != nil, hasParked: hasParked,
            tally: source.tally, db)
    }
}
