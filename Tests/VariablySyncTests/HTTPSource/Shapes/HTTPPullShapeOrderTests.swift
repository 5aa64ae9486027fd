import Foundation
import Testing

@testable import VariablySync

/// What an `HTTPPullShape` makes of servers it does not control: deletion markers as soft-delete
/// libraries write them, records out of the declared order, and page numbers over a changing table.
@Suite struct HTTPPullShapeOrderTests {
    private let pageURL = URL(string: "http://127.0.0.1:1/api/comments/?page=1")!

    private func page(
        _ body: String, shape: HTTPPullShape, from state: HTTPPullState = HTTPPullState(), limit: Int = 10
    ) throws -> RemotePage<Int64> {
        try HTTPPullReader(shape: shape).page(
            body: Data(body.utf8), link: nil, from: pageURL, state: state, limit: limit, idType: Int64.self)
    }

    private func message(_ error: any Error) -> String { "\(error)" }

    // MARK: - Deletion markers

    @Test func aDeletedAtTimestampMarksADeletionAndNullALiveRecord() throws {
        let shape = HTTPPullShape(paging: .page(parameter: "page"), deletions: .softDeleted(at: "deleted_at"))
        let result = try page(
            #"[{"id": 1, "deleted_at": null}, {"id": 2, "deleted_at": "2026-11-27T10:00:00.123456Z"}, {"id": 3}]"#,
            shape: shape)
        #expect(result.deletedIDs == [2])
        #expect(String(decoding: result.records, as: UTF8.self) == #"[{"id": 1, "deleted_at": null},{"id": 3}]"#)
    }

    @Test func aStatusValueMarksADeletion() throws {
        let shape = HTTPPullShape(
            paging: .page(parameter: "page"), deletions: .status(field: "state", deleted: "deleted"))
        let result = try page(#"[{"id": 1, "state": "live"}, {"id": 2, "state": "deleted"}]"#, shape: shape)
        #expect(result.deletedIDs == [2])
        #expect(throws: RemoteSourceError.self) { try page(#"[{"id": 3, "state": 0}]"#, shape: shape) }
    }

    /// A timestamp marker declared as a flag used to be read as "live" on every record: now the pull
    /// stops and the error names the field, the record and the declaration that fits.
    @Test func aTimestampDeclaredAsAFlagIsAnErrorNamingTheFix() throws {
        let shape = HTTPPullShape(paging: .page(parameter: "page"), deletions: .tombstones(flag: "deleted_at"))
        #expect(try page(#"[{"id": 1, "deleted_at": null}]"#, shape: shape).deletedIDs.isEmpty)
        do {
            _ = try page(
                #"[{"id": 1, "deleted_at": null}, {"id": 7, "deleted_at": "2026-11-27T10:00:00Z"}]"#, shape: shape)
            Issue.record("a timestamp where a flag was declared should stop the pull")
        } catch {
            #expect(message(error).contains("\"deleted_at\" of record 7"))
            #expect(message(error).contains(".softDeleted(at: \"deleted_at\")"))
        }
    }

    // MARK: - The declared order

    private var ordered: HTTPPullShape {
        HTTPPullShape(
            paging: .page(parameter: "page"),
            changedSince: .updatedSince(parameter: "updated_at__gte", field: "updated_at"))
    }

    /// A server that ignores the ordering (DRF without `OrderingFilter` pages by id): the pull stops with
    /// an error naming the endpoint, both records and the fix.
    @Test func recordsOutOfTheDeclaredOrderStopThePull() throws {
        do {
            _ = try page(
                #"[{"id": 1, "updated_at": "2026-11-27T10:00:05Z"}, {"id": 2, "updated_at": "2026-11-27T10:00:01Z"}]"#,
                shape: ordered)
            Issue.record("records out of order should stop the pull")
        } catch {
            #expect(message(error).contains("/api/comments serves records out of the declared order"))
            #expect(message(error).contains("record 2"))
            #expect(message(error).contains("record 1"))
            #expect(message(error).contains("OrderingFilter"))
        }
    }

    /// Across pages too, and below the value the request asked for (a filter the server ignores).
    @Test func aLaterPageWithOlderRecordsOrRecordsBelowTheAskedValueStopThePull() throws {
        let first = try page(
            #"[{"id": 1, "updated_at": "2026-11-27T10:00:01Z"}, {"id": 2, "updated_at": "2026-11-27T10:00:05Z"}]"#,
            shape: ordered, limit: 2)
        let state = try HTTPPullState(cursor: first.nextCursor, shape: ordered)
        #expect(throws: RemoteSourceError.self) {
            try page(#"[{"id": 3, "updated_at": "2026-11-27T10:00:02Z"}]"#, shape: ordered, from: state, limit: 2)
        }
        // The same page served again (a proxy's repeat) is no disorder.
        _ = try page(
            #"[{"id": 1, "updated_at": "2026-11-27T10:00:01Z"}, {"id": 2, "updated_at": "2026-11-27T10:00:05Z"}]"#,
            shape: ordered, from: state, limit: 2)
    }

    /// Timestamps are ordered by instant, whatever their fraction digits: DRF writes `…:02Z` for a
    /// whole second and `…:02.500000Z` otherwise.
    @Test func timestampsWithAndWithoutFractionsAreInOrder() throws {
        let result = try page(
            #"[{"id": 1, "updated_at": "2026-11-27T10:00:02Z"}, {"id": 2, "updated_at": "2026-11-27T10:00:02.500000Z"}, "#
                + #"{"id": 3, "updated_at": "2026-11-27T10:00:03+00:00"}]"#,
            shape: ordered)
        #expect(result.deletedIDs.isEmpty)
    }

    // MARK: - Paging by the last value received

    /// Page numbers shift under a changing table: the next request asks for what changed at or after
    /// the last value received, from the first page; a page all at the asked value turns the page.
    @Test func pageNumbersGiveWayToTheLastValueReceived() throws {
        let base = URL(string: "http://127.0.0.1:1/api/comments/")!
        let first = try page(
            #"[{"id": 1, "updated_at": "2026-11-27T10:00:01Z"}, {"id": 2, "updated_at": "2026-11-27T10:00:05Z"}]"#,
            shape: ordered, limit: 2)
        #expect(first.hasMore)
        let state = try HTTPPullState(cursor: first.nextCursor, shape: ordered)
        let next = try ordered.url(base: base, state: state, limit: 2)
        let query = next.query?.removingPercentEncoding ?? ""
        #expect(query.hasPrefix("page=1&"))
        #expect(query.contains("updated_at__gte=2026-11-27T10:00:05Z"))
        // All at the asked value, the one already received skipped: the page turns.
        let tied = try page(
            #"[{"id": 2, "updated_at": "2026-11-27T10:00:05Z"}, {"id": 3, "updated_at": "2026-11-27T10:00:05Z"}]"#,
            shape: ordered, from: state, limit: 2)
        #expect(String(decoding: tied.records, as: UTF8.self) == #"[{"id": 3, "updated_at": "2026-11-27T10:00:05Z"}]"#)
        let turned = try HTTPPullState(cursor: tied.nextCursor, shape: ordered)
        #expect(try ordered.url(base: base, state: turned, limit: 2).query?.contains("page=2") == true)
    }
}
