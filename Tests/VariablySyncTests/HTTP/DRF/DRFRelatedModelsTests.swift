import Foundation
import Testing
import VariablySQLite
import VariablySync

/// Related models against a real Django REST Framework with a real foreign key: authors and their
/// articles, created offline with provisional ids, pushed through a `SyncStore`.
// One test at a time, and one server across the suites (DRFServer.start waits its turn, hence the
// time limit): each starts its own Django, which takes a core for a second or more.
@Suite(.serialized, .timeLimit(.minutes(15)), .enabled(if: DRFServer.isAvailable, DRFServer.unavailableReason))
struct DRFRelatedModelsTests {
    /// The authors' and articles' repositories on one in-memory cache, and their store.
    static func graph(on server: DRFServer) throws -> (Repository<DRFAuthor>, Repository<DRFArticle>, SyncStore) {
        let database = try SQLiteDatabase.inMemory()
        let authors = try server.makeGraphRepository(DRFAuthor.self, "authors", database: database)
        let articles = try server.makeGraphRepository(DRFArticle.self, "articles", database: database)
        return (authors, articles, SyncStore(articles, authors))
    }

    /// An author and two articles created offline: the author is posted first, the id DRF assigns
    /// replaces the provisional one in the articles, and DRF accepts them (it checks the foreign key).
    @Test func offlineParentsAndChildrenReachTheServerWithItsIDs() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let (authors, articles, store) = try Self.graph(on: server)
        try await store.sync()

        let author = try await authors.create { DRFAuthor(id: $0, name: "ada") }
        _ = try await articles.create { DRFArticle(id: $0, authorID: author.id, title: "notes") }
        _ = try await articles.create { DRFArticle(id: $0, authorID: author.id, title: "more notes") }
        let report = try await store.sync()
        #expect(report.for(DRFAuthor.self)?.pushed == 1)
        #expect(report.for(DRFArticle.self)?.pushed == 2)

        let state = try server.state()
        let stored = try #require(state.authors.first)
        #expect(state.authors.map(\.name) == ["ada"])
        #expect(state.articles.map(\.author) == [stored.id, stored.id])
        #expect(state.requests.filter { $0.method == "POST" }.map(\.path) == [
            "/api/graph/authors/", "/api/graph/articles/", "/api/graph/articles/",
        ])
        let cachedArticles = try await articles.fetch(sortedBy: [SortDescriptor(\.id)])
        #expect(cachedArticles.map(\.authorID) == [stored.id, stored.id])
        #expect(cachedArticles.map(\.id) == state.articles.map(\.id))
        #expect(try await authors.fetch().map(\.id) == [stored.id])
        #expect(try await articles.pendingChangeCount() + authors.pendingChangeCount() == 0)
    }

    /// DRF refuses the author: its article is held, not sent, reported with the refusal; fixed, both go.
    @Test func aRefusedAuthorHoldsItsArticle() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let (authors, articles, store) = try Self.graph(on: server)

        var author = try await authors.create { DRFAuthor(id: $0, name: "forbidden") }
        let authorID = author.id
        _ = try await articles.create { DRFArticle(id: $0, authorID: authorID, title: "waits") }
        let report = try await store.sync()
        #expect(report.for(DRFAuthor.self)?.rejected.first?.reason.hasPrefix("HTTP 400") == true)
        let held = try #require(report.for(DRFArticle.self)?.held.first)
        #expect(held.reason.contains("which the server refused: HTTP 400"))
        #expect(try server.state().articles.isEmpty)
        #expect(try server.state().requests.filter { $0.path.hasPrefix("/api/graph/articles/") && $0.method == "POST" }.isEmpty)

        author.name = "allowed"
        try await authors.save(author)
        try await store.sync()
        let state = try server.state()
        #expect(state.authors.map(\.name) == ["allowed"])
        #expect(state.articles.map(\.title) == ["waits"])
        #expect(state.articles.first?.author == state.authors.first?.id)
    }

    /// Deleting an author here deletes its articles (cascade): the articles' deletions go first, then
    /// the author's; the server's tombstones come back without re-deleting anything.
    @Test func aCascadedLocalDeletionGoesChildrenFirst() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let (authors, articles, store) = try Self.graph(on: server)
        let author = try await authors.create { DRFAuthor(id: $0, name: "ada") }
        _ = try await articles.create { DRFArticle(id: $0, authorID: author.id, title: "one") }
        try await store.sync()
        let stored = try #require(try await authors.fetch().first)

        try server.clearLog()
        try await authors.delete(id: stored.id)
        #expect(try await articles.count() == 0)

        try await store.sync()
        let state = try server.state()
        #expect(state.requests.filter { $0.method == "DELETE" }.map(\.path).first?.hasPrefix("/api/graph/articles/") == true)
        #expect(state.authors.allSatisfy { $0.deleted })
        #expect(state.articles.allSatisfy { $0.deleted })
        #expect(try await authors.pendingChangeCount() + articles.pendingChangeCount() == 0)
    }

    /// DRF keeps one live author per name. The author `bob` is deleted, then another `bob` is created
    /// in a later transaction: the deletion goes first, so DRF accepts the new `bob`; sent saves first,
    /// DRF would refuse it.
    @Test func aDeletionGoesBeforeALaterTransactionsCreate() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let (authors, _, store) = try Self.graph(on: server)
        _ = try await authors.create { DRFAuthor(id: $0, name: "bob") }
        try await store.sync()
        let first = try #require(try await authors.fetch().first)

        try await authors.delete(id: first.id)
        _ = try await authors.create { DRFAuthor(id: $0, name: "bob") }
        let report = try await store.sync()
        #expect(report.for(DRFAuthor.self)?.rejected.isEmpty == true)
        #expect(report.for(DRFAuthor.self)?.pushed == 2)
        let state = try server.state()
        #expect(state.authors.filter { !$0.deleted }.map(\.name) == ["bob"])
        #expect(state.authors.filter(\.deleted).map(\.id) == [first.id])
        #expect(try await authors.fetch().map(\.name) == ["bob"])
        #expect(try await authors.pendingChangeCount() == 0)
    }
}
