import Foundation
import Synchronization
import Testing
import VariablyCodable
import VariablyHTTP
import VariablySQLite

@testable import VariablySync

/// A note whose server writes its integer id as text: `{"id": "42", "title": "…"}`.
private struct TextIDNote: VariablyCodable, SQLiteStorable, Identifiable, Equatable, Sendable {
    var id: Int
    var title: String

    init(id: Int, title: String) {
        (self.id, self.title) = (id, title)
    }

    init(from container: DecodingContainer<TextIDNote>) throws {
        id = try container.decode(\.id)
        title = try container.decode(\.title)
    }

    static let keySets = KeySets<TextIDNote>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id", transform: .numericString)
            Key(\.title, "title")
        }
        KeySet(.sqlite, style: .snakeCase)
    }
}

/// Answers `GET`s with the body `answer` gives for the request's URL, and records every request.
private final class CannedServer: HTTPTransport {
    private let answer: @Sendable (URL) -> String
    private let log = Mutex<[(method: String, url: URL)]>([])

    init(_ answer: @escaping @Sendable (URL) -> String) {
        self.answer = answer
    }

    var requests: [(method: String, url: URL)] { log.withLock { $0 } }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        log.withLock { $0.append((request.method, request.url)) }
        let body = request.method == "GET" ? answer(request.url) : ""
        return HTTPTransportResponse(
            status: request.method == "DELETE" ? 204 : 200, headers: ["content-type": "application/json"],
            body: AsyncThrowingStream { continuation in
                continuation.yield(Data(body.utf8))
                continuation.finish()
            })
    }
}

/// Ids that stand alone in an answer (a tombstone's, a list of deleted ids, a record found by a look-up)
/// are read through the id's coding, as in a whole record.
@Suite struct RecordIDDecoderTests {
    private static let baseURL = URL(string: "http://127.0.0.1:1/api/")!

    @Test func anIDIsReadThroughItsKeysTransform() throws {
        #expect(try RecordIDDecoder<TextIDNote>().id(from: Data(#""42""#.utf8)) == 42)
        #expect(throws: (any Error).self) { try RecordIDDecoder<TextIDNote>().id(from: Data("42".utf8)) }
    }

    /// Every sync after a server deletion failed with "a tombstone without a valid id" when the id was
    /// read as an `Int` from `"42"`.
    @Test(arguments: [
        HTTPPullShape.Deletions.tombstones(flag: "deleted", absentMeansLive: true), .ids(at: "deleted"),
    ])
    func aDeletionWithTheIDAsTextDeletesTheCachedRow(deletions: HTTPPullShape.Deletions) async throws {
        let isDeleted = Atomic(false)
        let server = CannedServer { url in
            guard !(url.query ?? "").contains("page=2") else { return #"{"results": [], "deleted": []}"# }
            guard isDeleted.load(ordering: .relaxed) else {
                return #"{"results": [{"id": "42", "title": "a"}, {"id": "7", "title": "b"}], "deleted": []}"#
            }
            if case .ids = deletions { return #"{"results": [{"id": "7", "title": "b"}], "deleted": ["42"]}"# }
            return #"{"results": [{"id": "42", "deleted": true}, {"id": "7", "title": "b"}], "deleted": []}"#
        }
        let api = HTTPAPI(
            pull: HTTPPullShape(
                path: "notes", records: "results", paging: .page(parameter: "page"), deletions: deletions),
            push: .none)
        let repository = try Repository(
            database: .inMemory(),
            remote: HTTPRemoteSource<TextIDNote>(baseURL: Self.baseURL, api: api, transport: server))
        try await repository.sync()
        #expect(try await repository.count() == 2)
        isDeleted.store(true, ordering: .relaxed)
        try await repository.sync()
        #expect(try await repository.fetch() == [TextIDNote(id: 7, title: "b")])
    }

    /// A create in doubt found by its client reference is deleted at the id the look-up answered, read
    /// as the model codes it.
    @Test func aRecordFoundByALookUpIsAddressedByItsDecodedID() async throws {
        let server = CannedServer { _ in #"{"results": [{"id": "42", "title": "a", "client_id": "c-1"}]}"# }
        // The title stands for the client reference: a reference must be a field the model has.
        let endpoints = HTTPRecordEndpoints(path: "notes", clientReference: .init(field: "title"))
        let source = HTTPRemoteSource<TextIDNote>(
            baseURL: Self.baseURL,
            api: HTTPAPI(
                pull: HTTPPullShape(path: "notes", records: "results", paging: .page(parameter: "page")),
                push: .perRecord(endpoints)),
            transport: server)
        let outcome = try await source.recordPusher.deleteCreated(
            Data(#"{"id": "-1", "title": "a", "client_id": "c-1"}"#.utf8), reference: .init(field: "title"),
            in: Self.baseURL.appendingPathComponent("notes"), endpoints: endpoints)
        guard case .accepted = outcome else {
            Issue.record("the deletion was not accepted: \(outcome)")
            return
        }
        #expect(server.requests.last?.method == "DELETE")
        #expect(server.requests.last?.url.path == "/api/notes/42")
    }
}
