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

/// A feed whose server lists nothing to a token it no longer accepts (as PocketBase does): with a
/// declared credentials check, the empty feed is an error, never a "complete" sync that missed it.
@Suite struct HTTPRemoteFeedCredentialsTests {
    @Test func anEmptyFeedForARefusedTokenStopsTheSync() async throws {
        let server = PagedFeedServer(
            HTTPRemoteFeedPagingTests.usersThenPosts(count: 2), tableOrder: ["users", "posts"])
        server.refusesToken()
        let database = try SQLiteDatabase.inMemory()
        let base = PagedFeedServer.baseURL
        let users = try Repository(
            database: database,
            remote: HTTPRemoteSource<User>(baseURL: base.appendingPathComponent("users"), transport: server))
        let api = HTTPAPI(
            pull: HTTPPullShape(
                path: "changes", records: "tables.{table}.records", paging: .offset(parameter: "offset")),
            push: .none, credentials: HTTPCredentialsCheck(method: "POST", path: "auth-refresh"))
        let store = try SyncStore(users, feed: HTTPRemoteFeed(baseURL: base, api: api, transport: server))
        do {
            _ = try await store.sync()
            Issue.record("an empty feed under a refused token ended complete")
        } catch RemoteSourceError.httpStatus(let status, _) {
            #expect(status == 401)
        }
    }
}
