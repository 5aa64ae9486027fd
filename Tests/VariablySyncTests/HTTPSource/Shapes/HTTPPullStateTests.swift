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
}
