import Foundation
import VariablyCodable

extension HTTPPullReader {
    /// Reads one page of a feed (``HTTPRemoteFeed``), whose shape names each table with `{table}`:
    /// each table's records and deletions by a reader of its own, and the paging from the whole
    /// answer — its records counted across tables (a page shorter than asked, an offset, declared
    /// totals), its repeat told by a digest of every table's part — so that a table with few records
    /// on a page does not end the feed, and offsets move by every record served. The declared fields
    /// are verified table by table at the end of the pull.
    ///
    /// - Parameter tables: The tables the answer holds, in its order.
    func feedPage(
        parsed body: JSONBody, tables: [String], link: String?, from url: URL, state: HTTPPullState, limit: Int
    ) throws -> RemoteFeedPage {
        var changes: [String: RemoteFeedChanges] = [:]
        var read = state.feedTables ?? [:]
        var outline = HTTPPageOutline(
            state: state, body: body, pageURL: url, count: 0, newRecords: 0, pageDigest: nil, isRepeat: false)
        var digests: [String] = []
        for table in tables {
            let named = HTTPRemoteFeed.shape(shape, naming: table)
            var tableState = state
            (tableState.carried, tableState.firstRecord, tableState.lastPage) =
                (read[table]?.carried, read[table]?.firstRecord, nil)
            let recordsRange = try body.range(at: named.records)
            var elements: [Range<Int>] = []
            if let recordsRange {
                guard let found = try body.elements(of: recordsRange) else {
                    throw RemoteSourceError.invalidResponse("the feed's records at \(named.records) are not an array")
                }
                elements = found
            }
            var reader = try HTTPPageReader<JSONValue>(
                shape: named, body: body, records: recordsRange, state: tableState, pageURL: url,
                decodeID: { try KeySetJSONDecoder().decode(JSONValue.self, from: $0) })
            if case .ids(let path) = named.deletions, let range = try body.range(at: path) {
                try reader.readDeletedIDs(in: range, at: path)
            }
            for element in elements { try reader.read(element) }
            let records = reader.changed ? body.array(of: reader.kept) : recordsRange.map { body.data($0) }
            changes[table] = RemoteFeedChanges(records: records ?? Data("[]".utf8), deletedIDs: reader.deleted)
            outline.count += elements.count
            outline.newRecords += reader.newRecords
            digests.append("\(table):\(reader.pageDigest ?? "-"):\(reader.deleted.count)")
            var known = read[table] ?? HTTPPullState.FeedTable()
            (known.pulled, known.carried, known.firstRecord) =
                (
                    known.pulled + elements.count, reader.carried.isEmpty ? nil : reader.carried.sorted(),
                    reader.firstRecord
                )
            read[table] = known
        }
        outline.pageDigest = HTTPPullShape.digest(of: Array(digests.joined(separator: ",").utf8)[...])
        outline.isRepeat = outline.pageDigest == state.lastPage
        var (next, more) = try nextState(after: outline, link: link, limit: limit)
        if more {
            // A page served again adds no records to any table.
            next.feedTables = outline.isRepeat ? state.feedTables : read
        } else {
            for (table, known) in read.sorted(by: { $0.key < $1.key }) {
                try verifyDeclaredFields(
                    carried: Set(known.carried ?? []), pulled: known.pulled, example: known.firstRecord, table: table)
            }
        }
        var page = RemoteFeedPage(
            tables: changes, nextCursor: next.cursor(shape: shape, endsPull: !more, remembering: states), hasMore: more)
        // The request that only confirmed the end after a shorter page.
        page.isCheck = state.checkedPageSize != nil && outline.newRecords == 0
        return page
    }
}
