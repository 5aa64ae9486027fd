import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// Users, posts and comments synced as one graph: pushes follow the references, a refused parent
/// holds its children, and a server-assigned id reaches the children before they are sent.
@Suite struct SyncStoreTests {
    struct Fixture {
        let database: SQLiteDatabase
        let log = PushLog()
        let users: Repository<User>
        let posts: Repository<Post>
        let comments: Repository<Comment>
        let userServer: SimulatedServer<User>
        let postServer: SimulatedServer<Post>
        let commentServer: SimulatedServer<Comment>
        let store: SyncStore

        /// One user (1) with one post (10) and one comment (100) on both sides; users named
        /// "refused" are refused by the server.
        init(numbering: LoggingRemote<User>.Numbering? = nil) async throws {
            database = try SQLiteDatabase.inMemory()
            userServer = try SimulatedServer(records: [User(id: 1, userName: "ada")], seed: 1) {
                $0.userName == "refused" ? "this name is refused" : nil
            }
            postServer = try SimulatedServer(records: [Post(id: 10, authorID: 1, title: "first")], seed: 2)
            commentServer = try SimulatedServer(records: [Comment(id: 100, postID: 10, body: "nice")], seed: 3)
            let configuration = SyncConfiguration<User>(retryPolicy: quickRetries)
            users = try Repository(
                database: database, remote: LoggingRemote(userServer, log: log, table: "users", numbering: numbering),
                configuration: configuration)
            posts = try Repository(
                database: database, remote: LoggingRemote(postServer, log: log, table: "posts"),
                configuration: SyncConfiguration(retryPolicy: quickRetries))
            comments = try Repository(
                database: database, remote: LoggingRemote(commentServer, log: log, table: "comments"),
                configuration: SyncConfiguration(retryPolicy: quickRetries))
            // Given children first: the store orders them.
            store = try SyncStore(comments, posts, users)
            try await store.sync()
        }
    }

    @Test func savesGoParentsFirstAndDeletionsChildrenFirst() async throws {
        let fixture = try await Fixture()
        // Written children first, in one transaction: the references are checked when it commits.
        try await fixture.database.write { db in
            try db.upsert([
                Comment(id: 200, postID: 20, body: "reply"),
                Comment(id: 201, postID: 20, replyTo: 200, body: "re"),
            ])
            try db.upsert(Post(id: 20, authorID: 2, title: "second"))
            try db.upsert(User(id: 2, userName: "grace"))
        }
        // Deleting the first post deletes its comment too (cascade): both deletions are queued.
        try await fixture.posts.delete(id: 10)
        #expect(try await fixture.comments.fetch(id: 100) == nil)

        let report = try await fixture.store.sync()
        let log = await fixture.log.entries
        #expect(
            log == [
                "users save 2", "posts save 20", "comments save 200", "comments save 201", "comments delete 100",
                "posts delete 10",
            ])
        #expect(report.for(User.self)?.pushed == 1)
        #expect(report.for(Post.self)?.pushed == 2)
        #expect(report.for(Comment.self)?.pushed == 3)
        #expect(await fixture.commentServer.record(id: 201)?.replyTo == 200)
        #expect(await fixture.postServer.record(id: 10) == nil)
        #expect(await fixture.commentServer.record(id: 100) == nil)
        #expect(try await fixture.comments.pendingChangeCount() == 0)
    }

    /// A user the server refuses holds its post, and the post its comment: neither is sent nor
    /// deleted, both are reported with the user's refusal, and they go once the user is fixed.
    @Test func aRefusedParentHoldsItsChildren() async throws {
        let fixture = try await Fixture()
        try await fixture.database.write { db in
            try db.upsert(User(id: 3, userName: "refused"))
            try db.upsert(Post(id: 30, authorID: 3, title: "held"))
            try db.upsert(Comment(id: 300, postID: 30, body: "held too"))
        }
        let report = try await fixture.store.sync()
        #expect(report.for(User.self)?.failed.map(\.reason) == ["this name is refused"])
        let held = try #require(report.for(Post.self)?.waitingForParent.first)
        #expect(held.id == 30)
        #expect(
            held.reason
                == "waiting for its parent: it references users 3, which the server refused: this name is refused")
        #expect(report.for(Comment.self)?.waitingForParent.map(\.id) == [300])
        #expect(await fixture.log.entries == ["users save 3"])
        #expect(try await fixture.posts.fetch(id: 30) != nil)
        #expect(try await fixture.comments.pendingChangeCount() == 1)

        try await fixture.users.save(User(id: 3, userName: "fixed"))
        let fixed = try await fixture.store.sync()
        #expect(fixed.for(Post.self)?.waitingForParent.isEmpty == true)
        #expect(await fixture.log.entries == ["users save 3", "users save 3", "posts save 30", "comments save 300"])
        #expect(await fixture.commentServer.record(id: 300)?.body == "held too")
    }

    /// The server wins a conflict over a user whose favourite post was deleted here, that deletion
    /// still to push: the user's copy comes back with its favourite emptied (what the deletion does
    /// there too), and the user's other posts stay: dropping the user would have taken them with it.
    @Test func aServerCopyReferencingARecordDeletedHereKeepsTheOtherChildren() async throws {
        let database = try SQLiteDatabase.inMemory()
        let userServer = try SimulatedServer(records: [User(id: 1, userName: "ada")], seed: 1)
        let postServer = try SimulatedServer(
            records: [
                Post(id: 10, authorID: 1, title: "first"), Post(id: 11, authorID: 1, title: "favourite"),
            ], seed: 2)
        let commentServer = try SimulatedServer(records: [Comment(id: 100, postID: 10, body: "nice")], seed: 3)
        // The servers' own foreign keys: the post's deletion empties the user's favourite there.
        let cascade = ServerCascade(users: userServer, posts: postServer, comments: commentServer)
        let configuration = SyncConfiguration<User>(retryPolicy: quickRetries)
        let users = try Repository(
            database: database, remote: CascadingRemote(userServer, cascade: cascade), configuration: configuration)
        let posts = try Repository(database: database, remote: CascadingRemote(postServer, cascade: cascade))
        let comments = try Repository(database: database, remote: CascadingRemote(commentServer, cascade: cascade))
        let store = try SyncStore(comments, posts, users)
        try await store.sync()
        try await userServer.update(id: 1) { $0.favoritePostID = 11 }
        try await store.sync()
        #expect(try await users.fetch(id: 1)?.favoritePostID == 11)

        try await users.save(User(id: 1, userName: "edited here", favoritePostID: 11))
        try await posts.delete(id: 11)
        try await userServer.update(id: 1) { $0.userName = "renamed there" }
        let report = try await store.sync()
        #expect(report.for(User.self)?.conflicts.map(\.resolution) == [.keptServer])
        let user = try await users.fetch(id: 1)
        #expect(user?.userName == "renamed there" && user?.favoritePostID == nil)
        #expect(try await posts.fetch(id: 10)?.title == "first")
        #expect(try await comments.fetch(id: 100) != nil)
        #expect(await postServer.record(id: 11) == nil)
        #expect(Set(try await users.fetch()) == Set(await userServer.allRecords()))
        #expect(Set(try await posts.fetch()) == Set(await postServer.allRecords()))
    }

    /// Another client writes a user and its post after this sync pulled the users and before it
    /// pulls the posts: the post's page is refused (no orphan is ever committed), the users are
    /// pulled again, then the posts.
    @Test func aChildPulledBeforeItsParentWaitsForIt() async throws {
        let database = try SQLiteDatabase.inMemory()
        let log = PushLog()
        let userServer = try SimulatedServer(records: [User(id: 1, userName: "ada")], seed: 1)
        let postServer = try SimulatedServer(records: [Post(id: 10, authorID: 1, title: "first")], seed: 2)
        let raced = Once()
        let users = try Repository(
            database: database, remote: LoggingRemote(userServer, log: log, table: "users"),
            configuration: SyncConfiguration(retryPolicy: quickRetries))
        let posts = try Repository(
            database: database,
            remote: LoggingRemote(postServer, log: log, table: "posts") {
                guard await raced.first() else { return }
                _ = try await userServer.upsert(User(id: 7, userName: "late"))
                _ = try await postServer.upsert(Post(id: 70, authorID: 7, title: "by a late user"))
            },
            configuration: SyncConfiguration(retryPolicy: quickRetries))
        let store = try SyncStore(posts, users)
        let report = try await store.sync()
        #expect(try await posts.fetch(id: 70)?.authorID == 7)
        #expect(try await users.fetch(id: 7)?.userName == "late")
        #expect(report.for(Post.self)?.parked == 0)
        try await expectNoBrokenReferences(database)
        // Synced alone, a child whose parent the server does not have (a server without foreign keys)
        // is parked, unseen, and the cursor moves on; the look-up of its parent answers "none", and the
        // reference's rule (`.cascade`) settles it: not kept.
        _ = try await postServer.upsert(Post(id: 71, authorID: 8, title: "orphan on the server"))
        _ = try await postServer.upsert(Post(id: 72, authorID: 1, title: "after the orphan"))
        let alone = try await posts.sync()
        #expect(alone.parked == 0)
        #expect(try await posts.fetch(id: 71) == nil)
        #expect(try await posts.fetch(id: 72)?.title == "after the orphan")
        try await expectNoBrokenReferences(database)
    }

    /// A store's sync of three tables is one run: its stream says `.started` once and `.finished` once,
    /// last, with the pushes and batches between; each repository's own stream tells its table's part
    /// once too, not once per step.
    @Test func aStoreSyncIsOneRunWithOneProgressStream() async throws {
        let fixture = try await Fixture()
        try await fixture.posts.save(Post(id: 11, authorID: 1, title: "second"))
        let storeEvents = EventLog<SyncStoreProgress>()
        let postEvents = EventLog<SyncProgress<Int64>>()
        let storeStream = fixture.store.progressUpdates()
        let postStream = fixture.posts.progressUpdates()
        let storeTask = Task { for await event in storeStream { await storeEvents.append(event) } }
        let postTask = Task { for await event in postStream { await postEvents.append(event) } }
        let report = try await fixture.store.sync()
        try await Task.sleep(for: .milliseconds(100))
        storeTask.cancel()
        postTask.cancel()
        let events = await storeEvents.events
        #expect(events.filter { if case .started = $0 { true } else { false } }.count == 1)
        #expect(events.filter { if case .finished = $0 { true } else { false } }.count == 1)
        guard case .started(let pending)? = events.first, case .finished(let finished)? = events.last else {
            Issue.record("the stream did not start with .started and end with .finished: \(events)")
            return
        }
        #expect(pending == 1)
        #expect(finished.for(Post.self)?.pushed == 1)
        #expect(report.for(Post.self)?.pushed == 1)
        #expect(events.contains { if case .pushed("posts", 1, 0) = $0 { true } else { false } })
        let posts = await postEvents.events
        #expect(posts.filter { if case .started = $0 { true } else { false } }.count == 1)
        #expect(posts.filter { if case .finished = $0 { true } else { false } }.count == 1)
        #expect(await fixture.store.lastReport?.for(Post.self)?.pushed == 1)
    }

    /// Another client writes new authors, their posts and comments on them while this device's first
    /// store sync runs, after the users and posts were pulled: each comment is parked, its post looked
    /// up, parked in turn for its new author, whose look-up brings the whole chain in the same sync. More
    /// of them than any fixed number of look-ups, and every record applied is counted in the report.
    @Test func newParentsAndGrandparentsWrittenDuringAFirstStoreSyncAreCachedByIt() async throws {
        let database = try SQLiteDatabase.inMemory()
        let log = PushLog()
        let userServer = try SimulatedServer(records: [User(id: 1, userName: "ada")], seed: 1)
        let postServer = try SimulatedServer(records: [Post(id: 10, authorID: 1, title: "first")], seed: 2)
        let commentServer = try SimulatedServer(records: [Comment(id: 100, postID: 10, body: "nice")], seed: 3)
        let written = Once()
        let newAuthors = Int64(60)
        let users = try Repository(
            database: database, remote: LoggingRemote(userServer, log: log, table: "users"),
            configuration: SyncConfiguration(retryPolicy: quickRetries))
        let posts = try Repository(
            database: database, remote: LoggingRemote(postServer, log: log, table: "posts"),
            configuration: SyncConfiguration(retryPolicy: quickRetries))
        let comments = try Repository(
            database: database,
            remote: LoggingRemote(commentServer, log: log, table: "comments") {
                guard await written.first() else { return }
                for author in 2...(1 + newAuthors) {
                    _ = try await userServer.upsert(User(id: author, userName: "new \(author)"))
                    _ = try await postServer.upsert(Post(id: author * 10, authorID: author, title: "by \(author)"))
                    _ = try await commentServer.upsert(
                        Comment(id: author * 100, postID: author * 10, authorID: author, body: "on \(author)"))
                }
            },
            configuration: SyncConfiguration(pageSize: 25, retryPolicy: quickRetries))
        let store = try SyncStore(comments, posts, users)
        let report = try await store.sync()
        #expect(try await users.count() == Int(1 + newAuthors))
        #expect(try await posts.count() == Int(1 + newAuthors))
        #expect(try await comments.count() == Int(1 + newAuthors))
        #expect(try await comments.fetch(id: 6_100)?.postID == 610)
        // The report adds up: what each table inserted is what it caches, look-ups included.
        #expect(report.for(User.self)?.inserted == Int(1 + newAuthors))
        #expect(report.for(Post.self)?.inserted == Int(1 + newAuthors))
        #expect(report.for(Comment.self)?.inserted == Int(1 + newAuthors))
        #expect(report.for(Comment.self)?.parked == 0)
        #expect(report.for(Post.self)?.parked == 0)
        try await expectNoBrokenReferences(database)
    }

    /// docs/relationships.md, "Syncing the graph", on a file in a temporary folder.
    @Test func theRelationshipsPageExample() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let databasePath = folder.appendingPathComponent("blog.sqlite").path
        let usersRemote = try SimulatedServer(records: [User(id: 1, userName: "ada")])
        let postsRemote = try SimulatedServer(records: [Post(id: 10, authorID: 1, title: "first")])
        let commentsRemote = try SimulatedServer(records: [Comment(id: 100, postID: 10, body: "nice")])

        let database = try SQLiteDatabase(path: databasePath)
        let users = try Repository<User>(database: database, remote: usersRemote)
        let posts = try Repository<Post>(database: database, remote: postsRemote)
        let comments = try Repository<Comment>(database: database, remote: commentsRemote)
        let store = try SyncStore(comments, posts, users)  // any order: the references give it
        let report = try await store.sync()
        print(report.for(Post.self)?.waitingForParent ?? [])

        #expect(report.for(Comment.self)?.inserted == 1)
        #expect(try await comments.fetch(id: 100)?.postID == 10)
    }

    /// A user and a post created offline that reference each other: the user is created with its
    /// favourite empty, then the post, then the user's favourite is set.
    @Test func aCycleThroughAnOptionalReferenceIsCreatedEmptyThenCompleted() async throws {
        let fixture = try await Fixture()
        try await fixture.database.write { db in
            try db.upsert(User(id: 5, userName: "cyclic", favoritePostID: 50))
            try db.upsert(Post(id: 50, authorID: 5, title: "favourite"))
        }
        let report = try await fixture.store.sync()
        #expect(await fixture.log.entries == ["users save 5", "posts save 50", "users save 5"])
        #expect(report.for(User.self)?.waitingForParent.isEmpty == true)
        #expect(report.for(Post.self)?.waitingForParent.isEmpty == true)
        #expect(await fixture.userServer.record(id: 5)?.favoritePostID == 50)
        #expect(await fixture.postServer.record(id: 50)?.authorID == 5)
        #expect(try await fixture.users.pendingChangeCount() == 0)
        #expect(try await fixture.users.fetch(id: 5)?.favoritePostID == 50)
    }

    /// The server deletes a post (and its comments, as declared): the pull's deletion cascades to the
    /// cached comments, and nothing of it is pushed back.
    @Test func aServerDeletionCascadesHereWithoutBeingPushedBack() async throws {
        let fixture = try await Fixture()
        await fixture.postServer.delete(id: 10)
        await fixture.commentServer.delete(id: 100)
        try await fixture.posts.sync()
        #expect(try await fixture.comments.fetch(id: 100) == nil)
        #expect(try await fixture.comments.pendingChangeCount() == 0)
        try await fixture.store.sync()
        #expect(await fixture.log.entries.isEmpty)
    }

    /// A comment edited here whose post the server deleted, pulled first: the cascade removed it, and
    /// its queued edit is reported as a conflict the server won, not dropped silently.
    @Test func anEditCascadedAwayByAPulledDeletionIsReported() async throws {
        let fixture = try await Fixture()
        try await fixture.comments.save(Comment(id: 100, postID: 10, body: "edited here"))
        await fixture.postServer.delete(id: 10)
        try await fixture.posts.sync()
        #expect(try await fixture.comments.fetch(id: 100) == nil)
        let report = try await fixture.comments.sync()
        #expect(report.conflicts.map(\.id) == [100])
        #expect(report.conflicts.first?.resolution == .keptServer)
        #expect(try await fixture.comments.pendingChangeCount() == 0)
    }

    /// Posts with their comments in one snapshot, through the declared reference.
    @Test func postsComeWithTheirComments() async throws {
        let fixture = try await Fixture()
        try await fixture.database.write { db in
            try db.upsert(Post(id: 11, authorID: 1, title: "second"))
            try db.upsert([
                Comment(id: 103, postID: 10, body: "c"),
                Comment(id: 102, postID: 10, replyTo: 103, body: "b"),
            ])
        }
        let posts = fixture.posts
        let feed = try await posts.fetch(
            where: #Predicate { $0.authorID == 1 }, sortedBy: [SortDescriptor(\.id)], including: Comment.self,
            by: \.postID)
        for entry in feed { print(entry.parent.title, entry.children.count) }
        #expect(feed.map(\.parent.id) == [10, 11])
        #expect(feed.map { $0.children.map(\.id) } == [[100, 102, 103], []])
        // Through an optional reference: the replies of each comment.
        let threads = try await fixture.comments.fetch(including: Comment.self, by: \.replyTo)
        #expect(threads.first { $0.parent.id == 103 }?.children.map(\.id) == [102])
    }

    /// An observed feed of posts with their comments: a new comment on one of them is a new value.
    @Test func anObservedFeedFollowsItsChildren() async throws {
        let fixture = try await Fixture()
        let posts = fixture.posts
        var updates = posts.observe(where: #Predicate { $0.authorID == 1 }, including: Comment.self, by: \.postID)
            .makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.map { $0.children.map(\.id) } == [[100]])
        try await fixture.comments.save(Comment(id: 101, postID: 10, body: "another"))
        let second = try #require(try await updates.next())
        #expect(second.map { $0.children.map(\.id) } == [[100, 101]])
    }

    /// A reply to a comment created in the same sync: the repository alone sends the comment first.
    @Test func aSelfReferenceGoesParentFirstInOneSync() async throws {
        let fixture = try await Fixture()
        try await fixture.database.write { db in
            try db.upsert(Comment(id: 402, postID: 10, replyTo: 401, body: "second"))
            try db.upsert(Comment(id: 401, postID: 10, replyTo: 400, body: "first"))
            try db.upsert(Comment(id: 400, postID: 10, body: "root"))
        }
        let report = try await fixture.comments.sync()
        #expect(report.pushed == 3)
        #expect(report.waitingForParent.isEmpty)
        #expect(await fixture.log.entries == ["comments save 400", "comments save 401", "comments save 402"])
    }

    /// A user created here with a provisional id: the server's id replaces it in the post before the
    /// post is sent, and the post's server copy names the user by the server's id.
    @Test func aServerAssignedIDReachesTheChildrenBeforeTheyAreSent() async throws {
        let numbering = LoggingRemote<User>.Numbering(from: 500)
        let fixture = try await Fixture(numbering: numbering)
        let user = try await fixture.users.create { User(id: $0, userName: "new") }
        #expect(user.id == -1)
        try await fixture.posts.save(Post(id: 50, authorID: user.id, title: "by a new user"))
        // Synced alone, the post waits for its user.
        let alone = try await fixture.posts.sync()
        #expect(alone.waitingForParent.map(\.id) == [50])
        #expect(
            alone.waitingForParent.first?.reason
                == "waiting for its parent: it references users -1, which the server does not have yet")

        try await fixture.store.sync()
        #expect(await fixture.postServer.record(id: 50)?.authorID == 500)
        #expect(try await fixture.users.fetch(id: 500)?.userName == "new")
        #expect(try await fixture.users.fetch(id: -1) == nil)
        #expect(try await fixture.posts.fetch(id: 50)?.authorID == 500)
        #expect(try await fixture.posts.pendingChangeCount() == 0)
        #expect(try await fixture.users.pendingChangeCount() == 0)
    }
}

/// True the first time only.
actor Once {
    private var isUsed = false

    func first() -> Bool {
        defer { isUsed = true }
        return !isUsed
    }
}

/// Events of a progress stream, in order.
actor EventLog<Event: Sendable> {
    private(set) var events: [Event] = []

    func append(_ event: Event) { events.append(event) }
}
