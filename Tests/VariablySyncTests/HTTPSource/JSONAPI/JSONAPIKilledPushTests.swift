import Foundation
import Testing
import VariablyHTTP
import VariablySQLite
import VariablySync
import VariablySyncTesting
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

// An app killed between the JSON:API server's accept of a write and its own commit of the answer, as
// DRFKilledPushTests does against plain DRF: the test re-launches its own test binary filtered to
// `jsonAPIKilledPushChildProcess`, which works only when `VARIABLY_JSONAPI_KILL_DIR` is set. The child
// creates comments offline (each with a client reference in `attributes.client_id`, some replying to
// others) and edits one, then syncs the recipe's store through a transport that SIGKILLs its own process
// the moment the server has answered its nth write with success (`SelfKillingTransport`): DJA has
// committed, the device has not. DJA ignores `Idempotency-Key`; a create in doubt is found by
// `filter[client_id.in]`. At the end the app syncs unharmed, and the server must hold every created
// comment exactly once, and the device the server's comments, with nothing left to send.

/// The child's settings.
enum JSONAPIKilledPush {
    static let directoryKey = "VARIABLY_JSONAPI_KILL_DIR"
    static let urlKey = "VARIABLY_JSONAPI_KILL_URL"
    static let tokenKey = "VARIABLY_JSONAPI_KILL_TOKEN"
    static let runKey = "VARIABLY_JSONAPI_KILL_RUN"
    /// The successful write after whose answer the child kills itself (counted from 1).
    static let killAtKey = "VARIABLY_JSONAPI_KILL_AT"
}

@Suite("Reliability: JSON:API killed push child (does nothing unless launched by the killed push test)")
struct JSONAPIKilledPushChild {
    @Test func jsonAPIKilledPushChildProcess() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment[JSONAPIKilledPush.directoryKey],
            let url = environment[JSONAPIKilledPush.urlKey].flatMap(URL.init),
            let token = environment[JSONAPIKilledPush.tokenKey],
            let run = UInt64(environment[JSONAPIKilledPush.runKey] ?? ""),
            let killAt = Int(environment[JSONAPIKilledPush.killAtKey] ?? "")
        else { return }
        let directory = URL(fileURLWithPath: path)
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("cache.sqlite").path)
        let blog = try JSONAPIRecipeTests.blog(
            on: url, token: token, database: database,
            transport: SelfKillingTransport(base: HTTPTransports.platformDefault, killAt: killAt))
        var random = SeededRandomNumberGenerator(seed: run)
        // Started again after a kill: what the last run left goes first (and may be killed too).
        try await blog.store.sync()
        let cached = try await blog.comments.fetch()
        for index in 0..<8 {
            let clientID = UUID()
            let replyTo = Bool.random(using: &random) ? cached.randomElement(using: &random)?.id : nil
            _ = try await blog.comments.create {
                JSONAPIRecipeTests.Comment(
                    id: $0, articleID: "1", replyTo: replyTo, body: "run \(run), comment \(index)", clientID: clientID)
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
            try await blog.comments.save(comment)
        }
        try await blog.store.sync()
        try await blog.store.sync()
    }
}

@Suite(
    .serialized, .timeLimit(.minutes(15)), .enabled(if: JSONAPIServer.isAvailable, JSONAPIServer.unavailableReason))
struct JSONAPIKilledPushTests {
    @Test func createsKilledBetweenTheServersAcceptAndTheLocalCommitAreNeitherDoubledNorLost() async throws {
        let executable = try #require(
            ReliabilityCrashConsistencyTests.testExecutable(), "the test binary cannot be re-launched")
        let server = try await JSONAPIServer.start()
        defer { server.stop() }
        try server.write("people", "create", fields: ["id": 1, "name": "ada"])
        try server.write("articles", "create", fields: ["id": 1, "author_id": 1, "title": "kept"])
        let directory = try ReliabilityTemporaryDirectory(prefix: "variably-jsonapi-kill")
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.path("created"), withIntermediateDirectories: true)
        let runs = ReliabilityBudget.iterations(4)
        let kills = try await launchKilledPushRuns(
            executable: executable, filter: "jsonAPIKilledPushChildProcess", runs: runs,
            seed: 2029 + ReliabilityBudget.seedOffset, directory: directory
        ) { run, killAt in
            [
                JSONAPIKilledPush.directoryKey: directory.url.path,
                JSONAPIKilledPush.urlKey: server.baseURL.absoluteString,
                JSONAPIKilledPush.tokenKey: server.token,
                JSONAPIKilledPush.runKey: String(run),
                JSONAPIKilledPush.killAtKey: String(killAt),
            ]
        }

        // The app once more, unharmed: everything left is sent, once.
        let database = try SQLiteDatabase(path: directory.path("cache.sqlite"))
        let blog = try JSONAPIRecipeTests.blog(on: server.baseURL, token: server.token, database: database)
        try await blog.store.sync()
        try await blog.store.sync()

        let state = try server.state()
        let created = try FileManager.default.contentsOfDirectory(atPath: directory.path("created")).map {
            $0.lowercased()
        }
        let byClient = Dictionary(grouping: state.comments.compactMap { $0.client_id?.lowercased() }) { $0 }
        let duplicates = byClient.values.filter { $0.count > 1 }.count
        let lost = created.filter { byClient[$0] == nil }.count
        #expect(duplicates == 0, "comments created more than once on the server")
        let unsent = try await blog.comments.unsentChanges()
        let cached = try await JSONAPIRecipeTests.Contents(blog)
        #expect(lost == 0, "creates the server never got")
        #expect(byClient.count == created.count)
        #expect(unsent.count == 0, "unsent: \(unsent.prefix(3))")
        #expect(cached.differences(from: JSONAPIRecipeTests.Contents(state)) == [])
        #expect(try await database.read { try $0.fetch(sql: "PRAGMA foreign_key_check").count } == 0)
        #expect(kills > 0)
        print(
            "[reliability] JSON:API killed pushes: \(runs) runs, \(kills) killed after the server's accept, "
                + "\(created.count) creates, \(duplicates) duplicates, \(lost) lost")
    }
}
