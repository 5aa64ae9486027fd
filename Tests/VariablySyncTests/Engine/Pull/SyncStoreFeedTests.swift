import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// A store that pulls users, posts and comments from one feed: batches of every table and one
/// cursor in one transaction, children that arrive before their parents held until they come.
@Suite struct SyncStoreFeedTests {
    struct Fixture {
        let folder: URL
        let database: SQLiteDatabase
        let clock = SimulatedClock()
        let userServer: SimulatedServer<User>
        let postServer: SimulatedServer<Post>
        let commentServer: SimulatedServer<Comment>
        let feed: SimulatedChangeFeed
        let users: Repository<User>
        let posts: Repository<Post>
        let comments: Repository<Comment>
        let store: SyncStore

        /// `userCount` users with two posts each and a comment on each post, on a file in a
        /// temporary folder (readers run beside the writer).
        init(
            userCount: Int = 3, configuration: ChangeFeedConfiguration = ChangeFeedConfiguration(),
            faults: SimulatedFaults = SimulatedFaults()
        ) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("feed-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            database = try SQLiteDatabase(path: folder.appendingPathComponent("store.sqlite").path)
            let users = (1...Int64(userCount)).map { User(id: $0, userName: "user \($0)") }
            let posts = users.flatMap { user in
                [
                    Post(id: user.id * 10, authorID: user.id, title: "a"),
                    Post(id: user.id * 10 + 1, authorID: user.id, title: "b"),
                ]
            }
            let comments = posts.map { Comment(id: $0.id * 10, postID: $0.id, body: "on \($0.id)") }
            userServer = try SimulatedServer(records: users, seed: 1, clock: clock)
            postServer = try SimulatedServer(records: posts, seed: 2, clock: clock)
            commentServer = try SimulatedServer(records: comments, seed: 3, clock: clock)
            feed = SimulatedChangeFeed(userServer, postServer, commentServer, seed: 4, faults: faults)
            self.users = try Repository(
                database: database, remote: userServer, configuration: SyncConfiguration(retryPolicy: quickRetries))
            self.posts = try Repository(
                database: database, remote: postServer, configuration: SyncConfiguration(retryPolicy: quickRetries))
            self.comments = try Repository(
                database: database, remote: commentServer, configuration: SyncConfiguration(retryPolicy: quickRetries))
            store = try SyncStore(self.comments, self.posts, self.users, feed: feed, configuration: configuration)
        }

        func remove() {
            try? FileManager.default.removeItem(at: folder)
        }

        /// Posts without their user and comments without their post, as a reader sees the cache.
        func orphans() async throws -> Int {
            try await database.read { db in
                let posts = try db.fetchValue(
                    sql:
                        #"SELECT count(*) FROM "posts" WHERE "author_id" NOT IN (SELECT "id" FROM "users")"#
                )
                let comments = try db.fetchValue(
                    sql:
                        #"SELECT count(*) FROM "comments" WHERE "post_id" NOT IN (SELECT "id" FROM "posts")"#
                )
                guard case .integer(let a)? = posts, case .integer(let b)? = comments else { return -1 }
                return Int(a + b)
            }
        }
    }

    static var quickFeed: ChangeFeedConfiguration {
        ChangeFeedConfiguration(
            retryPolicy: RetryPolicy(maxAttempts: 8, initialDelay: .microseconds(10), maxDelay: .microseconds(50)))
    }

    @Test func aSyncPullsEveryTableInOneCheckpoint() async throws {
        var configuration = Self.quickFeed
        configuration.pageSize = 4
        let fixture = try Fixture(configuration: configuration)
        defer { fixture.remove() }
        let report = try await fixture.store.sync()
        #expect(try await fixture.users.count() == 3)
        #expect(try await fixture.posts.count() == 6)
        #expect(try await fixture.comments.count() == 6)
        #expect(report.for(User.self)?.inserted == 3)
        #expect(report.for(Post.self)?.inserted == 6)
        #expect(report.for(Comment.self)?.pulled == 6)
        #expect(try await fixture.store.feedCursor() == SyncCursor(rawValue: "15"))
        // Each table is at the feed's position: the base of the changes queued from now on.
        #expect(try await fixture.posts.cursor() == SyncCursor(rawValue: "15"))
        let again = try await fixture.store.sync()
        #expect(again.for(Post.self)?.pulled == 0)
        #expect(await fixture.feed.pulls == 5)  // 4 pages of 4, 4, 4, 3, then one empty page
    }

    /// The user was written again after its post: the feed sends the post first (page 1) and the
    /// user in page 2. With a batch per page, the post waits, unseen, for the next batch.
    @Test func aChildBeforeItsParentIsHeldUntilTheParentArrives() async throws {
        var configuration = Self.quickFeed
        (configuration.pageSize, configuration.batchSize) = (1, 1)
        let fixture = try Fixture(userCount: 1, configuration: configuration)
        defer { fixture.remove() }
        try await fixture.store.sync()
        _ = try await fixture.postServer.upsert(Post(id: 50, authorID: 5, title: "early"))
        _ = try await fixture.commentServer.upsert(Comment(id: 500, postID: 50, body: "earlier still"))
        let first = try await fixture.store.sync()
        #expect(first.for(Post.self)?.parked == 1)
        #expect(first.for(Comment.self)?.parked == 1)
        #expect(try await fixture.posts.fetch(id: 50) == nil)
        #expect(try await fixture.comments.fetch(id: 500) == nil)
        #expect(try await fixture.orphans() == 0)

        _ = try await fixture.userServer.upsert(User(id: 5, userName: "late"))
        let second = try await fixture.store.sync()
        #expect(second.for(Post.self)?.parked == 0)
        #expect(try await fixture.posts.fetch(id: 50)?.title == "early")
        #expect(try await fixture.comments.fetch(id: 500)?.body == "earlier still")
        #expect(try await fixture.orphans() == 0)
    }

    /// A held record deleted by the server before its parent came is not applied later.
    @Test func aParkedRecordDeletedMeanwhileIsNeverApplied() async throws {
        let fixture = try Fixture(userCount: 1, configuration: Self.quickFeed)
        defer { fixture.remove() }
        _ = try await fixture.postServer.upsert(Post(id: 70, authorID: 7, title: "gone soon"))
        let first = try await fixture.store.sync().for(Post.self)
        // Its author is on no page and not on the server either: looked up, the post is settled by the
        // reference's rule (`.cascade`), and the report says so.
        #expect(first?.parked == 0)
        #expect(first?.settledOrphans[.cascade] == 1)
        await fixture.postServer.delete(id: 70)
        _ = try await fixture.userServer.upsert(User(id: 7, userName: "seven"))
        let report = try await fixture.store.sync()
        #expect(report.for(Post.self)?.parked == 0)
        #expect(try await fixture.posts.fetch(id: 70) == nil)
        #expect(try await fixture.users.fetch(id: 7) != nil)
    }

    /// A reader polling the cache while pages of every table arrive, parents written again between
    /// pages, never sees a child without its parent.
    @Test func aReaderNeverSeesAnOrphan() async throws {
        var configuration = Self.quickFeed
        (configuration.pageSize, configuration.batchSize) = (7, 7)
        let fixture = try Fixture(userCount: 40, configuration: configuration)
        defer { fixture.remove() }
        // Users written again after their posts: the feed serves them late.
        for id in Int64(1)...40 { try await fixture.userServer.update(id: id) { $0.userName += "!" } }
        let watching = Task {
            var worst = 0
            var looks = 0
            while !Task.isCancelled {
                guard let seen = try? await fixture.orphans() else { break }
                worst = max(worst, seen)
                looks += 1
                await Task.yield()
            }
            return (worst, looks)
        }
        let report = try await fixture.store.sync()
        watching.cancel()
        let (worst, looks) = await watching.value
        #expect(worst == 0)
        #expect(looks > 0)
        #expect(try await fixture.posts.count() == 80)
        #expect(try await fixture.comments.count() == 80)
        #expect(report.for(Post.self)?.parked == 0)
        #expect(try await fixture.orphans() == 0)
    }

    @Test func deletionsOfEveryTableApplyTogether() async throws {
        let fixture = try Fixture(configuration: Self.quickFeed)
        defer { fixture.remove() }
        try await fixture.store.sync()
        // The server deletes user 2 with its posts and their comments, children last.
        await fixture.userServer.delete(id: 2)
        for post in [Int64(20), 21] {
            await fixture.postServer.delete(id: post)
            await fixture.commentServer.delete(id: post * 10)
        }
        let report = try await fixture.store.sync()
        #expect(report.for(User.self)?.deleted == 1)
        #expect(try await fixture.users.fetch(id: 2) == nil)
        #expect(try await fixture.posts.count() == 4)
        #expect(try await fixture.comments.count() == 4)
        #expect(try await fixture.orphans() == 0)
    }

    /// A record changed in several pages of one batch ends as its last change says: written with
    /// its last values, or deleted; a record created and deleted within the batch never shows.
    @Test func aRecordChangedTwiceWithinACheckpointEndsAsItsLastChange() async throws {
        let fixture = try Fixture(userCount: 1, configuration: Self.quickFeed)
        defer { fixture.remove() }
        func changes(_ records: String, deleted: [Int64] = []) -> RemoteFeedChanges {
            RemoteFeedChanges(records: Data(records.utf8), deletedIDs: deleted.map { .int($0) })
        }
        let feed = ScriptedFeed(pages: [
            RemoteFeedPage(
                tables: [
                    "users": changes(
                        "[\(User.remoteJSON(id: 1, userName: "first")), \(User.remoteJSON(id: 2, userName: "gone"))]"),
                    "posts": changes(#"[{"id": 10, "author_id": 1, "title": "draft"}]"#),
                ],
                nextCursor: "1", hasMore: true),
            RemoteFeedPage(
                tables: [
                    "users": changes("[\(User.remoteJSON(id: 1, userName: "second"))]", deleted: [2]),
                    "posts": changes(#"[{"id": 11, "author_id": 1, "title": "kept"}]"#, deleted: [10]),
                ],
                nextCursor: "2", hasMore: true),
            RemoteFeedPage(
                tables: ["users": changes("[\(User.remoteJSON(id: 1, userName: "last"))]")], nextCursor: "3",
                hasMore: false),
        ])
        let store = try SyncStore(
            fixture.comments, fixture.posts, fixture.users, feed: feed, configuration: Self.quickFeed)
        let report = try await store.sync()
        #expect(try await fixture.users.fetch() == [User(id: 1, userName: "last")])
        #expect(try await fixture.posts.fetch().map(\.id) == [11])
        #expect(report.for(User.self)?.pulled == 4)
        #expect(report.for(User.self)?.inserted == 1)
        #expect(try await fixture.orphans() == 0)
    }

    /// A first sync is applied in growing batches (one page, then twice as many records each time),
    /// so one cut short keeps what it applied; a later sync gathers a whole batch before applying
    /// any of it, so readers see a small one whole.
    @Test func aFirstSyncIsAppliedInGrowingStepsAndALaterOneWhole() async throws {
        var configuration = Self.quickFeed
        (configuration.pageSize, configuration.batchSize) = (4, 1_000)
        let fixture = try Fixture(userCount: 1, configuration: configuration)
        defer { fixture.remove() }
        let cut = RemoteSourceError.unavailable("the server went away")
        // Pages 1 to 5 of 4 users, then a failure: batches of 4 (page 1) and 8 (pages 2 and 3)
        // are applied; pages 4 and 5 wait for a batch of 16 that never completes.
        let first = ScriptedFeed(pages: ScriptedFeed.userPages(1...5, size: 4), thenFailingWith: cut)
        let firstStore = try SyncStore(
            fixture.comments, fixture.posts, fixture.users, feed: first, configuration: configuration)
        await #expect(throws: RemoteSourceError.self) { try await firstStore.sync() }
        #expect(try await firstStore.feedCursor() == "3")
        #expect(try await fixture.users.count() == 12)
        // Pages 6 and 7, then a failure: nothing of them is applied.
        let later = ScriptedFeed(pages: ScriptedFeed.userPages(6...7, size: 4), thenFailingWith: cut)
        let laterStore = try SyncStore(
            fixture.comments, fixture.posts, fixture.users, feed: later, configuration: configuration)
        await #expect(throws: RemoteSourceError.self) { try await laterStore.sync() }
        #expect(try await laterStore.feedCursor() == "3")
        #expect(try await fixture.users.count() == 12)
    }

    /// Local changes are pushed to each table's own server first; the feed then brings them back as the
    /// server's, and a record with a queued change is left alone by the pull.
    @Test func pushesGoToEachSourceAndQueuedChangesAreKept() async throws {
        let fixture = try Fixture(configuration: Self.quickFeed)
        defer { fixture.remove() }
        try await fixture.store.sync()
        try await fixture.database.write { db in
            try db.upsert(User(id: 9, userName: "new"))
            try db.upsert(Post(id: 90, authorID: 9, title: "fresh"))
        }
        let report = try await fixture.store.sync()
        #expect(report.for(User.self)?.pushed == 1)
        #expect(report.for(Post.self)?.pushed == 1)
        #expect(await fixture.postServer.record(id: 90)?.title == "fresh")
        #expect(try await fixture.posts.pendingChangeCount() == 0)

        // An edit waiting to be pushed while the server changes the same post: the pull keeps the edit.
        try await fixture.posts.save(Post(id: 10, authorID: 1, title: "mine"))
        try await fixture.postServer.update(id: 10) { $0.title = "theirs" }
        try await fixture.store.sync()
        let merged = try await fixture.posts.fetch(id: 10)
        #expect(merged?.title == "mine" || merged?.title == "theirs")
        #expect(try await fixture.posts.pendingChangeCount() == 0)
        #expect(await fixture.postServer.record(id: 10)?.title == merged?.title)
    }

    /// A local edit made before the server's edit of the same post was pulled is a conflict: the
    /// queued change is based on the feed's position, which the server's version is after.
    @Test func aLocalEditBasedOnAnOlderPositionIsAConflict() async throws {
        let fixture = try Fixture(configuration: Self.quickFeed)
        defer { fixture.remove() }
        try await fixture.store.sync()
        try await fixture.postServer.update(id: 10) { $0.title = "theirs" }
        try await fixture.posts.save(Post(id: 10, authorID: 1, title: "mine"))
        let report = try await fixture.store.sync()
        #expect(report.for(Post.self)?.conflicts.map(\.id) == [10])
        #expect(try await fixture.posts.fetch(id: 10)?.title == "theirs")
        #expect(await fixture.postServer.record(id: 10)?.title == "theirs")
    }

    @Test func transientFaultsOfTheFeedAreRetried() async throws {
        var faults = SimulatedFaults()
        faults.transientErrorRate = 0.2
        var configuration = Self.quickFeed
        configuration.pageSize = 3
        let fixture = try Fixture(userCount: 10, configuration: configuration, faults: faults)
        defer { fixture.remove() }
        let report = try await fixture.store.sync()
        #expect(report.feedRetries > 0)
        #expect(try await fixture.comments.count() == 20)
        #expect(try await fixture.orphans() == 0)
    }

    @Test func anUnknownCursorStartsTheFeedOver() async throws {
        let fixture = try Fixture(configuration: Self.quickFeed)
        defer { fixture.remove() }
        try await fixture.store.sync()
        let state = SyncStateStoreProbe(database: fixture.database)
        try await state.setFeedCursor("999999")
        let report = try await fixture.store.sync()
        #expect(report.for(User.self)?.pulled == 3)
        #expect(try await fixture.store.feedCursor() == SyncCursor(rawValue: "15"))
    }
}

/// Writes the store's feed cursor as a file from elsewhere would: a cursor the server never made.
struct SyncStateStoreProbe {
    let database: SQLiteDatabase

    func setFeedCursor(_ cursor: String) async throws {
        try await database.write { db in
            try db.execute(
                sql: #"UPDATE "variably_feed_positions" SET "cursor" = ?"#,
                arguments: [cursor])
        }
    }
}

/// A feed that answers fixed pages, one after the other, whatever the cursor, then `failure` if any.
actor ScriptedFeed: RemoteChangeFeed {
    private var pages: [RemoteFeedPage]
    private let failure: RemoteSourceError?

    init(pages: [RemoteFeedPage], thenFailingWith failure: RemoteSourceError? = nil) {
        self.pages = pages
        self.failure = failure
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemoteFeedPage {
        guard !pages.isEmpty else {
            if let failure { throw failure }
            return RemoteFeedPage(tables: [:], nextCursor: cursor ?? "0", hasMore: false)
        }
        return pages.removeFirst()
    }

    /// Pages `numbers`, each of `size` new users (ids from `size × (number - 1) + 1`), all with more
    /// to come.
    static func userPages(_ numbers: ClosedRange<Int>, size: Int) -> [RemoteFeedPage] {
        numbers.map { number in
            let ids = (size * (number - 1) + 1)...(size * number)
            let records =
                "[" + ids.map { User.remoteJSON(id: Int64($0), userName: "w\($0)") }.joined(separator: ",") + "]"
            return RemoteFeedPage(
                tables: ["users": RemoteFeedChanges(records: Data(records.utf8))],
                nextCursor: SyncCursor(rawValue: String(number)), hasMore: true)
        }
    }
}
