import Foundation
import Testing
import VariablyHTTP
import VariablySQLite
import VariablySync

// MARK: - Pushes

extension JSONAPIRecipeTests {
    /// The JSON object of a write's body.
    static func json(_ request: JSONAPIServer.Request) -> NSDictionary? {
        (try? JSONSerialization.jsonObject(with: Data((request.body ?? "").utf8))) as? NSDictionary
    }

    /// A person, an article by them, a comment on it and a reply to that comment, all created offline
    /// with provisional ids; an edited title, an edited reply target and a deleted comment: DJA stores
    /// each with its relationships, and the cache ends as the server.
    @Test func editsCreatesRepliesAndDeletesReachTheServer() async throws {
        let server = try await JSONAPIServer.start()
        defer { server.stop() }
        try Self.seed(server)
        let blog = try Self.blog(on: server)
        try await blog.store.sync()

        let ada = try await blog.people.create { Person(id: $0, name: "ada") }
        let article = try await blog.articles.create {
            Article(id: $0, title: "New", body: "offline", authorID: ada.id)
        }
        let comment = try await blog.comments.create {
            Comment(id: $0, articleID: article.id, authorID: ada.id, body: "first", clientID: UUID())
        }
        _ = try await blog.comments.create {
            Comment(id: $0, articleID: article.id, replyTo: comment.id, body: "reply", clientID: UUID())
        }
        var edited = try #require(try await blog.articles.fetch(id: "1"))
        edited.title = "edited here"
        try await blog.articles.save(edited)
        var moved = try #require(try await blog.comments.fetch(id: "9"))
        moved.replyTo = "1"
        try await blog.comments.save(moved)
        try await blog.comments.delete(id: "10")
        try server.clearLog()

        let report = try await blog.store.sync()
        #expect(report.for(Person.self)?.pushed == 1)
        #expect(report.for(Article.self)?.pushed == 2)
        #expect(report.for(Comment.self)?.pushed == 4)
        #expect(report.for(Comment.self)?.failed.isEmpty == true)
        let state = try server.state()
        #expect(try await Contents(blog).differences(from: Contents(state)) == [])
        let person = try #require(state.people.first { $0.name == "ada" })
        let stored = try #require(state.articles.first { $0.title == "New" })
        #expect(stored.author_id == person.id)
        let first = try #require(state.comments.first { $0.body == "first" })
        let reply = try #require(state.comments.first { $0.body == "reply" })
        #expect((first.article_id, first.author_id) == (stored.id, person.id))
        #expect((reply.article_id, reply.reply_to_id) == (stored.id, first.id))
        #expect(state.articles.first { $0.id == 1 }?.title == "edited here")
        #expect(state.comments.first { $0.id == 9 }?.reply_to_id == 1)
        #expect(state.comments.first { $0.id == 10 }?.deleted == true)

        // Every write is a JSON:API document; a PATCH carries the changed member alone.
        let writes = state.requests.filter { $0.method != "GET" }
        #expect(writes.allSatisfy { (200..<300).contains($0.status) })
        #expect(writes.filter { $0.method != "DELETE" }.allSatisfy { $0.contentType == "application/vnd.api+json" })
        let patch = try #require(state.requests("PATCH", to: "articles").first)
        #expect(patch.path == "/api/articles/1")
        #expect(
            Self.json(patch) == ["data": ["type": "articles", "id": "1", "attributes": ["title": "edited here"]]])
        let relinked = try #require(state.requests("PATCH", to: "comments").first)
        #expect(
            Self.json(relinked)
                == [
                    "data": [
                        "type": "comments", "id": "9",
                        "relationships": ["reply_to": ["data": ["type": "comments", "id": "1"]]],
                    ]
                ]
        )
        #expect(try await blog.people.pendingChangeCount() + blog.articles.pendingChangeCount() == 0)
        #expect(try await blog.comments.pendingChangeCount() == 0)
    }

    /// DJA refuses a blank title with `400` and a JSON:API error pointing at `/data/attributes/title`:
    /// a failed change naming the field and the model's key path; corrected, it goes.
    @Test func aRefusedAttributeIsAFailedChangeNamingTheField() async throws {
        let server = try await JSONAPIServer.start()
        defer { server.stop() }
        let blog = try Self.blog(on: server)
        var draft = try await blog.articles.create { Article(id: $0, title: "", body: "no title", authorID: nil) }

        let report = try await blog.store.sync()
        #expect(report.for(Article.self)?.failed.map(\.id) == [draft.id])
        let failure = try #require(try await blog.articles.failedChanges().first)
        #expect(failure.fields == ["attributes.title"])
        #expect(failure.keyPaths.count == 1)
        #expect(failure.keyPaths.first.map { $0 == \Article.title as AnyKeyPath } == true)
        #expect(failure.reason.hasPrefix("HTTP 400"))
        #expect(failure.reason.contains("This field may not be blank."))
        #expect(try server.state().articles.isEmpty)

        draft.title = "titled"
        try await blog.articles.save(draft)
        let second = try await blog.store.sync()
        #expect(second.for(Article.self)?.failed.isEmpty == true)
        let state = try server.state()
        #expect(state.articles.map(\.title) == ["titled"])
        #expect(try await Contents(blog).differences(from: Contents(state)) == [])
    }

    /// A comment whose create DJA applied but whose answer was lost (a timeout after the commit): the
    /// sync's retry finds it by `filter[client_id.in]` and adopts it, with the id DJA assigned, instead of
    /// creating it twice.
    @Test func aCreateWhoseAnswerWasLostIsAdoptedByItsClientReference() async throws {
        let server = try await JSONAPIServer.start()
        defer { server.stop() }
        try Self.seed(server)
        let blog = try Self.blog(
            on: server.baseURL, token: server.token, database: SQLiteDatabase.inMemory(),
            transport: LosingFirstAnswerTransport(base: HTTPTransports.platformDefault, method: "POST"))
        try await blog.store.sync()
        let clientID = UUID()
        _ = try await blog.comments.create {
            Comment(id: $0, articleID: "1", replyTo: "3", body: "written offline", clientID: clientID)
        }
        try server.clearLog()

        let report = try await blog.store.sync()
        let state = try server.state()
        #expect(state.comments.filter { $0.client_id == clientID.uuidString.lowercased() }.count == 1)
        #expect(state.requests("POST", to: "comments").count == 1)
        #expect(state.requests("GET", to: "comments").contains { Self.query($0).contains("filter[client_id.in]=") })
        #expect(report.for(Comment.self)?.failed.isEmpty == true)
        #expect(try await blog.comments.unsentChanges().isEmpty)
        let cached = try await Contents(blog)
        // The adopting PATCH names the server's record (`data.id` as DJA assigned it, not the provisional
        // id, which DJA refused with 409 as not the URL's).
        #expect(!state.requests("PATCH", to: "comments").isEmpty)
        #expect(state.requests("PATCH", to: "comments").allSatisfy { $0.status == 200 })
        #expect(report.for(Comment.self)?.conflicts.isEmpty == true)
        #expect(cached.differences(from: Contents(state)) == [])
    }
}
