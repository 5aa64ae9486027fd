import Foundation
import Testing

@testable import VariablySync

/// A cursor's look-back window is written as one string per record, and cursors written with an
/// object per record (by earlier versions) are still read.
struct HTTPPullStateTests {
    private let shape = HTTPPullShape(
        path: "users", paging: .page(parameter: "page"),
        changedSince: .updatedSince(parameter: "updated_since", field: "updated_at", lookBack: .seconds(5)))

    @Test func theWindowRoundTripsAsOneStringPerRecord() throws {
        var state = HTTPPullState()
        state.since = #""2026-11-27T12:55:36.123456Z""#
        state.recent = [
            .init(seconds: 1_795_000_000.123456, id: "1#ab12"), .init(seconds: 1_795_000_001, id: ##""a b"#cd34"##),
        ]
        let cursor = state.cursor(shape: shape)
        #expect(cursor.rawValue.contains(#""1795000000.123456 1#ab12""#))
        #expect(!cursor.rawValue.contains(#""seconds""#))
        #expect(try HTTPPullState(cursor: cursor, shape: shape) == state)
    }

    @Test func aCursorWithTheWindowAsObjectsIsStillRead() throws {
        let older = SyncCursor(
            rawValue: #"{"recent":[{"id":"7#ff00","seconds":1795000000.5}],"since":"\"2026-11-27T12:55:36Z\""}"#)
        let state = try HTTPPullState(cursor: older, shape: shape)
        #expect(state.recent == [.init(seconds: 1_795_000_000.5, id: "7#ff00")])
        #expect(state.since == #""2026-11-27T12:55:36Z""#)
    }

    /// A cursor in the middle of a pull leaves the window out: the source that made it keeps the state
    /// whole, and the cursor that ends the pull carries it.
    @Test func aCursorInTheMiddleOfAPullLeavesTheWindowToTheSource() throws {
        var state = HTTPPullState()
        state.page = 3
        state.recent = [.init(seconds: 1_795_000_000.5, id: "1#ab12")]
        let states = HTTPPullStates()
        let middle = state.cursor(shape: shape, endsPull: false, remembering: states)
        #expect(!middle.rawValue.contains("recent"))
        #expect(try HTTPPullState(cursor: middle, shape: shape, remembered: states) == state)
        // Read back elsewhere (after a restart): the window starts afresh.
        let restarted = try HTTPPullState(cursor: middle, shape: shape, remembered: HTTPPullStates())
        #expect(restarted.recent == nil)
        #expect(restarted.page == 3)
        #expect(state.cursor(shape: shape).rawValue.contains("1795000000.5 1#ab12"))
    }

    /// Two pages with a look-back: the window of both reaches the cursor that ends the pull, though
    /// the cursor between them does not carry it; a pull resumed from that cursor by another source
    /// keeps the second page's only.
    @Test func theWindowCrossesPagesThroughTheSource() throws {
        let shape = HTTPPullShape(
            path: "users", records: "results", paging: .nextURL(at: "next"),
            changedSince: .updatedSince(parameter: "updated_since", field: "updated_at", lookBack: .seconds(5)),
            limitParameter: nil)
        let url = URL(string: "http://127.0.0.1:1/users?updated_since=0")!
        let first = Data(
            #"{"next": "http://127.0.0.1:1/users?page=2", "results": [{"id": 1, "updated_at": 1000.5}]}"#.utf8)
        let second = Data(#"{"next": null, "results": [{"id": 2, "updated_at": 1001.5}]}"#.utf8)
        let states = HTTPPullStates()
        let reader = HTTPPullReader(shape: shape, states: states)
        let page1 = try reader.page(
            body: first, link: nil, from: url, state: HTTPPullState(), limit: 10, idType: Int64.self)
        let middle = page1.nextCursor
        #expect(!middle.rawValue.contains("recent"))
        func end(_ states: HTTPPullStates) throws -> [String] {
            let state = try HTTPPullState(cursor: middle, shape: shape, remembered: states)
            let page2 = try HTTPPullReader(shape: shape, states: states).page(
                body: second, link: nil, from: url, state: state, limit: 10, idType: Int64.self)
            let final = try HTTPPullState(cursor: page2.nextCursor, shape: shape)
            return (final.recent ?? []).map { $0.id.prefix { $0 != "#" } }.map(String.init)
        }
        #expect(try end(states) == ["1", "2"])
        #expect(try end(HTTPPullStates()) == ["2"])
    }
}
