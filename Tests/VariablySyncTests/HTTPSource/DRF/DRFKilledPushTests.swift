import Foundation
import Testing
import UserSyncModels
import VariablyHTTP
import VariablySQLite
import VariablySync
import VariablySyncTesting
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

// An app killed between the server's accept of a write and its own commit of the answer: the test
// re-launches its own test binary filtered to `drfKilledPushChildProcess`, which works only when
// `VARIABLY_DRF_KILL_DIR` is set. The child creates comments offline (with a client reference, some
// replying to others) and edits one, then syncs against the parent's real DRF through a transport that
// SIGKILLs its own process the moment the server has answered its nth write with success: the server
// has committed, the device has not. Each run starts the app again on the same file. At the end the
// app syncs unharmed, and the server must hold every created comment exactly once, and the device the
// server's comments, with nothing left to send.

/// The child's settings, and the repositories both processes build on the cache file.
enum DRFKilledPush {
    static let directoryKey = "VARIABLY_DRF_KILL_DIR"
    static let urlKey = "VARIABLY_DRF_KILL_URL"
    static let tokenKey = "VARIABLY_DRF_KILL_TOKEN"
    static let runKey = "VARIABLY_DRF_KILL_RUN"
    /// The successful write after whose answer the child kills itself (counted from 1).
    static let killAtKey = "VARIABLY_DRF_KILL_AT"

    /// The comments' repository (with its client reference) and the store of the three tables, on
    /// `database`, sending through `transport`.
    static func comments(
        baseURL: URL, token: String, database: SQLiteDatabase, transport: any HTTPTransport
    ) throws -> (Repository<Comment>, SyncStore) {
        func remote<Model: SQLiteStorable & Identifiable & Sendable>(_ type: Model.Type, _ api: HTTPAPI)
            -> HTTPRemoteSource<Model>
        where Model.ID: Codable & Sendable {
            HTTPRemoteSource<Model>(
                baseURL: baseURL, api: api, headers: ["Authorization": "Token \(token)"], timeout: 10,
                transport: transport)
        }
        let configuration = SyncConfiguration<Comment>(pageSize: 5, retryPolicy: quickRetries)
        let users = try Repository(
            database: database, remote: remote(User.self, DRFServer.graphAPI("users")),
            configuration: SyncConfiguration(pageSize: 5, retryPolicy: quickRetries))
        let posts = try Repository(
            database: database, remote: remote(Post.self, DRFServer.graphAPI("posts")),
            configuration: SyncConfiguration(pageSize: 5, retryPolicy: quickRetries))
        let comments = try Repository(
            database: database, remote: remote(Comment.self, DRFExactlyOnceTests.commentsAPI(clientReference: true)),
            configuration: configuration)
        return (comments, try SyncStore(comments, posts, users))
    }
}

/// A transport that kills its own process (`SIGKILL`) as soon as the server has answered its
/// `killAt`-th write (any method but `GET`) with a success: after the server's commit, before the
/// answer reaches the engine.
struct SelfKillingTransport: HTTPTransport {
    let base: any HTTPTransport
    let killAt: Int
    let writes = Writes()

    /// How many writes the server accepted.
    actor Writes {
        private var count = 0
        func next() -> Int {
            count += 1
            return count
        }
    }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let response = try await base.send(request)
        if request.method != "GET", (200..<300).contains(response.status), await writes.next() == killAt {
            kill(getpid(), SIGKILL)
        }
        return response
    }
}

@Suite("Reliability: DRF killed push child (does nothing unless launched by the killed push test)")
struct DRFKilledPushChild {
    @Test func drfKilledPushChildProcess() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment[DRFKilledPush.directoryKey],
            let url = environment[DRFKilledPush.urlKey].flatMap(URL.init),
            let token = environment[DRFKilledPush.tokenKey], let run = UInt64(environment[DRFKilledPush.runKey] ?? ""),
            let killAt = Int(environment[DRFKilledPush.killAtKey] ?? "")
        else { return }
        let directory = URL(fileURLWithPath: path)
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("cache.sqlite").path)
        let (comments, store) = try DRFKilledPush.comments(
            baseURL: url, token: token, database: database,
            transport: SelfKillingTransport(base: HTTPTransports.platformDefault, killAt: killAt))
        var random = SeededRandomNumberGenerator(seed: run)
        // Started again after a kill: what the last run left goes first (and may be killed too).
        try await store.sync()
        let cached = try await comments.fetch()
        for index in 0..<8 {
            let clientID = UUID()
            let replyTo = Bool.random(using: &random) ? cached.randomElement(using: &random)?.id : nil
            _ = try await comments.create {
                Comment(
                    id: $0, postID: 1, replyTo: replyTo, body: "run \(run), comment \(index)", clientID: clientID)
            }
            // Recorded once its local transaction has committed: a create the server must end up with.
            #expect(
                FileManager.default.createFile(
                    atPath: directory.appendingPathComponent("created").appendingPathComponent(clientID.uuidString)
                        .path,
                    contents: nil))
        }
        if var comment = cached.randomElement(using: &random) {
            comment.body = "edited in run \(run)"
            try await comments.save(comment)
        }
        try await store.sync()
        try await store.sync()
    }
}

@Suite(.serialized, .timeLimit(.minutes(15)), .enabled(if: DRFServer.isAvailable, DRFServer.unavailableReason))
struct DRFKilledPushTests {
    @Test func writesKilledBetweenTheServersAcceptAndTheLocalCommitAreNeitherDoubledNorLost() async throws {
        let executable = try #require(
            ReliabilityCrashConsistencyTests.testExecutable(), "the test binary cannot be re-launched")
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.graph("users", "create", fields: ["id": 1, "user_name": "ada"])
        try server.graph("posts", "create", fields: ["id": 1, "author_id": 1, "title": "kept"])
        let directory = try ReliabilityTemporaryDirectory(prefix: "variably-drf-kill")
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.path("created"), withIntermediateDirectories: true)
        let runs = ReliabilityBudget.iterations(4)
        let kills = try await launchKilledPushRuns(
            executable: executable, filter: "drfKilledPushChildProcess", runs: runs,
            seed: 2028 + ReliabilityBudget.seedOffset, directory: directory
        ) { run, killAt in
            [
                DRFKilledPush.directoryKey: directory.url.path,
                DRFKilledPush.urlKey: server.baseURL.absoluteString,
                DRFKilledPush.tokenKey: server.token,
                DRFKilledPush.runKey: String(run),
                DRFKilledPush.killAtKey: String(killAt),
            ]
        }

        // The app once more, unharmed: everything left is sent, once.
        let database = try SQLiteDatabase(path: directory.path("cache.sqlite"))
        let (comments, store) = try DRFKilledPush.comments(
            baseURL: server.baseURL, token: server.token, database: database, transport: HTTPTransports.platformDefault)
        try await store.sync()
        try await store.sync()

        let state = try server.state()
        let created = try FileManager.default.contentsOfDirectory(atPath: directory.path("created")).map {
            $0.lowercased()
        }
        let byClient = Dictionary(grouping: state.comments.compactMap { $0.client_id?.lowercased() }) { $0 }
        let duplicates = byClient.values.filter { $0.count > 1 }.count
        let lost = created.filter { byClient[$0] == nil }.count
        #expect(duplicates == 0, "comments created more than once on the server")
        #expect(lost == 0, "creates the server never got")
        #expect(byClient.count == created.count)
        #expect(try await comments.unsentChanges().isEmpty)
        let live = state.comments.filter { !$0.deleted }
        let expected = live.map { "\($0.id) \($0.reply_to.map(String.init) ?? "-") \($0.body)" }.sorted()
        let cached = try await comments.fetch().map { "\($0.id) \($0.replyTo.map(String.init) ?? "-") \($0.body)" }
            .sorted()
        #expect(cached == expected)
        #expect(try await database.read { try $0.fetch(sql: "PRAGMA foreign_key_check").count } == 0)
        #expect(kills > 0)
        print(
            "[reliability] DRF killed pushes: \(runs) runs, \(kills) killed after the server's accept, "
                + "\(created.count) creates, \(duplicates) duplicates, \(lost) lost")
    }
}
