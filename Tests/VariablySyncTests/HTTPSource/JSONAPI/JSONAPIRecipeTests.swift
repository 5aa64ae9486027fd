import Foundation
import Testing
import VariablySQLite
import VariablySync

/// The JSON:API recipe of docs/http.md ("Write shapes and JSON:API"), declared as written there, against
/// a stock djangorestframework-jsonapi server (``JSONAPIServer``): people, their articles and the
/// comments on them (replies included) in one ``SyncStore``, pulled by `links.next` and the
/// `filter[updated_at.gte]` filter, pushed as JSON:API documents. The server's database is checked after
/// each step.
// One test at a time, and one Django across the suites (JSONAPIServer.start waits its turn, hence the
// time limit): each starts its own Django, which takes a core for a second or more.
@Suite(
    .serialized, .timeLimit(.minutes(15)), .enabled(if: JSONAPIServer.isAvailable, JSONAPIServer.unavailableReason))
struct JSONAPIRecipeTests {
    /// The server's live rows as the app's models, to compare with a cache: `==` in a test reads
    /// `cache.differences(from: server) == []`, whose failure names the rows that differ, briefly.
    struct Contents: Equatable {
        var people: Set<Person>
        var articles: Set<Article>
        var comments: Set<Comment>

        init(_ state: JSONAPIServer.State) {
            people = Set(state.people.filter { !$0.deleted }.map { Person(id: String($0.id), name: $0.name) })
            articles = Set(
                state.articles.filter { !$0.deleted }.map {
                    Article(
                        id: String($0.id), title: $0.title, body: $0.body, authorID: $0.author_id.map { String($0) })
                })
            comments = Set(
                state.comments.filter { !$0.deleted }.map {
                    Comment(
                        id: String($0.id), articleID: String($0.article_id), authorID: $0.author_id.map { String($0) },
                        replyTo: $0.reply_to_id.map { String($0) }, body: $0.body,
                        clientID: $0.client_id.flatMap(UUID.init(uuidString:)))
                })
        }

        init(_ blog: Blog) async throws {
            people = Set(try await blog.people.fetch())
            articles = Set(try await blog.articles.fetch())
            comments = Set(try await blog.comments.fetch())
        }

        /// The rows that only one side holds (`here` this one, `there` the other), at most 6, each briefly.
        func differences(from other: Contents) -> [String] {
            func rows<Row: Hashable>(_ here: Set<Row>, _ there: Set<Row>, _ brief: (Row) -> String) -> [String] {
                here.subtracting(there).map { "here: \(brief($0))" }
                    + there.subtracting(here).map { "there: \(brief($0))" }
            }
            let all =
                rows(people, other.people) { "person \($0.id) \($0.name)" }
                + rows(articles, other.articles) { "article \($0.id) by \($0.authorID ?? "-") \($0.title)" }
                + rows(comments, other.comments) {
                    "comment \($0.id) on \($0.articleID) replying to \($0.replyTo ?? "-") \($0.body)"
                }
            return Array(all.sorted().prefix(6))
        }
    }

    /// Three people, seven articles (the last without an author) and twelve comments on the first three
    /// articles, every third replying to the one before it: more than a page of 5 in every collection.
    static func seed(_ server: JSONAPIServer) throws {
        for id in 1...3 { try server.write("people", "create", fields: ["id": id, "name": "person \(id)"]) }
        for id in 1...7 {
            try server.write(
                "articles", "create",
                fields: [
                    "id": id, "title": "article \(id)", "body": "text \(id)",
                    "author_id": id < 7 ? id % 3 + 1 : NSNull(),
                ])
        }
        for id in 1...12 {
            try server.write(
                "comments", "create",
                fields: [
                    "id": id, "article_id": id % 3 + 1, "author_id": id % 2 == 0 ? 1 : NSNull(),
                    "reply_to_id": id % 3 == 0 ? id - 1 : NSNull(), "body": "comment \(id)",
                ])
        }
    }

    /// The query of `request`'s path, percent-decoded.
    static func query(_ request: JSONAPIServer.Request) -> String {
        let query = request.path.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        return query.removingPercentEncoding ?? query
    }

    @Test func aFirstSyncPullsEveryPageOfTheThreeCollections() async throws {
        let server = try await JSONAPIServer.start()
        defer { server.stop() }
        try Self.seed(server)
        let blog = try Self.blog(on: server)

        let report = try await blog.store.sync()
        #expect(report.for(Person.self)?.inserted == 3)
        #expect(report.for(Article.self)?.inserted == 7)
        #expect(report.for(Comment.self)?.inserted == 12)
        let state = try server.state()
        #expect(try await Contents(blog).differences(from: Contents(state)) == [])
        let pages = state.requests.filter { $0.method == "GET" }
        #expect(pages.allSatisfy { $0.status == 200 })
        #expect(
            pages.allSatisfy {
                Self.query($0).contains("page[size]=5") && Self.query($0).contains("sort=updated_at,id")
            })
        #expect(try await blog.comments.fetch(id: "3")?.replyTo == "2")
        #expect(try await blog.articles.fetch(id: "7")?.authorID == nil)
    }

    /// After the first sync, each collection is asked for what changed since the last record it
    /// received (`filter[updated_at.gte]`), and only the rows the server changed are pulled.
    @Test func anIncrementalSyncAsksForTheChangesSinceAndPullsOnlyThem() async throws {
        let server = try await JSONAPIServer.start()
        defer { server.stop() }
        try Self.seed(server)
        let blog = try Self.blog(on: server)
        try await blog.store.sync()

        try server.clearLog()
        try server.write("articles", "update", id: 2, fields: ["title": "edited there"])
        try server.write(
            "comments", "create", fields: ["id": 13, "article_id": 2, "reply_to_id": 4, "body": "new there"])
        let report = try await blog.store.sync()
        #expect(report.for(Person.self)?.pulled == 0)
        #expect(report.for(Article.self)?.pulled == 1)
        #expect(report.for(Article.self)?.updated == 1)
        #expect(report.for(Comment.self)?.pulled == 1)
        #expect(report.for(Comment.self)?.inserted == 1)
        let state = try server.state()
        #expect(try await Contents(blog).differences(from: Contents(state)) == [])
        let pages = state.requests.filter { $0.method == "GET" }
        #expect(Set(pages.map { $0.path.split(separator: "?").first.map(String.init) ?? "" }).count == 3)
        #expect(pages.allSatisfy { Self.query($0).contains("filter[updated_at.gte]=") })
        #expect(try await blog.articles.fetch(id: "2")?.title == "edited there")
        #expect(try await blog.comments.fetch(id: "13")?.replyTo == "4")
    }

    /// Rows the server soft-deletes (a comment with a reply, an article without comments) arrive as
    /// tombstones and leave the cache; the reply stays, no longer replying.
    @Test func theServersSoftDeletesArriveAsDeletions() async throws {
        let server = try await JSONAPIServer.start()
        defer { server.stop() }
        try Self.seed(server)
        let blog = try Self.blog(on: server)
        try await blog.store.sync()

        try server.write("comments", "soft_delete", id: 2)
        try server.write("articles", "soft_delete", id: 5)
        let report = try await blog.store.sync()
        #expect(report.for(Comment.self)?.deleted == 1)
        #expect(report.for(Article.self)?.deleted == 1)
        #expect(try await blog.comments.fetch(id: "2") == nil)
        #expect(try await blog.articles.fetch(id: "5") == nil)
        #expect(try await blog.comments.fetch(id: "3")?.replyTo == nil)
        #expect(try await blog.comments.count() == 11)
        #expect(try await blog.articles.count() == 6)
    }
}
