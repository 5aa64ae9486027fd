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

// An app killed between PocketBase's accept of a write and its own commit of the answer, as the DRF
// killed-push test does it: the test re-launches its own binary filtered to
// `pocketBaseKilledPushChildProcess`, which works only when `VARIABLY_PB_KILL_DIR` is set. The child
// creates users offline with ids it makes (`create {}`, PocketBase's 15 characters, which PocketBase
// keeps), edits and deletes some, then syncs through a transport that SIGKILLs its own process the moment
// the server has answered its nth write with success. PocketBase ignores `Idempotency-Key`: a create in
// doubt is found by its own id. At the end the app syncs unharmed; the server must hold every user
// created and not deleted exactly once, and the device exactly the server's users.

/// The child's settings and the repository both processes build on the cache file.
enum PocketBaseKilledPush {
    static let directoryKey = "VARIABLY_PB_KILL_DIR"
    static let urlKey = "VARIABLY_PB_KILL_URL"
    static let tokenKey = "VARIABLY_PB_KILL_TOKEN"
    static let runKey = "VARIABLY_PB_KILL_RUN"
    static let killAtKey = "VARIABLY_PB_KILL_AT"

    /// The users' repository on `database`, sending through `transport`, as docs/http.md's recipe.
    static func users(baseURL: URL, token: String, database: SQLiteDatabase, transport: any HTTPTransport) throws
        -> Repository<PocketBaseUser>
    {
        let remote = HTTPRemoteSource<PocketBaseUser>(
            baseURL: baseURL, api: PocketBaseUser.api, headers: ["Authorization": token], timeout: 30,
            transport: transport)
        return try Repository(
            database: database, remote: remote, configuration: SyncConfiguration(pageSize: 7, retryPolicy: quickRetries)
        )
    }
}

@Suite("Reliability: PocketBase killed push child (does nothing unless launched by the killed push test)")
struct PocketBaseKilledPushChild {
    @Test func pocketBaseKilledPushChildProcess() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment[PocketBaseKilledPush.directoryKey],
            let url = environment[PocketBaseKilledPush.urlKey].flatMap(URL.init),
            let token = environment[PocketBaseKilledPush.tokenKey],
            let run = UInt64(environment[PocketBaseKilledPush.runKey] ?? ""),
            let killAt = Int(environment[PocketBaseKilledPush.killAtKey] ?? "")
        else { return }
        let directory = URL(fileURLWithPath: path)
        let users = try PocketBaseKilledPush.users(
            baseURL: url, token: token,
            database: try SQLiteDatabase(path: directory.appendingPathComponent("cache.sqlite").path),
            transport: SelfKillingTransport(base: HTTPTransports.platformDefault, killAt: killAt))
        var random = SeededRandomNumberGenerator(seed: run)
        // Started again after a kill: what the last run left goes first (and may be killed too).
        try await users.sync()
        let cached = try await users.fetch()
        for index in 0..<8 {
            let name = "run \(run) user \(index)"
            _ = try await users.create { PocketBaseUser(id: $0, userName: name, age: index) }
            // Recorded once its local transaction has committed: a user the server must end up with.
            #expect(
                FileManager.default.createFile(
                    atPath: directory.appendingPathComponent("created/\(name)").path, contents: nil))
        }
        if var user = cached.randomElement(using: &random) {
            user.age += 100
            try await users.save(user)
        }
        if let user = cached.filter({ $0.age < 100 }).randomElement(using: &random) {
            try await users.delete(id: user.id)
            #expect(
                FileManager.default.createFile(
                    atPath: directory.appendingPathComponent("deleted/\(user.userName)").path, contents: nil))
        }
        try await users.sync()
        try await users.sync()
    }
}

@Suite(
    .serialized, .timeLimit(.minutes(15)),
    .enabled(if: PocketBaseServer.isAvailable, PocketBaseServer.unavailableReason))
struct PocketBaseKilledPushTests {
    @Test func writesKilledBetweenTheServersAcceptAndTheLocalCommitAreNeitherDoubledNorLost() async throws {
        let executable = try #require(
            ReliabilityCrashConsistencyTests.testExecutable(), "the test binary cannot be re-launched")
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let directory = try ReliabilityTemporaryDirectory(prefix: "variably-pb-kill")
        defer { directory.remove() }
        for folder in ["created", "deleted"] {
            try FileManager.default.createDirectory(atPath: directory.path(folder), withIntermediateDirectories: true)
        }
        let runs = ReliabilityBudget.iterations(5)
        let kills = try await launchKilledPushRuns(
            executable: executable, filter: "pocketBaseKilledPushChildProcess", runs: runs,
            seed: 2029 + ReliabilityBudget.seedOffset, directory: directory
        ) { run, killAt in
            [
                PocketBaseKilledPush.directoryKey: directory.url.path,
                PocketBaseKilledPush.urlKey: server.baseURL.absoluteString,
                PocketBaseKilledPush.tokenKey: server.token,
                PocketBaseKilledPush.runKey: String(run),
                PocketBaseKilledPush.killAtKey: String(killAt),
            ]
        }

        // The app once more, unharmed: everything left is sent, once.
        let users = try PocketBaseKilledPush.users(
            baseURL: server.baseURL, token: server.token,
            database: try SQLiteDatabase(path: directory.path("cache.sqlite")),
            transport: HTTPTransports.platformDefault)
        try await users.sync()
        try await users.sync()

        let onServer = try await server.records("users", as: PocketBaseServer.ServerUser.self)
        let created = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path("created")))
        let deleted = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path("deleted")))
        let byName = Dictionary(grouping: onServer.map(\.user_name)) { $0 }
        let duplicates = byName.values.filter { $0.count > 1 }.count
        let lost = created.subtracting(deleted).filter { byName[$0] == nil }.count
        let undeleted = deleted.filter { byName[$0] != nil }.count
        #expect(duplicates == 0, "users created more than once on the server")
        #expect(lost == 0, "creates the server never got")
        #expect(undeleted == 0, "deletes the server never got")
        #expect(try await users.unsentChanges().isEmpty)
        #expect(try await users.failedChanges().isEmpty)
        let cached = try await users.fetch(sortedBy: [SortDescriptor(\.id)]).map(\.content)
        #expect(cached == onServer.map(\.content).sorted { $0.id < $1.id })
        #expect(kills > 0)
        print(
            "[reliability] PocketBase killed pushes: \(runs) runs, \(kills) killed after the server's accept, "
                + "\(created.count) creates, \(deleted.count) deletes, \(duplicates) duplicates, \(lost) lost")
    }
}
