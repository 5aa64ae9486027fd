import Foundation
import Testing
import UserSyncModels
import VariablySQLite
@testable import VariablySync
import VariablySyncTesting

/// A cache written by commit 84401b4 (see `Fixtures/README.md`), opened by this version: the named
/// steps it lacks run, every kind of state survives, and a sync against the server loses nothing.
@Suite struct SyncStateUpgradeTests {
    /// The fixture's servers again (the same records on one clock, so the same positions), with post
    /// 77 written since: the parent that comment 999 waits for.
    struct Fixture {
        let folder: URL
        let database: SQLiteDatabase
        let userServer: SimulatedServer<User>
        let postServer: SimulatedServer<Post>
        let commentServer: SimulatedServer<Comment>
        let feed: RecordingFeed
        let users: Repository<User>
        let posts: Repository<Post>
        let comments: Repository<Comment>
        let store: SyncStore

        /// Opens a copy of the fixture: the repositories run the schema's steps.
        init() async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("upgrade-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let fixture = try #require(Bundle.module.url(forResource: "cache-84401b4", withExtension: "db"))
            let path = folder.appendingPathComponent("cache.sqlite")
            try FileManager.default.copyItem(at: fixture, to: path)
            database = try SQLiteDatabase(path: path.path)
            let clock = SimulatedClock()
            let day = Date(timeIntervalSince1970: 1_700_000_000)
            let users = (1...3).map { User(id: Int64($0), userName: "user \($0)") }
            let posts = users.flatMap { user in
                [0, 1].map {
                    Post(id: user.id * 10 + $0, authorID: user.id, title: "post", updatedAt: day.addingTimeInterval(60))
                }
            }
            let comments =
                posts.map { Comment(id: $0.id * 10, postID: $0.id, body: "on \($0.id)") }
                + [Comment(id: 999, postID: 77, body: "on a post to come")]
            userServer = try SimulatedServer(
                records: users, seed: 1, validate: { $0.userName == "refused" ? "user_name is reserved" : nil },
                clock: clock)
            postServer = try SimulatedServer(records: posts, seed: 2, clock: clock)
            commentServer = try SimulatedServer(records: comments, seed: 3, clock: clock)
            _ = try await postServer.upsert(Post(id: 77, authorID: 2, title: "the parent", updatedAt: day))
            feed = RecordingFeed(SimulatedChangeFeed(userServer, postServer, commentServer, seed: 4))
            let configuration = SyncConfiguration<User>(retryPolicy: quickRetries)
            self.users = try Repository(database: database, remote: userServer, configuration: configuration)
            self.posts = try Repository(
                database: database, remote: VersionedSource(postServer),
                configuration: SyncConfiguration(retryPolicy: quickRetries))
            self.comments = try Repository(
                database: database, remote: commentServer, configuration: SyncConfiguration(retryPolicy: quickRetries))
            store = try SyncStore(self.comments, self.posts, self.users, feed: feed)
        }

        func remove() {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func anOldCacheRunsTheStepsItLacks() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let migrator = SyncStateSchema.migrator
        let (applied, feedRows, feed) = try await fixture.database.read { db in
            try (
                migrator.appliedIdentifiers(in: db),
                db.fetchValue(sql: #"SELECT count(*) FROM "variably_sync_state" WHERE "table_name" LIKE 'variably%'"#),
                FeedPosition(tables: ["users", "posts", "comments"]).row(db)
            )
        }
        #expect(applied == Set(migrator.identifiers))
        #expect(feedRows == .integer(0))
        #expect(feed?.cursor == "16")
        #expect(feed?.feed == "SimulatedChangeFeed(users,posts,comments)")
        #expect(try await fixture.store.feedCursor() == SyncCursor(rawValue: "16"))
        #expect(try await fixture.users.cursor() == SyncCursor(rawValue: "16"))
    }

    @Test func everyKindOfQueuedChangeKeepsItsState() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let users = try await fixture.users.unsentChanges().map { ($0.recordID, $0.isNew, $0.status) }
        #expect(users.count == 3)
        #expect(users[0].0 == "1" && users[0].2 == .refused("user_name is reserved"))
        #expect(users[1].0 == "2" && users[1].2 == .queued && !users[1].1)
        #expect(users[2].0 == "4" && users[2].2 == .queued && users[2].1)
        #expect(try await fixture.users.failedChanges().map(\.id) == [1])
        #expect(try await fixture.posts.unsentChanges().map(\.status) == [.awaitingAnswer])
        let comments = try await fixture.comments.unsentChanges()
        #expect(comments.map(\.recordID) == ["100", "200"])
        #expect(comments.map(\.isDeletion) == [false, true])
        // The retry time of comment 100 has passed since the fixture was written: it goes with the next sync.
        let retrying = try await fixture.database.read { db in
            try SyncStateStore(table: "comments").queuedRows(where: #""record_id" = '100'"#, db)
        }
        #expect(retrying.first?.attempts == 1)
        #expect(retrying.first?.isSent == true)
        #expect(retrying.first?.lastError?.contains("503") == true)
    }

    @Test func recordVersionsAndParkedRecordsSurvive() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let (versions, parked) = try await fixture.database.read { db in
            try (
                SyncStateStore(table: "posts").recordVersions(db),
                ParkedRecords(table: "comments").parkedRecords(in: .waiting, db)
            )
        }
        #expect(versions.count == 6)
        #expect(versions[StoredRecordID(rawValue: "10")] == #"v:"2023-11-14T22:14:20.000Z""#)
        #expect(parked.map(\.recordID.rawValue) == ["999"])
        #expect(parked.first?.parents == #"{"post_id":77}"#)
    }

    @Test func aSyncOfTheUpgradedCacheLosesNothing() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        _ = try await fixture.store.sync()
        // The feed went on from the position it had, rather than starting over.
        #expect(await fixture.feed.cursors.first == SyncCursor(rawValue: "16"))
        #expect(await fixture.userServer.record(id: 2)?.userName == "renamed")
        #expect(await fixture.userServer.record(id: 4)?.userName == "new")
        #expect(await fixture.userServer.record(id: 1)?.userName == "user 1")
        #expect(await fixture.postServer.record(id: 10)?.title == "edited, answer lost")
        #expect(await fixture.commentServer.record(id: 100)?.body == "edited while the server failed")
        #expect(await fixture.commentServer.record(id: 200) == nil)
        // Comment 999's parent came: it left the parked records for the cache.
        #expect(try await fixture.comments.fetch(id: 999)?.postID == 77)
        let parked = try await fixture.database.read { try ParkedRecords.parkedRecordCount($0) }
        #expect(parked == 0)
        // The refused change still waits for the app; nothing else is left.
        #expect(try await fixture.users.unsentChanges().map(\.recordID) == ["1"])
        #expect(try await fixture.posts.unsentChanges().isEmpty)
        #expect(try await fixture.comments.unsentChanges().isEmpty)
        #expect(try await fixture.posts.fetch().count == (await fixture.postServer.allRecords()).count)
        #expect(try await fixture.comments.fetch().count == (await fixture.commentServer.allRecords()).count)
        #expect(try await fixture.users.fetch().count == (await fixture.userServer.allRecords()).count)
    }
}

/// A simulated server whose records carry versions in `updated_at`, as the fixture's posts did.
actor VersionedSource<Model: SQLiteStorable & Identifiable & Sendable>: RemoteSource, RecordVersionedSource
where Model.ID: Codable & Sendable {
    let server: SimulatedServer<Model>
    nonisolated var recordVersionField: String? { "updated_at" }
    nonisolated var deletionVersionField: String? { nil }
    nonisolated var deletionBasePrefix: String { "v:" }

    init(_ server: SimulatedServer<Model>) {
        self.server = server
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Model.ID> {
        try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Model.ID>]) async throws -> [PushResult<Model.ID>] {
        // The simulated server knows its own positions only: a change based on a record version goes
        // unconditionally.
        try await server.push(
            changes.map { change in
                var change = change
                if change.baseVersion?.rawValue.hasPrefix(deletionBasePrefix) == true { change.baseVersion = nil }
                return change
            })
    }

    func currentRecord(id: Model.ID) async throws -> Data? {
        try await server.currentRecord(id: id)
    }
}

/// A feed that remembers the cursors it was asked to pull after.
actor RecordingFeed: RemoteChangeFeed {
    let feed: SimulatedChangeFeed
    private(set) var cursors: [SyncCursor?] = []
    nonisolated var feedIdentifier: String { feed.feedIdentifier }

    init(_ feed: SimulatedChangeFeed) {
        self.feed = feed
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemoteFeedPage {
        cursors.append(cursor)
        return try await feed.pull(after: cursor, limit: limit)
    }
}
