import Foundation
import Testing
import VariablyCodable
import VariablySQLite
import VariablySync

/// JSON:API writes declared with ``HTTPWriteShape/jsonAPI(type:relationships:)`` against a local server
/// that takes them as strictly as the specification asks: no request hook, no custom transport.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct JSONAPIWriteTests {
    /// An article of a JSON:API server: a text id, its fields under `attributes`, its author a
    /// relationship to `people`.
    struct Article: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
        var id: String
        var title: String
        var body: String
        var authorID: String?

        init(id: String, title: String, body: String, authorID: String?) {
            self.id = id
            self.title = title
            self.body = body
            self.authorID = authorID
        }

        init(from container: DecodingContainer<Article>) throws {
            id = try container.decode(\.id)
            title = try container.decode(\.title)
            body = try container.decode(\.body)
            authorID = try container.decode(\.authorID)
        }

        static let keySets = KeySets<Article>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.id, "id")
                Key(\.title, "attributes.title")
                Key(\.body, "attributes.body")
                Key(\.authorID, "relationships.author.data.id")
            }
            KeySet(.sqlite, style: .snakeCase)
        }
        static let sqliteTable = SQLiteTable<Article>("articles", primaryKey: \.id)
    }

    /// The repository of `server`'s articles, as docs/http.md declares them, with the `If-Match` on
    /// `attributes.version` that this server checks (DJA, in JSONAPIRecipeTests, checks none) and its page
    /// numbers; with `clientIDs`, the ids the device makes go with each create (the server keeps them and
    /// answers `204`).
    static func articles(_ server: JSONAPIWriteServer, clientIDs: Bool = false) throws -> Repository<Article> {
        let endpoints = HTTPRecordEndpoints(
            path: "articles", update: .patch, body: .changedFields, readOnlyFields: ["id"],
            versionField: "attributes.version", concurrency: .ifMatch,
            writes: .jsonAPI(type: "articles", relationships: ["author": "people"]))
        let api = HTTPAPI(
            pull: HTTPPullShape(path: "articles", records: "data", paging: .page(parameter: "page[number]")),
            push: .perRecord(endpoints))
        let keepingIDs = HTTPAPI(
            pull: api.pull,
            push: .perRecord(
                HTTPRecordEndpoints(
                    path: "articles", writes: .jsonAPI(type: "articles", relationships: ["author": "people"]))))
        return try Repository<Article>(
            database: .inMemory(),
            remote: HTTPRemoteSource<Article>(baseURL: server.baseURL, api: clientIDs ? keepingIDs : api))
    }

    @Test func aCreateAPatchOfOneAttributeAndADeleteGoAsJSONAPIDocuments() async throws {
        let server = try await JSONAPIWriteServer()
        let articles = try Self.articles(server)

        let draft = try await articles.create { Article(id: $0, title: "Hello", body: "First", authorID: "7") }
        let first = try await articles.sync()
        #expect(first.failed.isEmpty)
        // The id the server assigned, read at `data.id` of its answer, replaces the provisional one.
        #expect(try await articles.fetch(id: draft.id) == nil)
        #expect(try await articles.fetch(id: "1") == Article(id: "1", title: "Hello", body: "First", authorID: "7"))
        var requests = try server.state().requests
        let post = try #require(requests.first { $0.method == "POST" })
        #expect(post.contentType == "application/vnd.api+json")
        #expect(post.accept == "application/vnd.api+json")
        #expect(
            post.json
                == JSONAPIWriteServer.object(
                    #"{"data": {"type": "articles", "attributes": {"title": "Hello", "body": "First"},"#
                        + #" "relationships": {"author": {"data": {"type": "people", "id": "7"}}}}}"#))

        // A PATCH of one nested attribute: that attribute alone, inside `attributes`, with the id and
        // type JSON:API asks for, based on the version read at `data.attributes.version`.
        var edited = try #require(try await articles.fetch(id: "1"))
        edited.title = "Hello again"
        try await articles.save(edited)
        let second = try await articles.sync()
        #expect(second.failed.isEmpty)
        requests = try server.state().requests
        let patch = try #require(requests.first { $0.method == "PATCH" })
        #expect(patch.path == "/articles/1")
        #expect(patch.ifMatch == "\"1\"")
        #expect(patch.contentType == "application/vnd.api+json")
        #expect(
            patch.json
                == JSONAPIWriteServer.object(
                    #"{"data": {"type": "articles", "id": "1", "attributes": {"title": "Hello again"}}}"#))
        let stored = try #require(try server.state().article("1"))
        #expect((stored["attributes"] as? NSDictionary)?["body"] as? String == "First")
        #expect((stored["attributes"] as? NSDictionary)?["version"] as? Int == 2)

        try await articles.delete(id: "1")
        #expect(try await articles.sync().failed.isEmpty)
        let state = try server.state()
        #expect(state.articles.isEmpty)
        let delete = try #require(state.requests.first { $0.method == "DELETE" })
        #expect(delete.accept == "application/vnd.api+json")
        #expect(delete.body == nil)
        #expect(try await articles.unsentChanges().isEmpty)
    }

    /// A `nil` author leaves the relationship out of a create, and a `PATCH` that clears it sends
    /// `"author": {"data": null}`: the constant's object, all `null`, is written as `null`.
    @Test func anAuthorClearedByAPatchIsANullRelationship() async throws {
        let server = try await JSONAPIWriteServer()
        let articles = try Self.articles(server)
        _ = try await articles.create { Article(id: $0, title: "Alone", body: "", authorID: nil) }
        #expect(try await articles.sync().failed.isEmpty)
        let post = try #require(try server.state().requests.first { $0.method == "POST" })
        #expect(
            post.json
                == JSONAPIWriteServer.object(
                    #"{"data": {"type": "articles", "attributes": {"title": "Alone", "body": ""}}}"#))
        var article = try #require(try await articles.fetch(id: "1"))
        #expect(article.authorID == nil)
        article.authorID = "7"
        try await articles.save(article)
        #expect(try await articles.sync().failed.isEmpty)
        article.authorID = nil
        try await articles.save(article)
        #expect(try await articles.sync().failed.isEmpty)
        let patches = try server.state().requests.filter { $0.method == "PATCH" }
        #expect(patches.count == 2)
        #expect(
            patches.last?.json
                == JSONAPIWriteServer.object(
                    #"{"data": {"type": "articles", "id": "1", "relationships": {"author": {"data": null}}}}"#))
        let stored = try #require(try server.state().article("1"))
        #expect(stored["relationships"] as? NSDictionary == ["author": ["data": NSNull()]])
        #expect(try await articles.fetch(id: "1")?.authorID == nil)
    }

    @Test func aRefusalsPointerIsMappedToTheModelsKeyPath() async throws {
        let server = try await JSONAPIWriteServer()
        let articles = try Self.articles(server)
        let draft = try await articles.create { Article(id: $0, title: " ", body: "", authorID: nil) }
        let report = try await articles.sync()
        #expect(report.failed.map(\.id) == [draft.id])
        let failure = try #require(try await articles.failedChanges().first)
        #expect(failure.fields == ["attributes.title"])
        #expect(failure.keyPaths.count == 1)
        #expect(failure.keyPaths.first.map { $0 == \Article.title as AnyKeyPath } == true)
        #expect(failure.reason.hasPrefix("HTTP 422"))
        #expect(failure.reason.contains("title must not be blank"))
        #expect(report.failed.first?.reason == failure.reason)
    }

    @Test func aCreateAnsweredNoContentKeepsTheRecordAsSent() async throws {
        let server = try await JSONAPIWriteServer()
        let articles = try Self.articles(server, clientIDs: true)
        let created = try await articles.create {
            Article(id: $0, title: "Mine", body: "id chosen here", authorID: "3")
        }
        let report = try await articles.sync()
        #expect(report.failed.isEmpty)
        #expect(try await articles.unsentChanges().isEmpty)
        #expect(try await articles.fetch(id: created.id) == created)
        let state = try server.state()
        #expect(
            state.requests.first { $0.method == "POST" }.map { $0.json?["data"] as? NSDictionary }??["id"] as? String
                == created.id)
        #expect(state.article(created.id) != nil)
    }

    /// docs/http.md: JSON:API is the general form with its constants.
    @Test func theJSONAPIShapeIsTheGeneralFormWithItsConstants() {
        let general = HTTPWriteShape(
            mediaType: "application/vnd.api+json", recordPath: "data", constants: ["data.type": "people"],
            answerRecordPath: "data", updatesCarryID: true)
        #expect(HTTPWriteShape.jsonAPI(type: "people") == general)
        let related = HTTPWriteShape.jsonAPI(type: "articles", relationships: ["author": "people"])
        #expect(related.constants == ["data.type": "articles", "data.relationships.author.data.type": "people"])
    }
}
