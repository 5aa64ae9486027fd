import Foundation
import Testing

@testable import VariablySync

/// Every name an `HTTPPullShape` takes is a path in the record, written as in key sets: a JSON:API
/// server nests the fields under `attributes`, and `attributes.updated_at`, `attributes.deleted` are
/// found there, not looked for as top-level members with a dot in their name.
@Suite struct HTTPPullShapeNestedFieldTests {
    private let base = URL(string: "http://127.0.0.1:1/api/")!
    private let pageURL = URL(string: "http://127.0.0.1:1/api/people")!

    /// A JSON:API-shaped declaration: records under `data`, fields under `attributes`.
    private func jsonAPI(
        changedSince: String? = "attributes.updated_at",
        deletions: HTTPPullShape.Deletions = .tombstones(flag: "attributes.deleted")
    ) -> HTTPPullShape {
        HTTPPullShape(
            path: "people", records: "data", paging: .nextURL(at: "links.next"), deletions: deletions,
            changedSince: changedSince.map { .updatedSince(parameter: "filter[updated_since]", field: $0) },
            limitParameter: nil)
    }

    private func page(_ shape: HTTPPullShape, _ records: [String], from state: HTTPPullState = HTTPPullState())
        throws -> RemotePage<String>
    {
        let body = #"{"data": ["# + records.joined(separator: ", ") + #"], "links": {"next": null}}"#
        return try HTTPPullReader(shape: shape).page(
            body: Data(body.utf8), link: nil, from: pageURL, state: state, limit: 10, idType: String.self)
    }

    private func person(_ id: Int, updated: String, deleted: Bool = false) -> String {
        #"{"id": "\#(id)", "type": "people", "attributes": {"updated_at": "\#(updated)", "deleted": \#(deleted)}}"#
    }

    @Test func anIncrementalPullAsksFromTheNestedFieldForWhatChangedOnly() throws {
        let shape = jsonAPI()
        let first = try page(
            shape, [person(1, updated: "2026-11-26T12:00:01Z"), person(2, updated: "2026-11-26T12:00:03Z")])
        #expect(!first.hasMore)
        let state = try HTTPPullState(cursor: first.nextCursor, shape: shape)
        #expect(state.since == #""2026-11-26T12:00:03Z""#)
        let url = try shape.url(base: base, state: state, limit: 10)
        #expect(url.query == "filter%5Bupdated_since%5D=2026-11-26T12%3A00%3A03Z")

        // The record at the boundary comes again unchanged: only the one that changed is applied.
        let second = try page(
            shape, [person(2, updated: "2026-11-26T12:00:03Z"), person(3, updated: "2026-11-26T12:00:04Z")],
            from: state)
        #expect(
            String(decoding: second.records, as: UTF8.self) == "[" + person(3, updated: "2026-11-26T12:00:04Z") + "]")
        let after = try HTTPPullState(cursor: second.nextCursor, shape: shape)
        #expect(after.since == #""2026-11-26T12:00:04Z""#)
    }

    @Test func aNestedTombstoneFlagDeletesTheRecord() throws {
        let result = try page(
            jsonAPI(changedSince: nil),
            [person(7, updated: "2026-11-26T12:00:01Z"), person(8, updated: "2026-11-26T12:00:02Z", deleted: true)])
        #expect(result.deletedIDs == ["8"])
        #expect(
            String(decoding: result.records, as: UTF8.self) == "[" + person(7, updated: "2026-11-26T12:00:01Z") + "]")
    }

    @Test func aNestedSoftDeleteTimestampDeletesTheRecord() throws {
        let shape = jsonAPI(changedSince: nil, deletions: .softDeleted(at: "attributes.deleted_at"))
        let live = #"{"id": "1", "attributes": {"updated_at": "2026-11-26T12:00:01Z", "deleted_at": null}}"#
        let gone = #"{"id": "2", "attributes": {"updated_at": "2026-11-26T12:00:02Z", "deleted_at": "2026-11-26"}}"#
        let result = try page(shape, [live, gone])
        #expect(result.deletedIDs == ["2"])
    }

    /// A record that carries the name at the top level, not at the declared path, does not carry it:
    /// the pull stops naming the path.
    @Test(arguments: [
        ("attributes.deleted", "deletion marker"), ("attributes.updated_at", "changed-since field"),
    ])
    func aNestedDeclaredFieldNoRecordCarriesStopsThePull(path: String, role: String) throws {
        let flat =
            #"{"id": "1", "updated_at": "2026-11-26T12:00:01Z", "deleted": false, "#
            + #""attributes": {"updated_at": "2026-11-26T12:00:01Z", "deleted": false}}"#
        #expect(try page(jsonAPI(), [flat]).deletedIDs.isEmpty)

        let missing =
            path == "attributes.deleted"
            ? #"{"id": "1", "deleted": false, "attributes": {"updated_at": "2026-11-26T12:00:01Z"}}"#
            : #"{"id": "1", "updated_at": "2026-11-26T12:00:01Z", "attributes": {"deleted": false}}"#
        #expect {
            _ = try page(jsonAPI(), [missing])
        } throws: { error in
            guard case .declaredFieldMissing(let field, let reported, _, _, _) = error as? RemoteSourceError else {
                return false
            }
            return field == path && reported == role
        }
    }
}
