import Foundation
import Testing

@testable import VariablySync

/// Next links under `changedSince`: links that count pages or offsets are replaced by requests from
/// the last value received, so that a record another client moves during the pull is never skipped;
/// keyset links are followed as given.
@Suite struct HTTPPullShapeNextLinkTests {
    private static func shape(_ paging: HTTPPullShape.Paging) -> HTTPPullShape {
        HTTPPullShape(
            path: "api/collections/users/records", records: "items", paging: paging,
            deletions: .tombstones(flag: "deleted"),
            changedSince: .filter(
                parameter: "filter", expression: "(updated>={value})", quoting: .singleQuotes, field: "updated"),
            limitParameter: "perPage")
    }

    /// Between every two pages another client edits the oldest record: it moves to the end, every
    /// record after it shifts one place towards the start, and the first record of the next page lands
    /// on the page just fetched. Followed as given, `?page=2` would skip it, for good: its `updated` is
    /// behind the boundary the sync ends with. Asked from the last value received, it is pulled.
    @Test(arguments: [
        (HTTPPullShape.Paging.nextURL(at: "next"), MovingTableServer.Links.pageNumbers),
        (.nextLink, .pageNumbers), (.nextLink, .offsets),
    ])
    func aRecordShiftedOntoAFetchedPageIsPulled(paging: HTTPPullShape.Paging, links: MovingTableServer.Links) throws {
        var server = MovingTableServer(records: 30, cap: 1_000, seed: 7, links: links)
        var client = MovingTableClient(shape: Self.shape(paging), pageSize: 5)
        try client.pull(from: &server, writesBetweenPages: 0, between: Self.editOldest)
        #expect(client.cache == server.live)
        // No page-number link was followed: each request asked from the last value received.
        #expect(
            client.asked.allSatisfy { !($0.query ?? "").contains("page=") && !($0.query ?? "").contains("offset=") })
        try client.pull(from: &server, writesBetweenPages: 0)
        #expect(client.cache == server.live)
    }

    /// Keyset links name the last record received: a record edited during the pull sorts after it, and
    /// the links are followed as given, but for those of a first sync's first page, asked without a
    /// value (see the next test).
    @Test(arguments: [HTTPPullShape.Paging.nextURL(at: "next", links: .keyset), .nextLink(links: .keyset)])
    func keysetLinksAreFollowedAsGiven(paging: HTTPPullShape.Paging) throws {
        var server = MovingTableServer(records: 30, cap: 1_000, seed: 7, links: .keyset, isClockCoarse: false)
        var client = MovingTableClient(shape: Self.shape(paging), pageSize: 5)
        try client.pull(from: &server, writesBetweenPages: 0, between: Self.editOldest)
        #expect(client.cache == server.live)
        #expect(client.asked.count > 3)
        #expect(client.asked.dropFirst(2).allSatisfy { ($0.query ?? "").contains("cursor=") })
        for _ in 0..<12 { server.churn() }
        try client.pull(from: &server, writesBetweenPages: 0, between: Self.editOldest)
        #expect(client.cache == server.live)
        #expect(client.asked.dropFirst().allSatisfy { ($0.query ?? "").contains("cursor=") })
    }

    /// A first sync asks without a value, and so do the keyset links of its answer: a server that lists
    /// deleted records only to a request that asks for changes (Django REST Framework's recipe) would
    /// never show the deletion of a record already received, its tombstone behind the boundary the pull
    /// ends with. So the first page is followed by a request from the last value received, whose links
    /// carry that value.
    @Test func aRecordDeletedDuringAFirstSyncOverKeysetLinksIsDeleted() throws {
        var server = MovingTableServer(records: 30, cap: 1_000, seed: 8, links: .keyset, isClockCoarse: false)
        var client = MovingTableClient(shape: Self.shape(.nextURL(at: "next", links: .keyset)), pageSize: 5)
        try client.pull(from: &server, writesBetweenPages: 0) { server in
            let received = server.records.values.filter { !$0.deleted }.min { $0.id < $1.id }
            if let received { server.delete(received.id) }
        }
        #expect(client.cache == server.live)
        try client.pull(from: &server, writesBetweenPages: 0)
        #expect(client.cache == server.live)
    }

    private static func editOldest(_ server: inout MovingTableServer) {
        let oldest = server.records.values.filter { !$0.deleted }.min { ($0.updated, $0.id) < ($1.updated, $1.id) }
        if let oldest { server.edit(oldest.id) }
    }

    /// Records that all share the value asked for cannot move the boundary: the page-number link turns
    /// the page of the same request, whatever size the server serves.
    @Test func aPageAllAtTheValueAskedFollowsItsLink() throws {
        let shape = HTTPPullShape(
            path: "posts", paging: .nextLink,
            changedSince: .updatedSince(parameter: "updated_since", field: "updated_at"), limitParameter: "per_page")
        let base = URL(string: "http://127.0.0.1:1")!
        let link = #"<http://127.0.0.1:1/posts?updated_since=100&per_page=10&page=2>; rel="next""#
        let first = try HTTPPullReader(shape: shape).page(
            body: Data(#"[{"id": 1, "updated_at": 100}, {"id": 2, "updated_at": 101}]"#.utf8), link: link,
            from: base, state: HTTPPullState(), limit: 10, idType: Int.self)
        let moved = try HTTPPullState(cursor: first.nextCursor, shape: shape)
        #expect(moved.next == nil)
        #expect(try shape.url(base: base, state: moved, limit: 10).query == "updated_since=101&per_page=10")

        let shared = try HTTPPullReader(shape: shape).page(
            body: Data(#"[{"id": 3, "updated_at": 101}, {"id": 4, "updated_at": 101}]"#.utf8), link: link,
            from: base, state: moved, limit: 10, idType: Int.self)
        let turned = try HTTPPullState(cursor: shared.nextCursor, shape: shape)
        #expect(turned.next == "http://127.0.0.1:1/posts?updated_since=100&per_page=10&page=2")
        #expect(turned.since == "101")
    }

    /// Without `changedSince` there is no value to ask from: page-number links are followed as given.
    @Test func withoutChangedSinceLinksAreFollowedAsGiven() throws {
        let shape = HTTPPullShape(path: "posts", paging: .nextLink, limitParameter: "per_page")
        let link = #"<http://127.0.0.1:1/posts?per_page=10&page=2>; rel="next""#
        let page = try HTTPPullReader(shape: shape).page(
            body: Data(#"[{"id": 1, "updated_at": 100}]"#.utf8), link: link, from: URL(string: "http://127.0.0.1:1")!,
            state: HTTPPullState(), limit: 10, idType: Int.self)
        #expect(try HTTPPullState(cursor: page.nextCursor, shape: shape).next?.hasSuffix("page=2") == true)
    }
}
