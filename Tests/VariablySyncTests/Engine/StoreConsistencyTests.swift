import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// Randomized runs over users, posts and comments, pulled table by table or (odd seeds) as one feed
/// in checkpoints, with 20% transient faults (half of the failed
/// pushes applied with their answer lost) and duplicated pages: local creates (references to new
/// records included), edits and deletions (cascading), server-side edits, creates and leaf deletions,
/// and a store sync after each round, while an observer reads the cache. The simulated servers get the
/// foreign keys a real backend has from ``ServerCascade``: a deletion pushed or made there cascades
/// (and empties replies' references) as the declared references do. Other clients also reply to comments
/// and edit the comment replied to afterwards (the reply is served first), and now and then soft-delete
/// a post alone, keeping its comments and editing one (orphans the server keeps).
///
/// Checked: an observer never sees an orphan; after the faults stop, the cache and every server hold
/// the same records (no local change lost, none applied twice, nothing left queued).
/// `VARIABLY_STORE_RUNS=10000 swift test --filter StoreConsistencyTests` runs more seeds;
/// `VARIABLY_STORE_SEED=n` runs one, and `VARIABLY_STORE_TRACE=1` prints each of its syncs.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct StoreConsistencyTests {
    static let runs: [UInt64] = {
        if let seed = ProcessInfo.processInfo.environment["VARIABLY_STORE_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = ProcessInfo.processInfo.environment["VARIABLY_STORE_RUNS"].flatMap(Int.init) ?? 12
        return (0..<UInt64(max(count, 1))).map { $0 }
    }()

    /// The figures of the runs so far, printed at the end of each.
    actor Tally {
        var runs = 0
        var orphansSeen = 0
        var reads = 0
        var failedSyncs = 0
        var lost = 0

        func add(orphans: Int, reads: Int, failedSyncs: Int, lost: Int) {
            runs += 1
            orphansSeen += orphans
            self.reads += reads
            self.failedSyncs += failedSyncs
            self.lost += lost
        }

        var line: String {
            "[reliability] store: \(runs) randomized run(s), \(reads) observer reads, \(orphansSeen) orphans seen, "
                + "\(failedSyncs) syncs failed on faults and retried later, \(lost) records lost or diverged"
        }
    }

    static let tally = Tally()

    @Test(arguments: runs)
    func noOrphanNoLossNoDoubleApplyUnderFaults(seed: UInt64) async throws {
        var random = SeededRandomNumberGenerator(seed: seed)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "store-consistency-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Checkpoints as by default (the runs' few pages never reach 1,000), or after every couple of WAL
        // pages, in the background or in the commit: the graph stays whole whenever they run.
        var configuration = Configuration()
        switch seed % 3 {
        case 1: configuration.checkpoints = .inBackground(afterPages: 2)
        case 2: configuration.checkpoints = .onCommit(afterPages: 2)
        default: break
        }
        let database = try SQLiteDatabase(
            path: folder.appendingPathComponent("cache.sqlite").path, configuration: configuration)

        // Every fourth seed, servers that ignore idempotency keys, as most web frameworks do: a push
        // applied with its answer lost is applied again when retried, and meets its own write.
        let faults = SimulatedFaults(
            transientErrorRate: 0.2, duplicatePageRate: 0.1, ignoresIdempotencyKeys: seed % 4 == 3)
        let clock = SimulatedClock()
        let userServer = try SimulatedServer(
            records: (1...5).map { User(id: $0, userName: "w\($0)") }, seed: seed, faults: faults, clock: clock)
        let postServer = try SimulatedServer(
            records: (1...10).map { Post(id: 100 + $0, authorID: ($0 % 5) + 1, title: "e\($0)") }, seed: seed &+ 1,
            faults: faults,
            clock: clock)
        let commentServer = try SimulatedServer(
            records: (1...20).map { Comment(id: 1_000 + $0, postID: 100 + ($0 % 10) + 1, body: "r\($0)") },
            seed: seed &+ 2,
            faults: faults, clock: clock)
        // Odd seeds pull one feed of the three tables, in checkpoints of two pages; even seeds each table.
        let usesFeed = seed % 2 == 1
        let feed = SimulatedChangeFeed(userServer, postServer, commentServer, seed: seed &+ 3, faults: faults)
        let retries = RetryPolicy(
            maxAttempts: 4, initialDelay: .microseconds(10), maxDelay: .microseconds(50), seed: seed)
        // The servers' own foreign keys: a pushed deletion cascades there as it did here.
        let cascade = ServerCascade(users: userServer, posts: postServer, comments: commentServer)
        let users = try Repository(
            database: database, remote: CascadingRemote(userServer, cascade: cascade),
            configuration: SyncConfiguration(pageSize: 4, retryPolicy: retries))
        let posts = try Repository(
            database: database, remote: CascadingRemote(postServer, cascade: cascade),
            configuration: SyncConfiguration(pageSize: 4, retryPolicy: retries))
        let comments = try Repository(
            database: database, remote: CascadingRemote(commentServer, cascade: cascade),
            configuration: SyncConfiguration(pageSize: 4, retryPolicy: retries))
        let store =
            try usesFeed
            ? SyncStore(
                comments, posts, users, feed: feed,
                configuration: ChangeFeedConfiguration(pageSize: 4, batchSize: 8, retryPolicy: retries))
            : SyncStore(comments, posts, users)

        // The observer: orphans in any snapshot it reads.
        let observer = Task.detached { () -> (orphans: Int, reads: Int) in
            var orphans = 0
            var reads = 0
            while !Task.isCancelled {
                let found: SQLValue?
                do {
                    found = try await database.read { db in
                        try db.fetchValue(
                            sql: """
                                SELECT (SELECT count(*) FROM "posts" WHERE "author_id" NOT IN (SELECT "id" FROM "users"))
                                + (SELECT count(*) FROM "comments" WHERE "post_id" NOT IN (SELECT "id" FROM "posts"))
                                + (SELECT count(*) FROM "comments" WHERE "reply_to" IS NOT NULL
                                    AND "reply_to" NOT IN (SELECT "id" FROM "comments"))
                                + (SELECT count(*) FROM "users" WHERE "favorite_post_id" IS NOT NULL
                                    AND "favorite_post_id" NOT IN (SELECT "id" FROM "posts"))
                                """)
                    }
                } catch is CancellationError {
                    break
                }
                if case .integer(let count)? = found { orphans += Int(count) }
                reads += 1
                await Task.yield()
            }
            return (orphans, reads)
        }

        var failedSyncs = 0
        var nextID: Int64 = 10_000
        func newID() -> Int64 {
            nextID += 1
            return nextID
        }
        for _ in 0..<6 {
            // Local work, in a few transactions.
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let cachedUsers = try await users.fetch().map(\.id)
                let cachedPosts = try await posts.fetch().map(\.id)
                let cachedComments = try await comments.fetch().map(\.id)
                let roll = Int.random(in: 0..<10, using: &random)
                let userID = newID(), postID = newID()
                let someUser = cachedUsers.randomElement(using: &random)
                let somePost = cachedPosts.randomElement(using: &random)
                let someComment = cachedComments.randomElement(using: &random)
                let replyID = newID(), commentID = newID()
                try await database.write { db in
                    switch roll {
                    case 0, 1:
                        // A new user with a post and a comment, children written first; sometimes a cycle.
                        try db.upsert(Comment(id: commentID, postID: postID, body: "new"))
                        try db.upsert(Post(id: postID, authorID: userID, title: "new"))
                        try db.upsert(User(id: userID, userName: "new", favoritePostID: roll == 0 ? postID : nil))
                    case 2, 3:
                        if let somePost {
                            try db.upsert(Comment(id: commentID, postID: somePost, body: "on an old post"))
                            try db.upsert(
                                Comment(id: replyID, postID: somePost, replyTo: commentID, body: "reply"))
                        }
                    case 4, 5:
                        if let someUser {
                            try db.execute(
                                sql: #"UPDATE "users" SET "user_name" = 'edited' WHERE "id" = ?"#,
                                arguments: [someUser])
                        }
                        if let someComment {
                            try db.execute(
                                sql: #"UPDATE "comments" SET "body" = 'edited' WHERE "id" = ?"#,
                                arguments: [someComment])
                        }
                    case 6:
                        if let somePost { _ = try db.delete(Post.self, id: somePost) }
                    case 7:
                        if let someUser { _ = try db.delete(User.self, id: someUser) }
                    default:
                        if let someComment { _ = try db.delete(Comment.self, id: someComment) }
                    }
                }
            }
            // Another client: edits, a new post with a comment, a leaf deleted.
            let serverUsers = await userServer.allRecords().map(\.id)
            if let user = serverUsers.randomElement(using: &random) {
                let postID = newID(), commentID = newID()
                _ = try await postServer.upsert(Post(id: postID, authorID: user, title: "from another client"))
                _ = try await commentServer.upsert(
                    Comment(id: commentID, postID: postID, body: "from another client"))
                try await userServer.update(id: user) { $0.userName = "renamed there" }
            }
            if let comment = await commentServer.allRecords().map(\.id).randomElement(using: &random) {
                try await cascade.deleteComment(comment)
            }
            // Another client replies, then edits the comment replied to: the reply is served first.
            if let post = await postServer.allRecords().map(\.id).randomElement(using: &random) {
                let parentID = newID(), replyID = newID()
                _ = try await commentServer.upsert(Comment(id: parentID, postID: post, body: "parent there"))
                _ = try await commentServer.upsert(
                    Comment(id: replyID, postID: post, replyTo: parentID, body: "reply there"))
                try await commentServer.update(id: parentID) { $0.body = "parent edited there" }
            }
            // Now and then a soft delete that marks a post only: the server keeps its comments (orphans),
            // and one of them is edited later.
            if Int.random(in: 0..<3, using: &random) == 0,
                let post = await postServer.allRecords().map(\.id).randomElement(using: &random)
            {
                await postServer.delete(id: post)
                if let orphan = await commentServer.allRecords().first(where: { $0.postID == post }) {
                    try await commentServer.update(id: orphan.id) { $0.body = "edited after its post went" }
                }
            }
            do {
                let report = try await store.sync()
                if ProcessInfo.processInfo.environment["VARIABLY_STORE_TRACE"] != nil {
                    print(
                        "sync:", report, report.for(User.self)?.conflicts ?? [],
                        report.for(Post.self)?.conflicts ?? [])
                }
            } catch { failedSyncs += 1 }
        }

        // The faults stop; syncs until nothing is left to push.
        for server in [userServer] as [SimulatedServer<User>] { await server.setFaults(SimulatedFaults()) }
        await postServer.setFaults(SimulatedFaults())
        await commentServer.setFaults(SimulatedFaults())
        await feed.setFaults(SimulatedFaults())
        var finalError: (any Error)?
        for _ in 0..<4 {
            // As an app does with a refused change once its record is mended (a reference the server's
            // deletion emptied here): send it again.
            for failure in try await users.failedChanges() { try await users.retry(failedChangeOf: failure.id) }
            for failure in try await posts.failedChanges() { try await posts.retry(failedChangeOf: failure.id) }
            for failure in try await comments.failedChanges() { try await comments.retry(failedChangeOf: failure.id) }
            do { try await store.sync() } catch { finalError = error }
        }
        if finalError != nil {
            // One more, to tell a fault left over from a sync that cannot complete.
            do { try await store.sync(); finalError = nil } catch { finalError = error }
        }
        if finalError != nil, ProcessInfo.processInfo.environment["VARIABLY_STORE_SEED"] != nil {
            print(
                "users here", try await users.fetch().map { "\($0.id)->\($0.favoritePostID.map(String.init) ?? "-")" })
            print(
                "users there",
                await userServer.allRecords().map { "\($0.id)->\($0.favoritePostID.map(String.init) ?? "-")" })
            print("posts here", try await posts.fetch().map { "\($0.id)->\($0.authorID)" })
            print("posts there", await postServer.allRecords().map { "\($0.id)->\($0.authorID)" })
            print(
                "comments here",
                try await comments.fetch().map { "\($0.id)->\($0.postID)/\($0.replyTo.map(String.init) ?? "-")" })
            print(
                "comments there",
                await commentServer.allRecords().map { "\($0.id)->\($0.postID)/\($0.replyTo.map(String.init) ?? "-")" })
            print(
                "queued", try await users.pendingChangeCount(), try await posts.pendingChangeCount(),
                try await comments.pendingChangeCount(),
                "failed", try await users.failedChanges(), try await posts.failedChanges(),
                try await comments.failedChanges())
            print("error", finalError.map { "\($0)" } ?? "")
            for repository in [
                await users.lastReport.map { "\($0)" }, await posts.lastReport.map { "\($0)" },
                await comments.lastReport.map { "\($0)" },
            ] {
                print("report", repository ?? "-")
            }
        }
        observer.cancel()
        let (orphans, reads) = try await observer.value

        // The server's live rows as the device keeps them: rows whose parent the server deleted while
        // keeping them are settled by their reference's rule (cascade: gone, set null: emptied).
        let live = await ServerCascade.settled(
            users: userServer.allRecords(), posts: postServer.allRecords(), comments: commentServer.allRecords())
        let usersMatch = Set(try await users.fetch()) == Set(live.users)
        let postsMatch = Set(try await posts.fetch()) == Set(live.posts)
        if !postsMatch, ProcessInfo.processInfo.environment["VARIABLY_STORE_SEED"] != nil {
            let local = Set(try await posts.fetch()), remote = Set(live.posts)
            print("posts only here: \(local.subtracting(remote)); only there: \(remote.subtracting(local))")
            print(
                "users here", try await users.fetch().map { "\($0.id)->\($0.favoritePostID.map(String.init) ?? "-")" })
            print(
                "users there",
                await userServer.allRecords().map { "\($0.id)->\($0.favoritePostID.map(String.init) ?? "-")" })
        }
        let commentsMatch = Set(try await comments.fetch()) == Set(live.comments)
        if !commentsMatch {
            let local = Set(try await comments.fetch()), remote = Set(live.comments)
            print("only here: \(local.subtracting(remote)); only there: \(remote.subtracting(local))")
            print(await comments.lastReport.map { "\($0)" } ?? "")
        }
        let queued = try await users.pendingChangeCount() + posts.pendingChangeCount() + comments.pendingChangeCount()
        let lost = [usersMatch, postsMatch, commentsMatch].filter { !$0 }.count + queued + (finalError == nil ? 0 : 1)
        await Self.tally.add(orphans: orphans, reads: reads, failedSyncs: failedSyncs, lost: lost)
        print(await Self.tally.line)

        #expect(finalError == nil, "the syncs after the faults stopped: \(finalError.map { "\($0)" } ?? "")")
        #expect(orphans == 0)
        #expect(usersMatch)
        #expect(postsMatch)
        #expect(commentsMatch)
        #expect(queued == 0)
    }
}

/// The foreign keys of the simulated servers, which have none of their own: a deletion of a user
/// deletes its posts, a post's deletion its comments, and a comment's deletion empties its replies'
/// reference, as the declared references do on the device; and a new write that references a record
/// the server does not have is refused, as a real server's foreign key refuses it (another client may
/// have deleted a parent the device pushed earlier).
actor ServerCascade {
    let users: SimulatedServer<User>
    let posts: SimulatedServer<Post>
    let comments: SimulatedServer<Comment>

    init(users: SimulatedServer<User>, posts: SimulatedServer<Post>, comments: SimulatedServer<Comment>) {
        (self.users, self.posts, self.comments) = (users, posts, comments)
    }

    func deleteUser(_ id: Int64) async throws {
        for post in await posts.allRecords() where post.authorID == id { try await deletePost(post.id) }
        await users.delete(id: id)
    }

    func deletePost(_ id: Int64) async throws {
        for user in await users.allRecords() where user.favoritePostID == id {
            try await users.update(id: user.id) { $0.favoritePostID = nil }
        }
        for comment in await comments.allRecords() where comment.postID == id { try await deleteComment(comment.id) }
        await posts.delete(id: id)
    }

    /// Why `json`, a record of `type` about to be written, cannot be: it references a record the server
    /// does not have (nor `alongside`, the records of its own table written before it in the same push).
    func missingReference(of type: Any.Type, json: Data, alongside: Set<Int64>) async throws -> String? {
        let decoder = JSONDecoder()
        switch type {
        case is User.Type:
            let user = try decoder.decode(User.self, from: json)
            if let post = user.favoritePostID, await posts.record(id: post) == nil { return "no post \(post)" }
        case is Post.Type:
            let post = try decoder.decode(Post.self, from: json)
            if await users.record(id: post.authorID) == nil { return "no user \(post.authorID)" }
        case is Comment.Type:
            let comment = try decoder.decode(Comment.self, from: json)
            if await posts.record(id: comment.postID) == nil { return "no post \(comment.postID)" }
            if let reply = comment.replyTo, !alongside.contains(reply), await comments.record(id: reply) == nil {
                return "no comment \(reply)"
            }
        default:
            break
        }
        return nil
    }

    /// The servers' live records with those that reference a deleted record settled by the reference's
    /// rule, as the device settles them: posts of a missing user and comments of a missing post are
    /// gone (cascade), a missing favourite post or replied-to comment is emptied (set null).
    static func settled(users: [User], posts: [Post], comments: [Comment]) -> (
        users: [User], posts: [Post], comments: [Comment]
    ) {
        let userIDs = Set(users.map(\.id))
        let keptPosts = posts.filter { userIDs.contains($0.authorID) }
        let postIDs = Set(keptPosts.map(\.id))
        let keptComments = comments.filter { postIDs.contains($0.postID) }
        let commentIDs = Set(keptComments.map(\.id))
        return (
            users.map { user in
                var user = user
                if let post = user.favoritePostID, !postIDs.contains(post) { user.favoritePostID = nil }
                return user
            },
            keptPosts,
            keptComments.map { comment in
                var comment = comment
                if let reply = comment.replyTo, !commentIDs.contains(reply) { comment.replyTo = nil }
                return comment
            }
        )
    }

    func deleteComment(_ id: Int64) async throws {
        for reply in await comments.allRecords() where reply.replyTo == id {
            try await comments.update(id: reply.id) { $0.replyTo = nil }
        }
        await comments.delete(id: id)
    }
}

/// A simulated server behind its ``ServerCascade``: each accepted deletion cascades there.
struct CascadingRemote<Model: VariablyCodable & Identifiable & Sendable>: RemoteSource where Model.ID == Int64 {
    let server: SimulatedServer<Model>
    let cascade: ServerCascade

    init(_ server: SimulatedServer<Model>, cascade: ServerCascade) { (self.server, self.cascade) = (server, cascade) }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        // New writes first meet the server's foreign keys; a change the server applied already is
        // answered as before (a replay).
        var refused: [String: String] = [:]
        var alongside: Set<Int64> = []
        for change in changes {
            guard case .upsert(let json) = change.operation,
                await !server.hasApplied(idempotencyKey: change.idempotencyKey)
            else { continue }
            if let reason = try await cascade.missingReference(of: Model.self, json: json, alongside: alongside) {
                refused[change.idempotencyKey] = "refused: \(reason)"
            } else {
                alongside.insert(change.id)
            }
        }
        let forwarded = changes.filter { refused[$0.idempotencyKey] == nil }
        var answers = (forwarded.isEmpty ? [] : try await server.push(forwarded)).makeIterator()
        let results = changes.map { change in
            refused[change.idempotencyKey].map {
                PushResult(idempotencyKey: change.idempotencyKey, id: change.id, outcome: .rejected(reason: $0))
            } ?? answers.next()!
        }
        for (change, result) in zip(changes, results) where change.operation == .delete {
            guard case .accepted = result.outcome else { continue }
            switch Model.self {
            case is User.Type: try await cascade.deleteUser(change.id)
            case is Post.Type: try await cascade.deletePost(change.id)
            case is Comment.Type: try await cascade.deleteComment(change.id)
            default: break
            }
        }
        return results
    }

    func currentRecord(id: Int64) async throws -> Data? {
        try await server.currentRecord(id: id)
    }

    var feedIdentifier: String { String(describing: Model.self) }
}
