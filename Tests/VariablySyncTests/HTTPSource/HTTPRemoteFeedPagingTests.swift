import Foundation
import Synchronization
import Testing
import UserSyncModels
import VariablyCodable
import VariablyHTTP
import VariablySQLite
import VariablySync

/// A feed of several tables read by page numbers or offsets: the paging counts the whole answer, not
/// the last table's part of it, and each table's declared fields are verified on their own.
@Suite struct HTTPRemoteFeedPagingTests {
    /// Users 1...20, then posts 100...119 (parents first, as many feeds list them), each by user
    /// `post - 99`.
    static func usersThenPosts(count: Int64 = 20, deletedFlag: Bool = false) -> [PagedFeedServer.Entry] {
        let users = (1...count).map { id in
            var json = User.remoteJSON(id: id, userName: "user \(id)")
            if deletedFlag { json = "{\"deleted\":false," + json.dropFirst() }
            return PagedFeedServer.Entry(table: "users", json: json)
        }
        let posts = (1...count).map { user in
            PagedFeedServer.Entry(
                table: "posts", json: #"{"id":\#(user + 99),"author_id":\#(user),"title":"t\#(user)","body":""}"#)
        }
        return users + posts
    }

    func store(
        _ server: PagedFeedServer, paging: HTTPPullShape.Paging, deletions: HTTPPullShape.Deletions = .none,
        pageSize: Int
    ) throws -> (SyncStore, Repository<User>, Repository<Post>) {
        let database = try SQLiteDatabase.inMemory()
        let base = PagedFeedServer.baseURL
        let users = try Repository(
            database: database,
            remote: HTTPRemoteSource<User>(baseURL: base.appendingPathComponent("users"), transport: server))
        let posts = try Repository(
            database: database,
            remote: HTTPRemoteSource<Post>(baseURL: base.appendingPathComponent("posts"), transport: server))
        let api = HTTPAPI(
            pull: HTTPPullShape(
                path: "changes", records: "tables.{table}.records", paging: paging, deletions: deletions),
            push: .none)
        let store = try SyncStore(
            users, posts, feed: HTTPRemoteFeed(baseURL: base, api: api, transport: server),
            configuration: ChangeFeedConfiguration(pageSize: pageSize))
        return (store, users, posts)
    }

    /// Sixteen users fill the first page and no post is on it: the posts' empty part does not end the
    /// feed, and the next offset moves by the sixteen records served. The last page, shorter than
    /// asked, is checked once.
    @Test func offsetsMoveByEveryTablesRecords() async throws {
        let server = PagedFeedServer(Self.usersThenPosts(), tableOrder: ["users", "posts"])
        let (store, users, posts) = try store(server, paging: .offset(parameter: "offset"), pageSize: 16)
        let report = try await store.sync()
        #expect(try await users.count() == 20)
        #expect(try await posts.count() == 20)
        #expect(server.offsetsAsked == [0, 16, 32, 40])
        #expect(report.feedCheckRequests == 1)
    }

    /// A server that serves 6 records a page, whatever is asked: the cap is learned from the whole
    /// answer, and every record of both tables arrives.
    @Test func aCapTheFeedAppliesSilentlyIsLearnedAcrossTables() async throws {
        let entries = Self.usersThenPosts()
        let server = PagedFeedServer(entries, tableOrder: ["users", "posts"], cap: 6)
        let (store, users, posts) = try store(server, paging: .page(parameter: "page"), pageSize: 10)
        let report = try await store.sync()
        #expect(try await users.count() == 20)
        #expect(try await posts.count() == 20)
        #expect(report.feedCheckRequests == 0)
        // 40 records in pages of 6: the first page's shortness is checked by the second, and the last,
        // shorter than the 6 learned, ends the feed.
        #expect(server.pagesAsked == Array(1...7))
    }

    /// A deletion flag the users carry and the posts never do: the posts' part is an error naming the
    /// table, whatever order the answer lists the tables in.
    @Test(arguments: [["posts", "users"], ["users", "posts"]])
    func aMarkerOneTableNeverCarriesStopsTheFeed(tableOrder: [String]) async throws {
        let server = PagedFeedServer(Self.usersThenPosts(count: 3, deletedFlag: true), tableOrder: tableOrder)
        let (store, users, _) = try store(
            server, paging: .offset(parameter: "offset"), deletions: .tombstones(flag: "deleted"), pageSize: 100)
        do {
            _ = try await store.sync()
            Issue.record("a feed whose posts carry no \"deleted\" ended complete")
        } catch RemoteSourceError.declaredFieldMissing(let field, _, let endpoint, let record, _) {
            #expect(field == "deleted")
            #expect(endpoint == "changes (table posts)")
            #expect(record == "100")
        }
        // The page that ended the pull is not applied.
        #expect(try await users.count() == 0)
    }
}

/// An in-process feed at `GET /changes`: entries in order, sliced by `offset`/`limit` or
/// `page`/`limit`, at most `cap` a page whatever is asked; every table of `tableOrder` listed in each
/// answer, an empty `records` where a page has none of it.
final class PagedFeedServer: HTTPTransport {
    struct Entry: Sendable {
        var table: String
        var json: String
    }

    static let baseURL = URL(string: "http://127.0.0.1:9/api/")!
    let entries: [Entry]
    let tableOrder: [String]
    let cap: Int
    private let asked = Mutex<[(offset: Int?, page: Int?)]>([])

    init(_ entries: [Entry], tableOrder: [String], cap: Int = .max) {
        (self.entries, self.tableOrder, self.cap) = (entries, tableOrder, cap)
    }

    var offsetsAsked: [Int] { asked.withLock { $0.compactMap(\.offset) } }
    var pagesAsked: [Int] { asked.withLock { $0.compactMap(\.page) } }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func number(_ name: String) -> Int? { items.first { $0.name == name }?.value.flatMap { Int($0) } }
        let limit = min(number("limit") ?? 100, cap)
        let (offset, page) = (number("offset"), number("page"))
        asked.withLock { $0.append((offset, page)) }
        let start = offset ?? ((page ?? 1) - 1) * limit
        let slice = entries.dropFirst(start).prefix(limit)
        let tables = tableOrder.map { table in
            let records = slice.filter { $0.table == table }.map(\.json).joined(separator: ",")
            return "\"\(table)\":{\"records\":[\(records)]}"
        }
        let body = Data("{\"tables\":{\(tables.joined(separator: ","))},\"count\":\(entries.count)}".utf8)
        return HTTPTransportResponse(
            status: request.url.path.hasSuffix("/changes") ? 200 : 404, headers: ["content-type": "application/json"],
            body: AsyncThrowingStream { continuation in
                continuation.yield(body)
                continuation.finish()
            })
    }
}
