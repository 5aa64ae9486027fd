import Foundation
import Testing

@testable import VariablySync

/// The pull options a Django-style API needs, without a server: fixed query parameters, the end of a
/// pull on a `404` past the last page, the look-back window of `updatedSince`, and bounded cursors in
/// errors.
@Suite struct HTTPPullShapeWindowTests {
    private let base = URL(string: "http://127.0.0.1:1/api/")!
    private let pageURL = URL(string: "http://127.0.0.1:1/api/posts/?page=1")!

    private func windowShape(lookBack: Duration) -> HTTPPullShape {
        HTTPPullShape(
            path: "posts/", paging: .nextLink,
            changedSince: .updatedSince(parameter: "updated_since", field: "updated_at", lookBack: lookBack),
            limitParameter: nil)
    }

    private func page(_ shape: HTTPPullShape, _ body: String, from state: HTTPPullState = HTTPPullState()) throws
        -> RemotePage<Int64>
    {
        try HTTPPullReader(shape: shape).page(
            body: Data(body.utf8), link: nil, from: pageURL, state: state, limit: 10, idType: Int64.self)
    }

    @Test func fixedQueryParametersComeFirstSortedByName() throws {
        let shape = HTTPPullShape(
            path: "posts/", records: "results", paging: .page(parameter: "page"), limitParameter: "page_size",
            query: ["ordering": "updated_at,id", "format": "json"])
        let url = try shape.url(base: base, state: HTTPPullState(), limit: 50)
        #expect(
            url.absoluteString
                == "http://127.0.0.1:1/api/posts/?format=json&ordering=updated_at%2Cid&page=1&page_size=50")
    }

    @Test func aNotFoundPageEndsThePullOnlyAfterTheFirstPageAndOnlyWhenDeclared() throws {
        let declared = HTTPPullShape(records: "results", paging: .page(parameter: "page"), endsOnNotFound: true)
        let undeclared = HTTPPullShape(records: "results", paging: .page(parameter: "page"))
        var second = HTTPPullState()
        second.page = 2
        let end = try #require(try HTTPPullReader(shape: declared).endOfPull(after: second, idType: Int64.self))
        #expect(!end.hasMore)
        #expect(String(decoding: end.records, as: UTF8.self) == "[]")
        #expect(try HTTPPullReader(shape: declared).endOfPull(after: HTTPPullState(), idType: Int64.self) == nil)
        #expect(try HTTPPullReader(shape: undeclared).endOfPull(after: second, idType: Int64.self) == nil)
    }

    /// The boundary moved back is written as the server writes its values: a server comparing text
    /// (PocketBase, a `TEXT` column) would otherwise read `2026-11-27T12:55:31Z` as after every
    /// `2026-11-27 12:55:…` of that day.
    @Test func aLookBackAsksFromEarlierInTheServersOwnForm() throws {
        let shape = windowShape(lookBack: .seconds(5))
        var state = HTTPPullState()
        state.since = #""2026-11-26T12:44:56.647898Z""#
        let url = try shape.url(base: base, state: state, limit: 10)
        #expect(url.query == "updated_since=2026-11-26T12%3A44%3A51.647898Z")
        state.since = "1000.5"
        #expect(try shape.url(base: base, state: state, limit: 10).query == "updated_since=995.5")
        state.since = #""2026-11-26T13:44:56.5+01:00""#
        #expect(
            try shape.url(base: base, state: state, limit: 10).query
                == "updated_since=2026-11-26T13%3A44%3A51.5%2B01%3A00")
        state.since = #""2026-11-27 12:55:36.000Z""#
        #expect(
            try shape.url(base: base, state: state, limit: 10).query == "updated_since=2026-11-27%2012%3A55%3A31.000Z")
        state.since = #""2026-01-01 00:00:02.000Z""#
        #expect(
            try shape.url(base: base, state: state, limit: 10).query == "updated_since=2025-12-31%2023%3A59%3A57.000Z")
        state.since = #""2026-11-27T00:00:03""#
        #expect(try shape.url(base: base, state: state, limit: 10).query == "updated_since=2026-11-26T23%3A59%3A58")
        state.since = #""2026-11-27""#
        #expect(try shape.url(base: base, state: state, limit: 10).query == "updated_since=2026-11-26")
        state.since = #""yesterday""#
        #expect(throws: RemoteSourceError.self) { try shape.url(base: base, state: state, limit: 10) }
    }

    /// A write stamped inside the window but committed after the last pull is pulled; the records of
    /// the window the last pull already had, byte for byte, are not applied again.
    @Test func aLateCommitInsideTheWindowIsPulledAndUnchangedRecordsAreSkipped() throws {
        let shape = windowShape(lookBack: .seconds(5))
        let first = try page(
            shape,
            #"[{"id": 1, "updated_at": "2026-11-26T12:00:01Z"}, {"id": 2, "updated_at": "2026-11-26T12:00:03Z"}]"#)
        let state = try HTTPPullState(cursor: first.nextCursor, shape: shape)
        #expect(state.since == #""2026-11-26T12:00:03Z""#)

        // Asked from 11:59:58: both come again, and post 3, stamped 12:00:02 but committed late.
        let second = try page(
            shape,
            #"[{"id": 1, "updated_at": "2026-11-26T12:00:01Z"}, {"id": 3, "updated_at": "2026-11-26T12:00:02Z"}, "#
                + #"{"id": 2, "updated_at": "2026-11-26T12:00:03Z"}]"#,
            from: state)
        #expect(
            String(decoding: second.records, as: UTF8.self) == #"[{"id": 3, "updated_at": "2026-11-26T12:00:02Z"}]"#)

        let after = try HTTPPullState(cursor: second.nextCursor, shape: shape)
        let quiet = try page(
            shape,
            #"[{"id": 1, "updated_at": "2026-11-26T12:00:01Z"}, {"id": 3, "updated_at": "2026-11-26T12:00:02Z"}, "#
                + #"{"id": 2, "updated_at": "2026-11-26T12:00:03Z"}]"#,
            from: after)
        #expect(String(decoding: quiet.records, as: UTF8.self) == "[]")
    }

    @Test func withoutALookBackAnEarlierLateCommitIsMissed() throws {
        let shape = windowShape(lookBack: .zero)
        let first = try page(shape, #"[{"id": 2, "updated_at": "2026-11-26T12:00:03Z"}]"#)
        let state = try HTTPPullState(cursor: first.nextCursor, shape: shape)
        let url = try shape.url(base: base, state: state, limit: 10)
        #expect(url.query == "updated_since=2026-11-26T12%3A00%3A03Z")
    }

    @Test func theWindowKeepsAtMostItsBoundOfRecords() {
        let recent = (0..<(HTTPPullState.maximumRecent + 5)).map {
            HTTPPullState.RecentRecord(seconds: 100, id: "\($0)#x")
        }
        let kept = HTTPPullShape.window(recent, after: .int(100), lookBack: .seconds(5))
        #expect(kept.count == HTTPPullState.maximumRecent)
        #expect(kept.last?.id == "\(HTTPPullState.maximumRecent + 4)#x")
        #expect(HTTPPullShape.window(recent, after: .int(200), lookBack: .seconds(5)).isEmpty)
    }

    @Test func timestampsReadWithAnyFractionAndOffset() {
        #expect(HTTPPullShape.timestamp("1970-01-01T00:00:01.5Z")?.timeIntervalSince1970 == 1.5)
        #expect(HTTPPullShape.timestamp("1970-01-01T01:00:00+01:00")?.timeIntervalSince1970 == 0)
        #expect(ServerTimestamp("2026-11-26T12:44:56.647898Z")?.text == "2026-11-26T12:44:56.647898Z")
        #expect(ServerTimestamp("2026-11-26 12:44:56.6478981234Z") == nil)
        #expect(
            ServerTimestamp("2026-11-26T12:44:56.123-0330")?.movedEarlier(bySeconds: 0.0005)
                == "2026-11-26T12:44:56.122-0330")
        #expect(HTTPPullShape.timestamp("2026-11-26")?.timeIntervalSince1970 == 1_795_651_200)
        #expect(HTTPPullShape.timestamp("yesterday") == nil)
        #expect(HTTPPullShape.timestamp("2026-13-26T12:44:56Z") == nil)
    }

    @Test func aLongCursorPrintsBounded() {
        let cursor = SyncCursor(rawValue: String(repeating: "x", count: 36_000))
        #expect(cursor.description.count < 160)
        #expect(cursor.description.hasSuffix("(36000 characters)"))
        #expect("\(SyncError.cursorDidNotAdvance(cursor))".count < 300)
    }
}
