import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync

/// The repository against a real, unmodified Django REST Framework backend (``DRFServer``), declared as
/// docs/http.md tells a user to: every pagination, every write, server-assigned ids, the `If-Match`
/// recipe, and no local change ever lost. The client model is the example domain's `User` (one table:
/// its only reference, a favourite post, is optional), on the server's `page/`, `cursor/`, `limit/` and
/// `checked/` user endpoints. The server's database is checked after each step.
// One test at a time, and one server across the suites (DRFServer.start waits its turn, hence the
// time limit): each starts its own Django, which takes a core for a second or more.
@Suite(.serialized, .timeLimit(.minutes(15)), .enabled(if: DRFServer.isAvailable, DRFServer.unavailableReason))
struct DRFSyncTests {
    private func cached(_ repository: Repository<User>) async throws -> [DRFServer.Content] {
        try await repository.fetch(sortedBy: [SortDescriptor(\.id)]).map(\.content)
    }

    // MARK: - Pulls

    /// 25 users in pages of 5, each page asked by `updated_at` from DRF's first page; then server-side edits, a deletion (a tombstone) and a create arrive incrementally.
    @Test(arguments: DRFServer.Pagination.allCases)
    func firstAndIncrementalSyncsMirrorTheServer(pagination: DRFServer.Pagination) async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.seed(25)
        let repository = try server.makeRepository(DRFServer.api(pagination))

        let first = try await repository.sync()
        #expect(first.pulled == 25)
        #expect(try await cached(repository) == server.liveContents())
        if pagination == .page {
            // Paged by `updated_at`: each request asks for what changed at or after the last record
            // received, from the first page, so no page number shifts under a table that changes.
            let pages = try server.state().requests.filter { $0.method == "GET" }
            #expect(pages.allSatisfy { $0.status == 200 && !$0.path.contains("page=2") })
            #expect(
                pages.allSatisfy {
                    $0.path.contains("ordering=updated_at%2Cid") || $0.path.contains("ordering=updated_at,id")
                })
        }

        try server.update(id: 3, fields: ["user_name": "edited there"])
        try server.update(id: 7, fields: ["age": 42])
        try server.delete(id: 9)
        try server.create([User(id: 26, userName: "newthere")])
        let second = try await repository.sync()
        #expect(second.deleted == 1)
        #expect(second.inserted == 1)
        #expect(second.updated == 2)
        #expect(try await cached(repository) == server.liveContents())

        let quiet = try await repository.sync()
        #expect(quiet.inserted + quiet.updated + quiet.deleted == 0)
        #expect(quiet.pushed == 0)
    }

    /// The declaration of docs/http.md, as written there, against the `checked` endpoint (with the
    /// `If-Match` mixin): pull, edit, create, delete, and a second client's edit, in a round trip.
    @Test func theDocumentedDeclarationSyncsWithAStockServer() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.seed(10)
        let drfAPI = HTTPAPI(
            pull: HTTPPullShape(
                path: "users/", records: "results", paging: .page(parameter: "page"),
                deletions: .tombstones(flag: "deleted"),
                changedSince: .updatedSince(parameter: "updated_since", field: "updated_at", lookBack: .seconds(5)),
                limitParameter: "page_size", query: ["ordering": "updated_at,id"], endsOnNotFound: true),
            push: .perRecord(
                HTTPRecordEndpoints(
                    path: "users", trailingSlash: true, update: .patch, body: .changedFields,
                    readOnlyFields: ["id", "updated_at"], versionField: "updated_at", concurrency: .ifMatch)))
        let remote = HTTPRemoteSource<User>(
            baseURL: server.baseURL.appendingPathComponent("checked/"), api: drfAPI,
            headers: ["Authorization": "Token \(server.token)"])
        let repository = try Repository(
            database: .inMemory(), remote: remote,
            configuration: SyncConfiguration(pageSize: 5, retryPolicy: quickRetries))
        #expect(try await repository.sync().inserted == 10)

        var user = try #require(try await repository.fetch(id: 4))
        user.age = 40
        try await repository.save(user)
        _ = try await repository.create { User(id: $0, userName: "fromthedevice") }
        try await repository.delete(id: 5)
        try server.update(id: 6, fields: ["user_name": "from another client"])
        let report = try await repository.sync()
        #expect(report.pushed == 3)
        #expect(report.conflicts.isEmpty)
        #expect(report.failed.isEmpty)
        #expect(try await cached(repository) == server.liveContents())
        #expect(try server.liveContents().contains { $0.userName == "from another client" })
        #expect(try server.liveContents().contains { $0.userName == "fromthedevice" })
        #expect(try await repository.pendingChangeCount() == 0)
    }

    // MARK: - Pushes

    /// `PATCH` with the changed fields leaves a field edited on the server meanwhile alone (last write
    /// wins per field); `PUT` sends the whole record (last write wins per record).
    @Test(arguments: [HTTPRecordEndpoints.UpdateMethod.patch, .put])
    func editsReachTheServer(update: HTTPRecordEndpoints.UpdateMethod) async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.seed(3)
        let repository = try server.makeRepository(DRFServer.api(.page, update: update))
        try await repository.sync()

        var user = try #require(try await repository.fetch(id: 2))
        user.userName = "edited here"
        try await repository.save(user)
        try server.update(id: 2, fields: ["nick_name": "edited there"])
        try server.clearLog()
        let report = try await repository.sync()
        #expect(report.pushed == 1)
        #expect(report.failed.isEmpty)

        let stored = try #require(try server.state().users.first { $0.id == 2 })
        #expect(stored.user_name == "edited here")
        #expect(stored.nick_name == (update == .patch ? "edited there" : "nickname 2"))
        let write = try #require(try server.state().requests.first { $0.method != "GET" })
        #expect(write.method == update.rawValue)
        #expect(write.path == "/api/page/users/2/")
        #expect(write.status == 200)
        #expect(write.contentType == "application/json")
        #expect(try await cached(repository) == server.liveContents())
    }

    @Test func deletionsReachTheServer() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.seed(4)
        let repository = try server.makeRepository(DRFServer.api(.page))
        try await repository.sync()

        try await repository.delete(id: 2)
        let report = try await repository.sync()
        #expect(report.pushed == 1)
        #expect(try server.state().users.first { $0.id == 2 }?.deleted == true)
        #expect(try await cached(repository) == server.liveContents())
        #expect(try await repository.pendingChangeCount() == 0)
    }

    /// Users created on the device are posted to the collection; the ids the server assigns replace
    /// the provisional ones, and a second sync posts nothing again.
    @Test func createsTakeTheIDsTheServerAssigns() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.seed(2)
        let repository = try server.makeRepository(DRFServer.api(.page))
        try await repository.sync()

        let first = try await repository.create { id in
            var user = User(id: id, userName: "offline1")
            user.age = 1
            return user
        }
        let second = try await repository.create { id in
            var user = User(id: id, userName: "offline2")
            user.age = 2
            return user
        }
        #expect(first.id == -1)
        #expect(second.id == -2)
        let report = try await repository.sync()
        #expect(report.pushed == 2)

        let state = try server.state()
        #expect(state.users.map(\.user_name).sorted() == ["offline1", "offline2", "user1", "user2"])
        #expect(state.requests.filter { $0.method == "POST" }.map(\.path) == ["/api/page/users/", "/api/page/users/"])
        #expect(try await cached(repository) == server.liveContents())
        #expect(try await repository.count(where: #Predicate { $0.id < 0 }) == 0)
        #expect(try await repository.pendingChangeCount() == 0)

        _ = try await repository.sync()
        #expect(try server.state().users.count == 4)
    }

    /// Created, then edited twice and once more deleted-and-recreated offline: one `POST` with the last
    /// values, and the server's id everywhere.
    @Test func aUserCreatedAndEditedOfflineIsCreatedOnceWithItsLastValues() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let repository = try server.makeRepository(DRFServer.api(.page))
        try await repository.sync()

        var user = try await repository.create { User(id: $0, userName: "draft") }
        user.userName = "second draft"
        try await repository.save(user)
        user.age = 5
        try await repository.save(user)
        // A user created and deleted before any push never reaches the server.
        let dropped = try await repository.create { User(id: $0, userName: "neversent") }
        try await repository.delete(id: dropped.id)
        #expect(try await repository.pendingChangeCount() == 1)

        try await repository.sync()
        let state = try server.state()
        #expect(state.requests.filter { $0.method != "GET" }.map(\.method) == ["POST"])
        #expect(state.users.map { "\($0.user_name) \($0.profile.age)" } == ["second draft 5"])
        #expect(try await cached(repository) == server.liveContents())

        // Edited after the create was accepted: a PATCH of the server's record.
        var stored = try #require(try await repository.fetch(where: #Predicate { $0.userName == "second draft" }).first)
        stored.userName = "final"
        try await repository.save(stored)
        try await repository.sync()
        #expect(try server.liveContents().map(\.userName) == ["final"])
        #expect(try server.state().requests.filter { $0.method == "PATCH" }.map(\.status) == [200])
    }

    /// README.md, "No local change is lost", against the real server (with users where the README
    /// has posts: a cache of posts alone would hold back each post whose author it lacks).
    @Test func theReadmeExample() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let users = try server.makeRepository(DRFServer.api(.page))
        let refused = try await users.create { User(id: $0, userName: "forbidden") }

        let user = try await users.create { User(id: $0, userName: "WrittenOffline") }  // a provisional id
        let report = try await users.sync()  // POSTed; the server's id replaces the provisional one
        for failure in try await users.failedChanges() {  // refused changes wait for the app
            print(failure)  // 7: save refused: HTTP 400: {"user_name": [...]}
            try await users.revert(failedChangeOf: failure.id)  // or retry(failedChangeOf:), discard(failedChangeOf:)
        }

        #expect(user.id == -2)
        #expect(report.pushed == 1)
        #expect(report.failed.map(\.id) == [refused.id])
        // Reverted: a record the server never had leaves the cache.
        #expect(try await users.fetch(id: refused.id) == nil)
        #expect(try await cached(users) == server.liveContents())
        #expect(try server.liveContents().map(\.userName) == ["WrittenOffline"])
    }

    // MARK: - Conflicts with the If-Match mixin

    /// Edits in a row never conflict with themselves: `If-Match` carries `updated_at` exactly as the
    /// server wrote it (microseconds), from the pull or from the last accepted push.
    @Test func noFalseConflictsWithTheIfMatchRecipe() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.seed(3)
        let repository = try server.makeRepository(DRFServer.api(.page, endpoint: "checked", concurrency: .ifMatch))
        try await repository.sync()

        for round in 1...3 {
            var user = try #require(try await repository.fetch(id: 1))
            user.age = 10 + round
            try await repository.save(user)
            // The second edit of a round goes out on the version the first one was answered with.
            let report = try await repository.sync()
            #expect(report.conflicts.isEmpty, "round \(round): \(report.conflicts)")
            #expect(report.pushed == 1)
        }
        try await repository.delete(id: 2)
        #expect(try await repository.sync().conflicts.isEmpty)

        let state = try server.state()
        let writes = state.requests.filter { $0.method != "GET" }
        #expect(writes.map(\.status) == [200, 200, 200, 204])
        #expect(writes.allSatisfy { $0.ifMatch?.contains(".") == true })
        #expect(state.users.first { $0.id == 1 }?.profile.age == 13)
        #expect(try await cached(repository) == server.liveContents())
    }

    @Test(arguments: ["serverWins", "clientWins", "merge"])
    func aStaleEditIsAConflictSettledByThePolicy(policy: String) async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.seed(2)
        // The merge takes the server's name and the local age.
        let merge = ConflictPolicy<User>.custom { conflict in
            guard var merged = conflict.server, let local = conflict.local else { return .keepServer }
            merged.age = local.age
            return .merged(merged)
        }
        let repository = try server.makeRepository(
            DRFServer.api(.page, endpoint: "checked", concurrency: .ifMatch),
            conflicts: policy == "serverWins" ? .serverWins : policy == "clientWins" ? .clientWins : merge)
        try await repository.sync()

        var user = try #require(try await repository.fetch(id: 1))
        user.age = 99
        try await repository.save(user)
        try server.update(id: 1, fields: ["user_name": "edited there"])
        let report = try await repository.sync()
        #expect(report.conflicts.map(\.id) == [1])

        let stored = try #require(try server.state().users.first { $0.id == 1 })
        // With PATCH of the changed fields (the whole `profile`), the client's win keeps the server's name too.
        #expect(stored.user_name == "edited there")
        #expect(stored.profile.age == (policy == "serverWins" ? 21 : 99))
        #expect(
            try server.state().requests.filter { $0.method == "PATCH" }.map(\.status)
                == (policy == "serverWins" ? [412] : [412, 200]))
        #expect(try await cached(repository) == server.liveContents())
        #expect(try await repository.pendingChangeCount() == 0)
    }

    // MARK: - Refusals are kept

    /// A validation error (400) keeps the edit, held and reported; the server is unchanged; a fixed edit
    /// goes through.
    @Test func aRefusedEditIsKeptAndReported() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.seed(2)
        let repository = try server.makeRepository(DRFServer.api(.page))
        try await repository.sync()

        var user = try #require(try await repository.fetch(id: 1))
        user.userName = "forbidden"
        try await repository.save(user)
        let report = try await repository.sync()
        #expect(report.failed.map(\.id) == [1])
        #expect(report.failed.first?.reason.hasPrefix("HTTP 400") == true)
        #expect(try server.state().users.first { $0.id == 1 }?.user_name == "user1")
        #expect(try await repository.fetch(id: 1)?.userName == "forbidden")
        #expect(try await repository.failedChanges().map(\.id) == [1])

        user.userName = "allowed"
        try await repository.save(user)
        #expect(try await repository.sync().pushed == 1)
        #expect(try server.state().users.first { $0.id == 1 }?.user_name == "allowed")
        #expect(try await repository.failedChanges().isEmpty)
    }

    /// Declared without DRF's trailing slash, a write meets Django's `301`: it is not followed (it would
    /// turn the write into a `GET`), and the change is held with the redirect in its reason, not lost.
    @Test func aWriteRedirectedByAMissingSlashIsHeldNotLost() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.seed(2)
        let repository = try server.makeRepository(DRFServer.api(.page, trailingSlash: false))
        try await repository.sync()

        var user = try #require(try await repository.fetch(id: 2))
        user.userName = "edited here"
        try await repository.save(user)
        let report = try await repository.sync()
        #expect(report.pushed == 0)
        let reason = try #require(report.failed.first?.reason)
        #expect(reason.hasPrefix("HTTP 301 (a redirect to /api/page/users/2/"))
        #expect(try server.state().users.first { $0.id == 2 }?.user_name == "user2")
        #expect(try await repository.fetch(id: 2)?.userName == "edited here")
        #expect(try await repository.pendingChangeCount() == 1)

        // Discarding is the app's decision; reverting takes the server's copy back.
        try await repository.revert(failedChangeOf: 2)
        #expect(try await cached(repository) == server.liveContents())
        #expect(try await repository.pendingChangeCount() == 0)
    }
}
