import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync
import VariablySyncTesting
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

// A store killed while it syncs: the test re-launches its own test binary filtered to
// `storeCrashChildProcess`, which works only when `VARIABLY_STORE_CRASH_DIR` is set. The child syncs
// users, posts and comments into a WAL file (simulated servers, the same each run, writing new
// posts and comments as other clients) while the app writes parents and children in one transaction
// and deletes users (cascading), every other run pulling one feed of the three tables in checkpoints
// (SimulatedChangeFeed); the parent SIGKILLs it at a random moment, then checks the file:
// SQLite's integrity, no orphan (`PRAGMA foreign_key_check`), and every queued save's row present.

enum StoreCrash {
    static let directoryKey = "VARIABLY_STORE_CRASH_DIR"
    static let runKey = "VARIABLY_STORE_CRASH_RUN"
}

@Suite("Reliability: store crash child (does nothing unless launched by the store crash test)")
struct StoreCrashChild {
    @Test func storeCrashChildProcess() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment[StoreCrash.directoryKey], let run = Int64(environment[StoreCrash.runKey] ?? "")
        else { return }
        let directory = URL(fileURLWithPath: path)
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("cache.sqlite").path)
        let clock = SimulatedClock()
        let userServer = try SimulatedServer(
            records: (1...50).map { User(id: $0, userName: "w\($0)") }, seed: 1, clock: clock)
        let postServer = try SimulatedServer(
            records: (1...200).map { Post(id: 1_000 + $0, authorID: ($0 % 50) + 1, title: "e\($0)") }, seed: 2,
            clock: clock)
        let commentServer = try SimulatedServer(
            records: (1...600).map { Comment(id: 10_000 + $0, postID: 1_000 + ($0 % 200) + 1, body: "r\($0)") },
            seed: 3,
            clock: clock)
        let configuration = SyncConfiguration<User>(pageSize: 25)
        let users = try Repository(database: database, remote: userServer, configuration: configuration)
        let posts = try Repository(
            database: database, remote: postServer, configuration: SyncConfiguration(pageSize: 25))
        let comments = try Repository(
            database: database, remote: commentServer, configuration: SyncConfiguration(pageSize: 25))
        // Every other run pulls one feed in checkpoints of three pages (posts and comments often come
        // before their users there: the users are written again by deletions and local creates).
        let store =
            try run.isMultiple(of: 2)
            ? SyncStore(
                comments, posts, users, feed: SimulatedChangeFeed(userServer, postServer, commentServer),
                configuration: ChangeFeedConfiguration(pageSize: 25, batchSize: 75))
            : SyncStore(comments, posts, users)
        #expect(
            FileManager.default.createFile(atPath: directory.appendingPathComponent("ready-\(run)").path, contents: nil)
        )
        var random = SeededRandomNumberGenerator(seed: UInt64(run))
        for iteration in Int64(0)..<300 {
            let base = 1_000_000 + run * 100_000 + iteration * 10
            try await database.write { db in
                try db.upsert(Comment(id: base + 3, postID: base + 2, body: "local"))
                try db.upsert(Post(id: base + 2, authorID: base + 1, title: "local"))
                try db.upsert(User(id: base + 1, userName: "local", favoritePostID: base + 2))
            }
            if let victim = try await users.fetch(limit: 60).map(\.id).randomElement(using: &random) {
                try await users.delete(id: victim)
            }
            if let user = await userServer.allRecords().map(\.id).randomElement(using: &random) {
                _ = try await postServer.upsert(Post(id: base + 5, authorID: user, title: "there"))
                _ = try await commentServer.upsert(Comment(id: base + 6, postID: base + 5, body: "there"))
            }
            _ = try? await store.sync()
        }
    }
}

@Suite("Reliability: store crash consistency under SIGKILL")
struct StoreCrashConsistencyTests {
    @Test(.timeLimit(.minutes(5)))
    func aStoreKilledWhileItSyncsLeavesNoOrphanAndNoLostSave() async throws {
        let executable = try #require(
            ReliabilityCrashConsistencyTests.testExecutable(), "the test binary cannot be re-launched")
        let directory = try ReliabilityTemporaryDirectory(prefix: "variably-store-crash")
        defer { directory.remove() }
        var random = ReliabilityRandom(seed: 2027 + ReliabilityBudget.seedOffset)
        let runs = ReliabilityBudget.iterations(6)
        var kills = 0
        var rows: SQLValue?
        for run in 1...runs {
            var environment = ProcessInfo.processInfo.environment
            environment[StoreCrash.directoryKey] = directory.url.path
            environment[StoreCrash.runKey] = String(run)
            let devNull = open("/dev/null", O_WRONLY)
            let child = try ChildProcess(
                executable: executable,
                arguments: ["--testing-library", "swift-testing", "--filter", "storeCrashChildProcess"],
                environment: environment, standardOutput: devNull, standardError: devNull)
            close(devNull)
            let ready = directory.path("ready-\(run)")
            for _ in 0..<20_000 where child.isRunning && !FileManager.default.fileExists(atPath: ready) {
                try await Task.sleep(for: .milliseconds(1))
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...400, using: &random)))
            if child.isRunning { kills += 1 }
            _ = child.kill()

            let database = try SQLiteDatabase(path: directory.path("cache.sqlite"))
            let (integrity, orphans, missing) = try await database.read { db in
                let integrity = try db.fetchValue(sql: "PRAGMA integrity_check")
                let orphans = try db.fetch(sql: "PRAGMA foreign_key_check").count
                // A queued save whose row is gone would be a lost save (a cascade removes its change too).
                let missing = try db.fetchValue(
                    sql: """
                        SELECT count(*) FROM "variably_pending_changes" AS change WHERE change."operation" = 'upsert' AND NOT EXISTS (
                            SELECT 1 FROM "users" WHERE change."table_name" = 'users' AND json_quote("id") = change."record_id"
                            UNION ALL SELECT 1 FROM "posts" WHERE change."table_name" = 'posts' AND json_quote("id") = change."record_id"
                            UNION ALL SELECT 1 FROM "comments" WHERE change."table_name" = 'comments' AND json_quote("id") = change."record_id")
                        """)
                return (integrity, orphans, missing)
            }
            rows = try await database.read { db in
                try db.fetchValue(
                    sql: """
                        SELECT (SELECT count(*) FROM "users") + (SELECT count(*) FROM "posts")
                            + (SELECT count(*) FROM "comments")
                        """)
            }
            #expect(integrity == .text("ok"), "run \(run)")
            #expect(orphans == 0, "run \(run): orphans after the kill")
            #expect(missing == .integer(0), "run \(run): queued saves without their row")
        }
        print(
            "[reliability] store crash: \(runs) runs, \(kills) SIGKILLs while syncing, 0 orphans, integrity ok, \(rows ?? .null) rows at the end"
        )
        #expect(kills > 0)
        #expect(rows.map { $0 != .integer(0) } == true)
    }
}
