import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
import VariablySQLite
import VariablySync

/// docs/http.md's PocketBase recipe (``PocketBaseUser/api``, no request hook but the token's) against a
/// real, unmodified PocketBase: pages above its silent cap of 1,000, incremental syncs through its
/// `filter` expression, a table that changes while it is paged, hard deletions and a bad token.
// One test at a time: each starts its own PocketBase.
@Suite(
    .serialized, .timeLimit(.minutes(10)),
    .enabled(if: PocketBaseServer.isAvailable, PocketBaseServer.unavailableReason))
struct PocketBaseRecipeTests {
    /// The token each request carries, the URLs of the pull requests sent, and writes to make on the
    /// server before a given pull request (a table that changes while it is paged).
    /// `@unchecked Sendable`: the state is only touched while `lock` is held.
    final class Requests: @unchecked Sendable {
        private let lock = NSLock()
        private var token: String
        private var pulls: [URL] = []
        private var before: [Int: () async throws -> Void] = [:]

        init(token: String) { self.token = token }

        var current: String {
            get { lock.withLock { token } }
            set { lock.withLock { token = newValue } }
        }

        /// The pull requests sent so far.
        var pullURLs: [URL] { lock.withLock { pulls } }

        /// Runs `writes` before the `index`th pull request (from 1) is sent.
        func before(pull index: Int, _ writes: @escaping () async throws -> Void) {
            lock.withLock { before[index] = writes }
        }

        /// Records `request` and runs the writes planned before it.
        fileprivate func prepare(_ request: inout URLRequest) async throws {
            request.setValue(current, forHTTPHeaderField: "Authorization")
            guard request.httpMethod == "GET", let url = request.url else { return }
            let writes = lock.withLock { () -> (() async throws -> Void)? in
                pulls.append(url)
                return before.removeValue(forKey: pulls.count)
            }
            try await writes?()
        }
    }

    /// A repository of users on an in-memory cache, synced with `server` through `api` (the recipe unless
    /// a variant is given), each request prepared by `requests`.
    private func makeRepository(
        _ server: PocketBaseServer, _ requests: Requests, api: HTTPAPI = PocketBaseUser.api, pageSize: Int = 1000
    ) throws -> Repository<PocketBaseUser> {
        let remote = HTTPRemoteSource<PocketBaseUser>(baseURL: server.baseURL, api: api, timeout: 60) {
            request, _ in try await requests.prepare(&request)
        }
        return try Repository(
            database: .inMemory(), remote: remote,
            configuration: SyncConfiguration(pageSize: pageSize, retryPolicy: quickRetries))
    }

    /// The recipe with its pull changed by `change`.
    private func recipe(_ change: (inout HTTPPullShape) -> Void) -> HTTPAPI {
        var pull = PocketBaseUser.api.pull
        change(&pull)
        return HTTPAPI(pull: pull, push: PocketBaseUser.api.push)
    }

    private func cached(_ repository: Repository<PocketBaseUser>) async throws -> [PocketBaseUser.Content] {
        try await repository.fetch(sortedBy: [SortDescriptor(\.id)]).map(\.content)
    }

    private func onServer(_ server: PocketBaseServer) async throws -> [PocketBaseUser.Content] {
        try await server.users().map(\.content)
    }

    /// The query parameter `name` of `url`.
    private func parameter(_ name: String, of url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
    }

    // MARK: - Pages above the cap

    /// Asked for 2,000 a page, PocketBase answers 1,000 and says so only in `perPage`: the recipe pages
    /// while the page asked is below `totalPages`; every user is cached.
    @Test func aFirstSyncAboveTheCapCachesEveryUser() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        try await server.seedUsers(2_500)
        let requests = Requests(token: server.token)
        let repository = try makeRepository(server, requests, pageSize: 2_000)

        let report = try await repository.sync()
        #expect(report.pulled == 2_500)
        #expect(report.inserted == 2_500)
        #expect(report.checkRequests == 0)
        #expect(try await cached(repository) == onServer(server))
        #expect(try await repository.count(where: #Predicate { $0.updated == nil }) == 0)
        #expect(requests.pullURLs.allSatisfy { parameter("perPage", of: $0) == "2000" })
    }

    /// Without `hasMore`, the first page shorter than asked (1,000 of 2,000) is checked once: the pull
    /// goes on from where it ended and learns the cap; every user is cached.
    @Test func withoutHasMoreTheCheckLearnsTheCap() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        try await server.seedUsers(2_500)
        let requests = Requests(token: server.token)
        let api = recipe { $0.hasMore = nil }
        let repository = try makeRepository(server, requests, api: api, pageSize: 2_000)

        let report = try await repository.sync()
        #expect(report.pulled == 2_500)
        #expect(report.checkRequests <= 1)
        #expect(try await cached(repository) == onServer(server))
    }

    // MARK: - Incremental syncs

    /// Three users edited on the server (stamped in the same second as others) are all the next sync
    /// pulls, through `filter=(updated>='…')` in PocketBase's own form; a quiet sync brings nothing new.
    @Test func aSyncPullsOnlyTheChangedUsers() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let ids = try await server.seedUsers(2_500)
        let requests = Requests(token: server.token)
        let repository = try makeRepository(server, requests, pageSize: 2_000)
        try await repository.sync()

        for (offset, id) in [ids[3], ids[1_200], ids[2_499]].enumerated() {
            try await server.update("users", id: id, fields: ["age": 90 + offset])
        }
        let pulls = requests.pullURLs.count
        let report = try await repository.sync()
        #expect(report.pulled >= 3 && report.pulled < 50, "pulled \(report.pulled)")
        #expect(report.updated == 3)
        #expect(report.inserted == 0)
        #expect(try await cached(repository) == onServer(server))
        let filter = try #require(requests.pullURLs.dropFirst(pulls).first.flatMap { parameter("filter", of: $0) })
        #expect(filter.wholeMatch(of: /\(updated>='\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z'\)/) != nil, "\(filter)")

        let quiet = try await repository.sync()
        #expect(quiet.inserted + quiet.updated + quiet.deleted == 0, "\(quiet)")
        #expect(try await cached(repository) == onServer(server))
    }

    /// With `lookBack: .seconds(2)` the boundary is sent two seconds earlier, still in PocketBase's form
    /// (a space, three fraction digits, `Z`; ISO 8601's `T` would sort after every stamp of that day and
    /// match none): the edits are pulled.
    @Test func aLookBackIsSentInPocketBasesOwnForm() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let ids = try await server.seedUsers(300)
        let requests = Requests(token: server.token)
        let api = recipe {
            $0.changedSince = .filter(
                parameter: "filter", expression: "(updated>={value})", quoting: .singleQuotes, field: "updated",
                lookBack: .seconds(2))
        }
        let repository = try makeRepository(server, requests, api: api)
        try await repository.sync()

        try await server.update("users", id: ids[10], fields: ["user_name": "edited there"])
        try await server.update("users", id: ids[250], fields: ["age": 64])
        let pulls = requests.pullURLs.count
        let report = try await repository.sync()
        #expect(report.updated == 2, "\(report)")
        #expect(try await repository.fetch(id: ids[10])?.userName == "edited there")
        #expect(try await repository.fetch(id: ids[250])?.age == 64)
        #expect(try await cached(repository) == onServer(server))
        let filter = try #require(requests.pullURLs.dropFirst(pulls).first.flatMap { parameter("filter", of: $0) })
        #expect(filter.wholeMatch(of: /\(updated>='\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z'\)/) != nil, "\(filter)")
        #expect(try await repository.sync().updated == 0)
    }

    // MARK: - A moving table

    /// Users edited (moved to the end of `updated,id`) and created on the server while a first sync
    /// pages through 1,000 users 100 at a time: page numbers would shift the rest onto pages already
    /// read; the recipe asks each page from the last `updated` received, and every user is cached.
    @Test func aTableThatChangesWhileItIsPagedIsCachedWhole() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let ids = try await server.seedUsers(1_000)
        let requests = Requests(token: server.token)
        requests.before(pull: 3) {
            for id in stride(from: 0, to: 150, by: 10).map({ ids[$0] }) {
                try await server.update("users", id: id, fields: ["age": 70])
            }
            for index in 0..<5 {
                _ = try await server.create("users", fields: PocketBaseServer.seedFields(2_000 + index))
            }
        }
        requests.before(pull: 7) {
            try await server.update("users", id: ids[500], fields: ["user_name": "moved"])
            try await server.update("users", id: ids[20], fields: ["user_name": "moved again"])
        }
        let repository = try makeRepository(server, requests, pageSize: 100)

        let report = try await repository.sync()
        #expect(report.inserted == 1_005, "\(report)")
        #expect(try await repository.count() == 1_005)
        #expect(try await cached(repository) == onServer(server))
        #expect(try await repository.fetch(id: ids[500])?.userName == "moved")
        #expect(try await repository.fetch(id: ids[10])?.age == 70)
        // Each request asks page 1 of what changed at or after the last `updated` received.
        #expect(requests.pullURLs.count > 10)
        #expect(requests.pullURLs.allSatisfy { parameter("page", of: $0) == "1" })
        #expect(requests.pullURLs.dropFirst().allSatisfy { parameter("filter", of: $0) != nil })
        #expect(try await repository.sync().updated == 0)
    }

    // MARK: - Deletions and tokens

    /// PocketBase deletes for good and lists no tombstone: `resync()` removes the users it no longer
    /// lists. With a token PocketBase cannot verify, it lists no users at all: a sync stops with the
    /// credentials check's `401` rather than end "complete" on that empty list, and a `resync()` refuses
    /// to empty the table and removes nothing.
    @Test func aResyncRemovesDeletionsButNeverEmptiesTheCache() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let ids = try await server.seedUsers(40)
        let requests = Requests(token: server.token)
        let repository = try makeRepository(server, requests)
        try await repository.sync()

        try await server.delete("users", id: ids[0])
        try await server.delete("users", id: ids[33])
        #expect(try await repository.sync().deleted == 0)
        #expect(try await repository.count() == 40)
        let resync = try await repository.resync()
        #expect(resync.deleted == 2, "\(resync)")
        #expect(try await cached(repository) == onServer(server))

        let before = try await cached(repository)
        requests.current = server.invalidToken
        do {
            try await repository.sync()
            Issue.record("a sync under a bad token ended complete on an empty list")
        } catch RemoteSourceError.httpStatus(let status, _) {
            #expect(status == 401)
        }
        #expect(try await cached(repository) == before)
        // The recipe's credentials check tells the empty list for what it is: the resync stops with
        // the credentials error before anything is removed.
        do {
            try await repository.resync()
            Issue.record("a resync under a bad token emptied nothing and threw nothing")
        } catch RemoteSourceError.httpStatus(let status, _) {
            #expect(status == 401)
        }
        #expect(try await cached(repository) == before)
        // Without the check, the resync's own limit refuses to empty the table.
        let unchecked = try makeRepository(
            server, requests, api: HTTPAPI(pull: PocketBaseUser.api.pull, push: PocketBaseUser.api.push))
        requests.current = server.token
        try await unchecked.resync()
        requests.current = server.invalidToken
        do {
            try await unchecked.resync()
            Issue.record("a resync under a bad token emptied nothing and threw nothing")
        } catch SyncError.resyncWouldDelete(_, let rows, let of) {
            #expect(rows == 38)
            #expect(of == 38)
        }
        #expect(try await unchecked.count() == 38)

        requests.current = server.token
        #expect(try await repository.resync().deleted == 0)
        #expect(try await cached(repository) == onServer(server))
    }
}
