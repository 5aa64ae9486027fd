// Writes `cache-84401b4.db`, the cache of the upgrade test, with the code of commit 84401b4: not
// compiled with this package. See README.md in this folder for how it was run.
import Foundation
import UserSyncModels
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// A simulated server as a repository sees it, with the failures the fixture needs: pushes that fail,
/// look-ups that fail, and record versions read from a field (`updated_at`).
actor FixtureSource<Model: SQLiteStorable & Identifiable & Sendable>: RemoteSource, RecordVersionedSource
where Model.ID: Codable & Sendable {
    let server: SimulatedServer<Model>
    nonisolated let recordVersionField: String?
    nonisolated var deletionVersionField: String? { nil }
    nonisolated var deletionBasePrefix: String { "v:" }
    var pushFailure: RemoteSourceError?
    var lookUpFailure: RemoteSourceError?

    init(_ server: SimulatedServer<Model>, versionField: String? = nil) {
        self.server = server
        self.recordVersionField = versionField
    }

    func setPushFailure(_ failure: RemoteSourceError?) { pushFailure = failure }
    func setLookUpFailure(_ failure: RemoteSourceError?) { lookUpFailure = failure }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Model.ID> {
        try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Model.ID>]) async throws -> [PushResult<Model.ID>] {
        if let pushFailure { throw pushFailure }
        // The simulated server knows its own positions only: a change based on a record version goes
        // unconditionally.
        let changes = changes.map { change in
            var change = change
            if change.baseCursor?.rawValue.hasPrefix(deletionBasePrefix) == true { change.baseCursor = nil }
            return change
        }
        return try await server.push(changes)
    }

    func currentRecord(id: Model.ID) async throws -> Data? {
        if let lookUpFailure { throw lookUpFailure }
        return try await server.currentRecord(id: id)
    }
}

let path = CommandLine.arguments[1]
for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
let database = try SQLiteDatabase(path: path)
let clock = SimulatedClock()
let day = Date(timeIntervalSince1970: 1_700_000_000)
let users = (1...3).map { User(id: Int64($0), userName: "user \($0)") }
let posts = users.flatMap { user in
    [0, 1].map { Post(id: user.id * 10 + $0, authorID: user.id, title: "post", updatedAt: day.addingTimeInterval(60)) }
}
// Comment 999 is on post 77, which the server does not have: it is parked, waiting for it.
let comments =
    posts.map { Comment(id: $0.id * 10, postID: $0.id, body: "on \($0.id)") }
    + [Comment(id: 999, postID: 77, body: "on a post to come")]
let userServer = try SimulatedServer(
    records: users, seed: 1, validate: { $0.userName == "refused" ? "user_name is reserved" : nil }, clock: clock)
let postServer = try SimulatedServer(records: posts, seed: 2, clock: clock)
let commentServer = try SimulatedServer(records: comments, seed: 3, clock: clock)
let feed = SimulatedChangeFeed(userServer, postServer, commentServer, seed: 4)
let userSource = FixtureSource(userServer)
let postSource = FixtureSource(postServer, versionField: "updated_at")
let commentSource = FixtureSource(commentServer)
await postSource.setLookUpFailure(.unavailable("the look-up of post 77 failed"))
let retries = RetryPolicy(maxAttempts: 2, initialDelay: .microseconds(10), maxDelay: .microseconds(50), seed: 9)
let userRepository = try Repository(
    database: database, remote: userSource, configuration: SyncConfiguration(retryPolicy: retries))
let postRepository = try Repository(
    database: database, remote: postSource, configuration: SyncConfiguration(retryPolicy: retries))
let commentRepository = try Repository(
    database: database, remote: commentSource, configuration: SyncConfiguration(retryPolicy: retries))
let store = SyncStore(commentRepository, postRepository, userRepository, feed: feed)

// Everything pulled: table cursors, the feed's cursor, the posts' record versions, comment 999 parked.
_ = try await store.sync()

// User 1 refused (failed); comment 100 answered 503 after every retry (retrying).
try await userRepository.save(User(id: 1, userName: "refused"))
try await commentRepository.save(Comment(id: 100, postID: 10, body: "edited while the server failed"))
await commentSource.setPushFailure(.httpStatus(503, body: "maintenance"))
_ = try await store.sync()

// Post 10 sent, its answer never came (sent).
try await postRepository.save(Post(id: 10, authorID: 1, title: "edited, answer lost", updatedAt: day))
await postSource.setPushFailure(.unavailable("the connection was lost"))
do {
    _ = try await store.sync()
} catch {
    print("third sync failed, as meant: \(error)")
}

// Queued and never sent: an update, a create and a deletion.
try await userRepository.save(User(id: 2, userName: "renamed"))
try await userRepository.save(User(id: 4, userName: "new"))
try await commentRepository.delete(id: 200)

print("feed cursor:", try await store.feedCursor().map(\.rawValue) ?? "none")
try await database.read { db in
    for table in [
        "variably_sync_migrations", "variably_sync_state", "variably_pending_changes", "variably_record_versions",
        "variably_parked_records", "variably_acknowledged_changes",
    ] {
        print("--", table)
        for row in try db.fetch(sql: "SELECT * FROM \"\(table)\"") {
            print(zip(row.columnNames, row.values).map { "\($0)=\($1)" }.joined(separator: " "))
        }
    }
}
