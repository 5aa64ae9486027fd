import Foundation
import Testing

@testable import VariablySync

/// How an `HTTPPullShape` reads one page and the cursor it leaves, without a server: the cases a test
/// server would have to go out of its way to produce.
@Suite struct HTTPPullShapePageTests {
    private let shape = HTTPPullShape(
        path: "posts", paging: .nextLink, changedSince: .updatedSince(parameter: "updated_since", field: "updated_at"),
        limitParameter: "per_page")
    private let pageURL = URL(string: "http://127.0.0.1:1/posts?per_page=10")!

    /// The ids of `seen` entries (`<id>#<digest>`).
    private func ids(_ seen: [String]?) -> [String] {
        (seen ?? []).map { String($0.prefix { $0 != "#" }) }
    }

    private func state(after body: String, from state: HTTPPullState = HTTPPullState()) throws -> HTTPPullState {
        try HTTPPullState(cursor: page(body, from: state).nextCursor, shape: shape)
    }

    private func page(_ body: String, from state: HTTPPullState = HTTPPullState()) throws -> RemotePage<Int64> {
        try HTTPPullReader(shape: shape).page(
            body: Data(body.utf8), link: nil, from: pageURL, state: state, limit: 10, idType: Int64.self)
    }

    @Test func numericTimestampsSharedAtTheBoundaryAreSkippedOnceSeen() throws {
        let first = try state(
            after: #"[{"id": 1, "updated_at": 100}, {"id": 2, "updated_at": 100.5}, {"id": 3, "updated_at": 100.5}]"#)
        #expect(first.since == "100.5")
        #expect(ids(first.seen) == ["2", "3"])
        let url = try shape.url(base: URL(string: "http://127.0.0.1:1")!, state: first, limit: 10)
        #expect(url.query == "updated_since=100.5&per_page=10")

        let again = try page(
            #"[{"id": 2, "updated_at": 100.5}, {"id": 3, "updated_at": 100.5}, {"id": 4, "updated_at": 100.5}]"#,
            from: first)
        #expect(String(decoding: again.records, as: UTF8.self) == #"[{"id": 4, "updated_at": 100.5}]"#)
        let after = try HTTPPullState(cursor: again.nextCursor, shape: shape)
        #expect(after.since == "100.5")
        #expect(ids(after.seen) == ["2", "3", "4"])
    }

    @Test func recordWrittenAgainWithTheBoundaryValueIsAChange() throws {
        let first = try state(after: #"[{"id": 2, "updated_at": 100, "version": 1}]"#)
        let again = try page(
            #"[{"id": 2, "updated_at": 100, "version": 2}, {"id": 2, "updated_at": 100, "version": 1}]"#, from: first)
        #expect(String(decoding: again.records, as: UTF8.self) == #"[{"id": 2, "updated_at": 100, "version": 2}]"#)
        let after = try HTTPPullState(cursor: again.nextCursor, shape: shape)
        #expect(ids(after.seen) == ["2", "2"])
        let quiet = try page(#"[{"id": 2, "updated_at": 100, "version": 2}]"#, from: after)
        #expect(String(decoding: quiet.records, as: UTF8.self) == "[]")
    }

    @Test func recordsWithoutATimestampDoNotMoveTheBoundary() throws {
        let first = try state(
            after: #"[{"id": 1, "updated_at": null}, {"id": 2, "updated_at": "2026-01-01T00:00:05Z"}, {"id": 3}]"#)
        #expect(first.since == #""2026-01-01T00:00:05Z""#)
        #expect(ids(first.seen) == ["2"])
        let later = try state(
            after: #"[{"id": 4, "updated_at": "2026-01-01T00:00:07Z"}, {"id": 5, "updated_at": null}]"#, from: first)
        #expect(later.since == #""2026-01-01T00:00:07Z""#)
        #expect(ids(later.seen) == ["4"])
    }

    @Test(arguments: [
        "https://elsewhere.example/posts?page=2", "//elsewhere.example/posts?page=2",
        "https://api.example:8443/posts?page=2", "http://api.example/posts?page=2",
    ])
    func nextPagesOnAnotherOriginAreRefusedBeforeAnyRequest(next: String) throws {
        var state = HTTPPullState()
        state.next = next
        let base = URL(string: "https://api.example/v1")!
        #expect {
            try shape.url(base: base, state: state, limit: 10)
        } throws: { error in
            guard case .invalidResponse(let message) = error as? RemoteSourceError else { return false }
            return message.contains("not on the origin of https://api.example/v1")
        }
    }

    @Test(arguments: [
        "https://api.example/v1/posts?page=2", "HTTPS://API.example:443/posts?page=2", "/posts?page=2", "?page=2",
    ])
    func nextPagesOnTheSameOriginAreFollowed(next: String) throws {
        var state = HTTPPullState()
        state.next = next
        let url = try shape.url(base: URL(string: "https://api.example/v1")!, state: state, limit: 10)
        #expect(url.host?.lowercased() == "api.example")
        #expect(url.query == "page=2")
    }
}
