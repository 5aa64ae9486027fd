import Foundation
import Testing

@testable import VariablySync

/// A pull never ends "complete" on an assumption the server did not show: a page shorter than asked is
/// checked (a cap the server applies silently), declared totals are read on every page, page numbers
/// and offsets give way to requests from the last value received, the look-back boundary is written as
/// the server writes its values, and a declared field no record carries stops the pull.
@Suite struct HTTPPullShapeVerificationTests {
    private static func shape(
        paging: HTTPPullShape.Paging = .page(parameter: "page"), hasMore: HTTPPullShape.HasMore? = nil,
        changedSince: Bool = true, lookBack: Duration = .zero,
        deletions: HTTPPullShape.Deletions = .tombstones(flag: "deleted")
    ) -> HTTPPullShape {
        HTTPPullShape(
            path: "api/collections/users/records", records: "items", paging: paging, hasMore: hasMore,
            deletions: deletions,
            changedSince: changedSince
                ? .filter(
                    parameter: "filter", expression: "(updated>={value})", quoting: .singleQuotes, field: "updated",
                    lookBack: lookBack) : nil,
            limitParameter: "perPage")
    }

    // MARK: - A page-size cap

    /// PocketBase serves at most 1,000 records a page whatever `perPage` asks: a page of 1,000 for 2,000
    /// asked is checked with one more request, and the pull goes on by the size the server serves.
    @Test(arguments: [
        shape(changedSince: false), shape(), shape(paging: .offset(parameter: "offset"), changedSince: false),
        shape(paging: .offset(parameter: "offset")),
    ])
    func aSilentPageCapIsLearnedNotTrusted(shape: HTTPPullShape) throws {
        var server = MovingTableServer(records: 2_500, cap: 1_000, seed: 1)
        var client = MovingTableClient(shape: shape, pageSize: 2_000)
        try client.pull(from: &server, writesBetweenPages: 0)
        #expect(client.cache == server.live)
        // The check of the first shorter page found the next one, and the pull went on by the size the
        // server serves: no request wasted, and the last page, shorter than that, ended the pull.
        #expect(client.checks == 0)
        #expect(client.requests == 3)
    }

    @Test func aShortLastPageCostsOneCheckAndAnIncrementalSyncOfNothingNone() throws {
        var server = MovingTableServer(records: 25, cap: 1_000, seed: 2)
        var client = MovingTableClient(shape: Self.shape(), pageSize: 100)
        try client.pull(from: &server, writesBetweenPages: 0)
        #expect(client.cache == server.live)
        #expect((client.requests, client.checks) == (2, 1))
        try client.pull(from: &server, writesBetweenPages: 0)
        #expect((client.requests, client.checks) == (1, 0))
        for _ in 0..<3 { server.churn() }
        try client.pull(from: &server, writesBetweenPages: 0)
        #expect(client.cache == server.live)
    }

    /// Declared totals decide the end on every page: no check is needed, a cap or not.
    @Test(arguments: [HTTPPullShape.HasMore.totalPages(at: "totalPages"), .totalItems(at: "totalItems")])
    func declaredTotalsPageToTheEndOfACappedList(hasMore: HTTPPullShape.HasMore) throws {
        var server = MovingTableServer(records: 2_345, cap: 500, seed: 3)
        var client = MovingTableClient(shape: Self.shape(hasMore: hasMore), pageSize: 2_000)
        try client.pull(from: &server, writesBetweenPages: 0)
        #expect(client.cache == server.live)
        #expect(client.checks == 0)
    }

    // MARK: - Paging over a moving table

    /// Other clients create, edit and delete between every page of a first sync: with `changedSince`
    /// declared, page numbers, offsets and next links that count them are replaced by requests from the
    /// last value received, and keyset links are followed, so the sync ends with every live row and no
    /// deleted one, whatever the paging, the cap, the totals or the look-back. `VARIABLY_PAGING_RUNS`
    /// sets the number of seeds (a few in CI).
    @Test(arguments: [
        shape(), shape(lookBack: .seconds(2)), shape(paging: .offset(parameter: "offset")),
        shape(hasMore: .totalPages(at: "totalPages")),
        shape(hasMore: .totalItems(at: "totalItems"), lookBack: .seconds(3)),
        shape(paging: .nextURL(at: "next")), shape(paging: .nextLink, lookBack: .seconds(2)),
        shape(paging: .nextURL(at: "next", links: .keyset)),
        shape(paging: .nextLink(links: .keyset), lookBack: .seconds(2)),
    ])
    func aFirstSyncDuringHeavyWritesEndsWithEveryLiveRow(shape: HTTPPullShape) throws {
        let runs = ProcessInfo.processInfo.environment["VARIABLY_PAGING_RUNS"].flatMap(Int.init) ?? 4
        var (differing, stopped) = (0, 0)
        for seed in 0..<UInt64(runs) {
            let links = Self.links(for: shape.paging, seed: seed)
            var server = MovingTableServer(
                records: 300 + Int(seed % 7) * 40, cap: [1_000, 25, 40][Int(seed % 3)], seed: seed, links: links,
                isClockCoarse: links != .keyset)
            var client = MovingTableClient(shape: shape, pageSize: 50)
            do {
                try client.pull(from: &server, writesBetweenPages: 1 + Int(seed % 5))
                if client.cache != server.live { differing += 1 }
                for _ in 0..<20 { server.churn() }
                try client.pull(from: &server, writesBetweenPages: 2)
                if client.cache != server.live { differing += 1 }
            } catch RemoteSourceError.invalidResponse(let reason) where reason.hasPrefix("more records share") {
                // Stopped with the error that names the fix: never "complete" over a difference.
                stopped += 1
            }
        }
        if runs > 10 {
            print(
                "[reliability] paging over a moving table (\(shape.paging), hasMore "
                    + "\(shape.hasMore.map { "\($0.kind)" } ?? "inferred"), look-back "
                    + "\(shape.changedSince?.lookBack ?? .zero)): \(runs) runs, \(differing) differed, \(stopped) stopped"
            )
        }
        #expect(differing == 0)
    }

    /// The next links a ``MovingTableServer`` writes for `paging`: keyset links for keyset paging (over a
    /// clock that moves with every write, which a keyset of `(updated, id)` needs), page numbers or
    /// offsets by turns for the others; none without links.
    private static func links(for paging: HTTPPullShape.Paging, seed: UInt64) -> MovingTableServer.Links? {
        switch paging {
        case .nextLink(.keyset), .nextURL(_, .keyset): .keyset
        case .nextLink(.pageNumbers), .nextURL(_, .pageNumbers): seed % 2 == 0 ? .pageNumbers : .offsets
        case .page, .offset, .token: nil
        }
    }

    /// An incremental sync whose look-back window holds more than a page of records already received:
    /// every page is asked of the same request (with its look-back) until the boundary moves, never
    /// page 2 of another.
    @Test(arguments: [HTTPPullShape.Paging.page(parameter: "page"), .offset(parameter: "offset")])
    func aLookBackWindowOfManyPagesMissesNoEdit(paging: HTTPPullShape.Paging) throws {
        var server = MovingTableServer(records: 60, cap: 1_000, seed: 5)
        var client = MovingTableClient(shape: Self.shape(paging: paging, lookBack: .seconds(60)), pageSize: 10)
        try client.pull(from: &server, writesBetweenPages: 0)
        for _ in 0..<50 { server.churn() }
        try client.pull(from: &server, writesBetweenPages: 0)
        #expect(client.cache == server.live)
    }

    // MARK: - Declared fields

    @Test func aDeletionMarkerNoRecordCarriesStopsThePull() throws {
        var server = MovingTableServer(records: 30, cap: 1_000, seed: 6)
        var client = MovingTableClient(shape: Self.shape(deletions: .tombstones(flag: "is_gone")), pageSize: 100)
        #expect {
            try client.pull(from: &server, writesBetweenPages: 0)
        } throws: { error in
            guard case .declaredFieldMissing(let field, let role, _, let record, let fix) = error as? RemoteSourceError
            else { return false }
            return field == "is_gone" && role == "deletion marker" && record != nil && fix.contains("absentMeansLive")
        }
        var lenient = MovingTableClient(
            shape: Self.shape(deletions: .tombstones(flag: "is_gone", absentMeansLive: true)), pageSize: 100)
        try lenient.pull(from: &server, writesBetweenPages: 0)
        #expect(lenient.cache.count == 30)
    }

    @Test func aChangedSinceFieldNoRecordCarriesStopsThePull() throws {
        let shape = HTTPPullShape(
            records: "items", paging: .page(parameter: "page"), hasMore: .totalItems(at: "totalItems"),
            changedSince: .updatedSince(parameter: "modified_since", field: "modified"), limitParameter: "perPage")
        let page = #"{"totalItems": 1, "items": [{"id": 1, "updated": "2026-11-27 12:00:00.000Z"}]}"#
        #expect(throws: RemoteSourceError.self) {
            try HTTPPullReader(shape: shape).page(
                body: Data(page.utf8), link: nil, from: URL(string: "http://127.0.0.1:1/")!, state: HTTPPullState(),
                limit: 10, idType: Int.self)
        }
        let empty = try HTTPPullReader(shape: shape).page(
            body: Data(#"{"totalItems": 0, "items": []}"#.utf8), link: nil, from: URL(string: "http://127.0.0.1:1/")!,
            state: HTTPPullState(), limit: 10, idType: Int.self)
        #expect(!empty.hasMore)
    }

    // MARK: - Filter expressions

    @Test func aFilterExpressionCarriesTheServersOwnTextQuoted() throws {
        let base = URL(string: "http://127.0.0.1:1/api/")!
        var state = HTTPPullState()
        state.since = #""2026-11-27 12:55:36.000Z""#
        let pocketBase = Self.shape(lookBack: .seconds(5))
        #expect(
            try pocketBase.url(base: base, state: state, limit: 500).query
                == "page=1&filter=%28updated%3E%3D%272026-11-27%2012%3A55%3A31.000Z%27%29&perPage=500")
        state.since = #""it's \\ 1""#
        #expect(
            try Self.shape().url(base: base, state: state, limit: 5).query?.contains("%27it%5C%27s%20%5C%5C%201%27")
                == true)

        let postgrest = HTTPPullShape(
            paging: .offset(parameter: "offset"),
            changedSince: .filter(parameter: "updated_at", expression: "gte.{value}", field: "updated_at"))
        state.since = #""2026-11-27T12:55:36.123456Z""#
        #expect(
            try postgrest.url(base: base, state: state, limit: 5).query
                == "offset=0&updated_at=gte.2026-11-27T12%3A55%3A36.123456Z&limit=5")
        state.since = #""x') || (1=1""#
        #expect(throws: RemoteSourceError.self) { try postgrest.url(base: base, state: state, limit: 5) }

        let odata = HTTPPullShape(
            paging: .offset(parameter: "$skip"),
            changedSince: .filter(
                parameter: "$filter", expression: "updated ge {value}", quoting: .doubledSingleQuotes, field: "updated")
        )
        state.since = #""O'Brien""#
        #expect(
            try odata.url(base: base, state: state, limit: 5).query?.contains("updated%20ge%20%27O%27%27Brien%27")
                == true)
    }
}
