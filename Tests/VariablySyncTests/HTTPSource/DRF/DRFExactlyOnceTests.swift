import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync

/// Against a stock Django REST Framework, which ignores `Idempotency-Key`: a create whose answer was
/// lost is created once when the model declares a client reference (comments, on the `graph/`
/// endpoints), and an edit is never dropped because the cache was pulled before `If-Match` was turned on
/// (users, on `checked/users/`).
// One test at a time, and one server across the suites (DRFServer.start waits its turn, hence the
// time limit): each starts its own Django, which takes a core for a second or more.
@Suite(.serialized, .timeLimit(.minutes(15)), .enabled(if: DRFServer.isAvailable, DRFServer.unavailableReason))
struct DRFExactlyOnceTests {
    /// The comments' API with a client reference, or without one; `manyAtOnce`: creates in doubt looked up
    /// many a request (`?client_id__in=`), the answers' `count` telling whether they are whole unless
    /// `countsTotals` is false (then page numbers alone, which tell nothing of a cap).
    static func commentsAPI(clientReference: Bool, manyAtOnce: Bool = false, countsTotals: Bool = true) -> HTTPAPI {
        var pull = DRFServer.graphAPI("comments").pull
        var reference = HTTPRecordEndpoints.ClientReference(field: "client_id")
        if manyAtOnce {
            if countsTotals { pull.hasMore = .totalItems(at: "count") }
            reference = .init(field: "client_id", lookUp: .list(parameter: "client_id__in"))
        }
        return HTTPAPI(
            pull: pull,
            push: .perRecord(
                HTTPRecordEndpoints(
                    path: "graph/comments", trailingSlash: true, update: .patch, body: .changedFields,
                    readOnlyFields: ["id", "updated_at", "deleted"],
                    clientReference: clientReference ? reference : nil)))
    }

    /// The comments' repository, with the users' and posts' beside it on `database`, and their store.
    static func comments(
        _ server: DRFServer, on database: SQLiteDatabase, clientReference: Bool, manyAtOnce: Bool = false,
        countsTotals: Bool = true
    ) throws -> (Repository<Comment>, SyncStore) {
        let users = try server.makeGraphRepository(User.self, "users", database: database)
        let posts = try server.makeGraphRepository(Post.self, "posts", database: database)
        let remote = HTTPRemoteSource<Comment>(
            baseURL: server.baseURL,
            api: commentsAPI(clientReference: clientReference, manyAtOnce: manyAtOnce, countsTotals: countsTotals),
            headers: ["Authorization": "Token \(server.token)"], timeout: 10)
        let comments = try Repository(
            database: database, remote: remote, configuration: SyncConfiguration(retryPolicy: quickRetries))
        return (comments, try SyncStore(comments, posts, users))
    }

    /// The state a kill between the server's accept and the local commit leaves: the server has the
    /// comment, the device still has its create queued, sent, with no answer.
    private func createAcceptedButUnanswered(
        _ server: DRFServer, _ comments: Repository<Comment>, _ store: SyncStore, clientID: UUID
    ) async throws -> Comment {
        try server.graph("users", "create", fields: ["id": 1, "user_name": "ada"])
        try server.graph("posts", "create", fields: ["id": 1, "author_id": 1, "title": "kept"])
        try await store.sync()
        let local = try await comments.create {
            Comment(id: $0, postID: 1, body: "written offline", clientID: clientID)
        }
        try server.graph(
            "comments", "create",
            fields: ["id": 500, "post_id": 1, "body": "written offline", "client_id": clientID.uuidString])
        try await comments.database.write { try $0.execute(sql: #"UPDATE "variably_pending_changes" SET "sent" = 1"#) }
        #expect(try await comments.unsentChanges().map(\.status) == [.awaitingAnswer])
        return local
    }

    @Test func aCreateWhoseAnswerWasLostIsAdoptedByItsClientReference() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let database = try SQLiteDatabase.inMemory()
        let (comments, store) = try Self.comments(server, on: database, clientReference: true)
        let clientID = UUID()
        _ = try await createAcceptedButUnanswered(server, comments, store, clientID: clientID)
        try server.clearLog()

        let report = try await comments.sync()
        #expect(report.pushed == 1)
        let state = try server.state()
        #expect(state.comments.filter { $0.client_id?.lowercased() == clientID.uuidString.lowercased() }.count == 1)
        #expect(state.requests.filter { $0.method == "POST" }.isEmpty)
        #expect(state.requests.contains { $0.method == "GET" && $0.path.contains("client_id=") })
        // The server's id replaced the provisional one; nothing is left to send.
        #expect(try await comments.fetch().map(\.id) == [500])
        #expect(try await comments.unsentChanges().isEmpty)
    }

    /// Creates in doubt, two of three applied by the server before their answers were lost, are found by
    /// one request (`?client_id__in=a,b,c`), not one each: the two adopted, the third created, none twice.
    /// An answer whose `count` is not declared cannot prove the third absent (a page-size cap would hide
    /// it too): it is looked up alone before it is created.
    @Test(arguments: [true, false])
    func createsInDoubtAreLookedUpManyInOneRequest(countsTotals: Bool) async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let database = try SQLiteDatabase.inMemory()
        let (comments, store) = try Self.comments(
            server, on: database, clientReference: true, manyAtOnce: true, countsTotals: countsTotals)
        try server.graph("users", "create", fields: ["id": 1, "user_name": "ada"])
        try server.graph("posts", "create", fields: ["id": 1, "author_id": 1, "title": "kept"])
        try await store.sync()
        let clientIDs = [UUID(), UUID(), UUID()]
        for (index, clientID) in clientIDs.enumerated() {
            _ = try await comments.create { Comment(id: $0, postID: 1, body: "offline \(index)", clientID: clientID) }
        }
        for (index, clientID) in clientIDs.prefix(2).enumerated() {
            try server.graph(
                "comments", "create",
                fields: ["id": 500 + index, "post_id": 1, "body": "offline \(index)", "client_id": clientID.uuidString])
        }
        try await comments.database.write { try $0.execute(sql: #"UPDATE "variably_pending_changes" SET "sent" = 1"#) }
        try server.clearLog()

        let report = try await comments.sync()
        #expect(report.pushed == 3)
        let state = try server.state()
        let lookUps = state.requests.filter { $0.method == "GET" && $0.path.contains("client_id") }
        // Without totals, the third is asked for alone (a list of one), before it is created.
        #expect(lookUps.filter { $0.path.contains("client_id__in=") }.count == (countsTotals ? 1 : 2))
        #expect(lookUps.filter { $0.path.contains("client_id=") }.isEmpty)
        // A create whose reference the server does not hold is not looked up by its provisional id too.
        #expect(state.requests.filter { $0.method == "GET" && $0.path.contains("/-") }.isEmpty)
        #expect(state.requests.filter { $0.method == "POST" }.count == 1)
        for clientID in clientIDs {
            #expect(state.comments.filter { $0.client_id?.lowercased() == clientID.uuidString.lowercased() }.count == 1)
        }
        #expect(try await comments.fetch().map(\.id).sorted().prefix(2) == [500, 501])
        #expect(try await comments.unsentChanges().isEmpty)
    }

    /// Without a client reference the create is sent again; the unique constraint the docs recommend
    /// refuses it rather than doubling the comment, and the change waits for the app.
    @Test func withoutAClientReferenceTheUniqueConstraintRefusesTheSecondCreate() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let database = try SQLiteDatabase.inMemory()
        let (comments, store) = try Self.comments(server, on: database, clientReference: false)
        let clientID = UUID()
        _ = try await createAcceptedButUnanswered(server, comments, store, clientID: clientID)

        let report = try await comments.sync()
        #expect(report.failed.count == 1)
        #expect(try server.state().comments.filter { $0.client_id != nil }.count == 1)
        guard case .refused(let reason)? = try await comments.unsentChanges().first?.status else {
            Issue.record("the create sent again should be refused and wait for the app")
            return
        }
        #expect(reason.contains("HTTP 400"))
    }

    /// The users' repository on `database` through `checked/users/`, with `If-Match` or without versions.
    private static func users(_ server: DRFServer, on database: SQLiteDatabase, versioned: Bool) throws -> Repository<
        User
    > {
        let checked = DRFServer.api(.page, endpoint: "checked", concurrency: .ifMatch)
        let api =
            versioned
            ? checked
            : HTTPAPI(
                pull: checked.pull,
                push: .perRecord(
                    HTTPRecordEndpoints(
                        path: "checked/users", trailingSlash: true, update: .patch,
                        readOnlyFields: ["id", "updated_at"])))
        return try Repository(
            database: database,
            remote: HTTPRemoteSource<User>(
                baseURL: server.baseURL, api: api, headers: ["Authorization": "Token \(server.token)"]),
            configuration: SyncConfiguration(retryPolicy: quickRetries))
    }

    /// `If-Match` turned on for an existing cache: an edit made on the server before the first edit here
    /// is a conflict (the server's record differs from the one pulled), not overwritten with the
    /// server's current version; a delete of a record the server did not change goes with its version.
    @Test func turningOnIfMatchForAnExistingCacheOverwritesNoServerEdit() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.seed(3)
        let database = try SQLiteDatabase.inMemory()
        try await Self.users(server, on: database, versioned: false).sync()
        let users = try Self.users(server, on: database, versioned: true)

        try server.update(id: 1, fields: ["user_name": "edited there"])
        var user = try #require(try await users.fetch(id: 1))
        user.userName = "edited here"
        try await users.save(user)
        try await users.delete(id: 2)
        let report = try await users.sync()
        #expect(report.conflicts.map(\.id) == [1])
        #expect(try server.state().users.first { $0.id == 1 }?.user_name == "edited there")
        #expect(try await users.fetch(id: 1)?.userName == "edited there")
        // The delete of the record no one changed is accepted, not refused for a version rebuilt here.
        #expect(report.pushed == 1)
        #expect(try server.state().users.first { $0.id == 2 }?.deleted == true)
    }

    /// A cache pulled before the app declared `versionField` and `If-Match` keeps no version for its
    /// records: an edit reads the server's current version first, and is accepted, not thrown away as a
    /// conflict the server won; a real concurrent change is still a conflict.
    @Test func turningOnIfMatchForAnExistingCacheDropsNoEdit() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.seed(3)
        let database = try SQLiteDatabase.inMemory()
        let checked = DRFServer.api(.page, endpoint: "checked", concurrency: .ifMatch)
        let unversioned = HTTPAPI(
            pull: checked.pull,
            push: .perRecord(
                HTTPRecordEndpoints(
                    path: "checked/users", trailingSlash: true, update: .patch, readOnlyFields: ["id", "updated_at"])))
        let before = try Repository(
            database: database,
            remote: HTTPRemoteSource<User>(
                baseURL: server.baseURL, api: unversioned, headers: ["Authorization": "Token \(server.token)"]),
            configuration: SyncConfiguration(retryPolicy: quickRetries))
        try await before.sync()

        let after = try Repository(
            database: database,
            remote: HTTPRemoteSource<User>(
                baseURL: server.baseURL, api: checked, headers: ["Authorization": "Token \(server.token)"]),
            configuration: SyncConfiguration(retryPolicy: quickRetries))
        var user = try #require(try await after.fetch(id: 1))
        user.userName = "edited after the update"
        try await after.save(user)
        let report = try await after.sync()
        #expect(report.pushed == 1)
        #expect(report.conflicts.isEmpty)
        #expect(try server.state().users.first { $0.id == 1 }?.user_name == "edited after the update")

        // Another client edits it; an edit here based on the version it had is a real conflict.
        try server.update(id: 1, fields: ["user_name": "edited there"])
        user.userName = "edited here again"
        try await after.save(user)
        let conflicted = try await after.sync()
        #expect(conflicted.conflicts.count == 1)
        #expect(try await after.fetch(id: 1)?.userName == "edited there")
    }
}
