import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// Deletions without tombstones, without a re-download: the source lists the ids it holds, and the
/// cached records it no longer lists are removed; a queued edit is never dropped, an empty listing
/// never empties the cache, and a store goes parents first with children settled by their rules.
@Suite(.timeLimit(.minutes(5)))
struct RemoveDeletedRecordsTests {
    private func users(_ count: Int64) -> [User] {
        (1...count).map { User(id: $0, userName: "user \($0)") }
    }

    private func repository(_ server: SimulatedServer<User>, database: SQLiteDatabase? = nil) throws
        -> Repository<User>
    {
        try Repository(
            database: database ?? .inMemory(), remote: server,
            configuration: SyncConfiguration(pageSize: 10, retryPolicy: quickRetries))
    }

    @Test func theRecordsTheServerNoLongerListsAreRemoved() async throws {
        let server = try SimulatedServer(records: users(50), seed: 7)
        let repository = try repository(server)
        try await repository.sync()
        for id: Int64 in [3, 17, 18, 40, 50] { await server.delete(id: id) }

        let report = try await repository.removeDeletedRecords()
        #expect(report.isComplete)
        #expect(report.listedIDs == 45)
        #expect(report.pages == 5)
        #expect(report.deleted == 5)
        #expect(report.pulled == 0)
        let cached = try await repository.fetch(sortedBy: [SortDescriptor(\.id)]).map(\.id)
        #expect(cached == (await server.allRecords()).map(\.id).sorted())
        // Nothing left to remove: a second listing removes nothing.
        #expect(try await repository.removeDeletedRecords().deleted == 0)
    }

    @Test func aRecordWithAQueuedEditIsNotRemoved() async throws {
        let server = try SimulatedServer(records: users(5), seed: 7)
        let repository = try repository(server)
        try await repository.sync()
        var edited = try #require(try await repository.fetch(id: 2))
        edited.userName = "edited here"
        try await repository.save(edited)
        await server.delete(id: 2)
        await server.delete(id: 4)

        let report = try await repository.removeDeletedRecords()
        #expect(report.deleted == 1)
        #expect(try await repository.fetch(id: 2)?.userName == "edited here")
        #expect(try await repository.fetch(id: 4) == nil)
        #expect(try await repository.pendingChangeCount() == 1)
    }

    @Test func anEmptyListingRemovesNothingUnlessAllowed() async throws {
        let server = try SimulatedServer(records: users(5), seed: 7)
        let repository = try repository(server)
        try await repository.sync()
        for id: Int64 in 1...5 { await server.delete(id: id) }

        await #expect {
            try await repository.removeDeletedRecords()
        } throws: { error in
            guard case SyncError.resyncWouldDelete(_, let rows, let cached) = error else { return false }
            return rows == 5 && cached == 5
        }
        #expect(try await repository.count() == 5)
        let allowed = try await repository.removeDeletedRecords(allowingDeletionOf: .everyRow)
        #expect(allowed.deleted == 5)
        #expect(try await repository.count() == 0)
    }

    @Test func aSourceThatListsNoIDsSaysSo() async throws {
        let remote = HTTPRemoteSource<User>(
            baseURL: URL(string: "http://127.0.0.1:9/")!,
            api: HTTPAPI(pull: HTTPPullShape(path: "users", paging: .page(parameter: "page")), push: .none))
        let repository = try Repository(database: .inMemory(), remote: remote)
        await #expect {
            try await repository.removeDeletedRecords()
        } throws: { error in
            guard case RemoteSourceError.unavailable(let reason) = error else { return false }
            return reason.contains("idListing")
        }
    }

    /// An API that lists no deletions anywhere (`Link` pages of the live users): its collection, read as
    /// an id listing, finds what the server deleted.
    @Test func anHTTPListingFindsWhatTheServerDeletedSilently() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...25))
        let api = HTTPAPI(
            pull: ShapedAPIServer.pageAPI.pull, push: .none,
            idListing: HTTPPullShape(path: "users", paging: .nextLink, limitParameter: "per_page"))
        let repository = try server.makeRepository(api, pageSize: 10)
        try await repository.sync()
        #expect(try await repository.count() == 25)
        try server.delete("users", ids: [2, 11, 25])

        // An incremental sync does not see them: the server lists no deletions.
        try await repository.sync()
        #expect(try await repository.count() == 25)
        let report = try await repository.removeDeletedRecords()
        #expect(report.listedIDs == 22)
        #expect(report.deleted == 3)
        let cached = try await repository.fetch(sortedBy: [SortDescriptor(\.id)]).map(\.id)
        #expect(cached == (try server.state()).users.map(\.id))
    }

    /// A store removes parents first: a user the server deleted takes its posts with it (`CASCADE`),
    /// and the posts' own listing removes the rest.
    @Test func aStoreRemovesParentsFirstAndChildrenFollowTheirRules() async throws {
        let database = try SQLiteDatabase.inMemory()
        let userServer = try SimulatedServer(records: users(3), seed: 1)
        let posts = (1...3).flatMap { user in
            [Post(id: user * 10, authorID: user, title: "a"), Post(id: user * 10 + 1, authorID: user, title: "b")]
        }
        let postServer = try SimulatedServer(records: posts, seed: 2)
        let userRepository = try repository(userServer, database: database)
        let postRepository = try Repository(
            database: database, remote: postServer, configuration: SyncConfiguration(retryPolicy: quickRetries))
        let store = try SyncStore(postRepository, userRepository)
        try await store.sync()
        #expect(try await postRepository.count() == 6)

        await userServer.delete(id: 2)
        for id: Int64 in [20, 21, 31] { await postServer.delete(id: id) }
        let report = try await store.removeDeletedRecords()
        #expect(report.for(User.self)?.deleted == 1)
        // Posts 20 and 21 went with their user; 31 by the posts' own listing.
        #expect(report.for(Post.self)?.deleted == 1)
        #expect(try await postRepository.fetch(sortedBy: [SortDescriptor(\.id)]).map(\.id) == [10, 11, 30])
        #expect(try await userRepository.fetch(sortedBy: [SortDescriptor(\.id)]).map(\.id) == [1, 3])
    }

    /// `SyncStore.resync()` pulls every table from the start, parents first, and removes what the
    /// servers no longer have; an empty answer for a non-empty table stops it with nothing removed.
    @Test func aStoreResyncsEveryTable() async throws {
        let database = try SQLiteDatabase.inMemory()
        let userServer = try SimulatedServer(records: users(3), seed: 1)
        let postServer = try SimulatedServer(
            records: [Post(id: 10, authorID: 1, title: "a"), Post(id: 30, authorID: 3, title: "c")], seed: 2)
        let userRepository = try repository(userServer, database: database)
        let postRepository = try Repository(
            database: database, remote: postServer, configuration: SyncConfiguration(retryPolicy: quickRetries))
        let store = try SyncStore(userRepository, postRepository)
        try await store.sync()

        let report = try await store.resync()
        #expect(report.for(User.self)?.isComplete == true)
        #expect(report.for(Post.self)?.isComplete == true)
        #expect(try await userRepository.count() == 3)
        #expect(try await postRepository.count() == 2)

        for id: Int64 in [10, 30] { await postServer.delete(id: id) }
        let emptied = try await store.resync(allowingDeletionOf: .everyRow)
        #expect(emptied.for(Post.self)?.deleted == 2)
        #expect(try await postRepository.count() == 0)
    }
}
