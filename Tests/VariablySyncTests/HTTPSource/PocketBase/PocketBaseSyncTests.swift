import Foundation
import Testing
import VariablyHTTP
import VariablySQLite
import VariablySync

// What PocketBase 0.40 answers, checked against `pocketbase serve` (PocketBaseServerTests checks the ones
// marked * on every run, and these tests the sync's view of them):
// - * Lists: `GET /api/collections/users/records?page=1&perPage=500&sort=updated,id` answers
//   `{"items": [...], "page": 1, "perPage": 500, "totalItems": 2500, "totalPages": 5}`; a page after the
//   last answers 200 with `"items": []` (never 404). `skipTotal=1` answers `totalItems` and `totalPages` -1.
// - * `perPage` above 1000 is capped silently: `perPage=2000` answers 1000 items and `"perPage": 1000`;
//   `perPage=0` or `-1` answers 30 (the default); `perPage=abc` answers 400.
// - An unknown `sort` field or an unparsable `filter` answers 400 `{"data": {}, "message": "Something went
//   wrong while processing your request.", "status": 400}`. Unknown query parameters are ignored.
// - `updated` is written `2026-11-27 14:58:16.233Z` (a space, milliseconds, `Z`); many records share one
//   millisecond (a batch of 50 creates: about 10 per value), so `sort=updated,id` is needed for a stable order.
//   A filter compares the text: `filter=(updated>='2026-11-27 14:58:16.260Z')` works, but the ISO 8601
//   form `'2026-11-27T14:58:16.260Z'` is greater than every stamp of that day (`T` sorts after the space)
//   and silently matches none of them.
// - * Tokens: PocketBase reads a token it cannot verify (a wrong one, a bad signature, an expired one:
//   checked with a members' `authToken.duration` of 10 s) as no token, the request goes on as a guest's.
//   A list whose rule fails (a guest on `@request.auth.id != ""`, or a signed-in account on a rule it
//   fails) answers 200 `{"items": [], "page": 1, "perPage": 30, "totalItems": 0, "totalPages": 0}`;
//   a view, update or delete whose rule fails answers 404 `{"data": {}, "message": "The requested
//   resource wasn't found.", "status": 404}`, exactly as for a record that does not exist; a create
//   whose rule fails answers 400 `{"data": {}, "message": "Failed to create record.", "status": 400}`.
//   Only a collection whose rule is `null` (superusers only) answers 403 `{"data": {}, "message": "Only
//   superusers can perform this action.", "status": 403}`. 401 comes only from endpoints that need an
//   auth record, e.g. `auth-refresh`: `The request requires valid record authorization token.`
// - * Writes: `POST /api/collections/users/records` answers **200** (not 201) with the stored record
//   (`collectionId`, `collectionName`, `created`, `updated` added); `PATCH` answers 200 with the record;
//   `DELETE` answers 204 with no body. `created` and `updated` sent by a client are ignored, by a
//   superuser's too; an `id` equal to the record's own is accepted in a `PATCH`.
// - * Ids: a create may carry a client-chosen id of 15 characters of `[a-z0-9]`; a duplicate answers 400
//   `{"data": {"id": {"code": "validation_not_unique", "message": "Value must be unique."}}, "message":
//   "Failed to create record.", "status": 400}`; a shorter id answers 400 `validation_min_text_constraint`,
//   capitals 400 `validation_invalid_format`.
// - The batch API (`POST /api/batch`, `{"requests": [{"method", "url", "body"}]}`) answers 200 with
//   `[{"status": 200, "body": {...}}, ...]`; it is one transaction: one failing request answers 400
//   `{"data": {"requests": {"1": {"code": "batch_request_failed", "response": {...}}}}, ...}` and
//   nothing is written; more than `maxRequests` answers 400 `validation_length_too_long`.
// - * Relations: an empty one is written `""`, not `null`. Deleting a record empties the optional,
//   non-cascading relations to it (`reply_to`) and stamps their records again (a new `updated`);
//   a cascading relation deletes its records with it. A relation to an id that does not exist answers
//   400 `validation_missing_rel_records`; a duplicate of a unique index (`client_id`) 400 `validation_not_unique`.
// - * Deletions are for good: no tombstone, no soft delete; a deleted record, and every record deleted
//   with it by a cascade, simply leaves the lists.
//
// What the recipe (``PocketBaseUser/api``, docs/http.md "6. PocketBase") declares now, tested by
// PocketBaseRecipeTests: the changed-since filter as PocketBase's expression, `filter=(updated>='<stamp>')`
// with the stamp in its own text form, a look-back included; "has more" as `page < totalPages`; the
// page-size cap (a `pageSize` above 1000 is paged to the end, and without `hasMore` a short page is
// checked once); a `resync()` that would empty the cache under a bad token stops instead.
//
// What it still cannot declare, so these tests pin what happens instead:
// - A token PocketBase cannot verify is not an error: lists answer 200 with no items, writes 404.
//   Nothing here can tell "no records for you" from "no records", nor "not allowed" from "deleted":
//   an edit answered 404 is settled as the server's deletion.
// - A client reference's look-up is `?<query>=<value>`, which PocketBase ignores (`?client_id=c-2` lists
//   every comment); PocketBase needs `filter=(client_id='c-2')`.
// - Deletions: PocketBase keeps no trace of a deleted record, so `deletions` stays `.none` and only
//   `resync()` removes what it deleted.

/// A transport that loses the answer of the first request of `method` to `path`, whatever it was: the
/// caller sees `timedOut`, and cannot know whether the server applied the request.
struct LosingFirstWriteTransport: HTTPTransport {
    let base: any HTTPTransport
    let method: String
    var path = "/api/collections/users/records"
    let lost = Once()

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let response = try await base.send(request)
        if request.method == method, request.url.path.hasPrefix(path), await lost.first() {
            for try await _ in response.body {}
            throw HTTPTransportError.timedOut(request: "\(request.method) \(request.url.path)", seconds: 10)
        }
        return response
    }
}

/// A transport that fails the first request of `method` to `path` before sending it: the caller sees
/// `timedOut`, and the server never sees the request.
struct FailingFirstWriteTransport: HTTPTransport {
    let base: any HTTPTransport
    let method: String
    var path = "/api/collections/users/records"
    let failed = Once()

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        if request.method == method, request.url.path.hasPrefix(path), await failed.first() {
            throw HTTPTransportError.timedOut(request: "\(request.method) \(request.url.path)", seconds: 10)
        }
        return try await base.send(request)
    }
}

/// The repository against a real, unmodified PocketBase (``PocketBaseServer``), declared as docs/http.md's
/// recipe (``PocketBaseUser/api``): pushes one record at a time with `PATCH` of the changed fields and
/// `DELETE`, and a token PocketBase cannot verify. The server's records are checked after each step.
// One test at a time: each starts its own PocketBase.
@Suite(
    .serialized, .timeLimit(.minutes(10)),
    .enabled(if: PocketBaseServer.isAvailable, PocketBaseServer.unavailableReason))
struct PocketBaseSyncTests {
    /// The `Authorization` header's value, which a test may change between syncs.
    /// `@unchecked Sendable`: `value` is only touched while `lock` is held.
    final class Credential: @unchecked Sendable {
        private let lock = NSLock()
        private var value: String

        init(_ value: String) { self.value = value }

        var current: String {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }

    /// A repository of users on an in-memory cache, synced with `server` with the token `credential`
    /// holds at each request.
    private func makeRepository(
        _ server: PocketBaseServer, credential: Credential, pageSize: Int = 1000,
        transport: any HTTPTransport = HTTPTransports.platformDefault, retryPolicy: RetryPolicy = quickRetries
    ) throws -> Repository<PocketBaseUser> {
        let remote = HTTPRemoteSource<PocketBaseUser>(
            baseURL: server.baseURL, api: PocketBaseUser.api, timeout: 60, transport: transport
        ) { request, _ in request.setValue(credential.current, forHTTPHeaderField: "Authorization") }
        return try Repository(
            database: .inMemory(), remote: remote,
            configuration: SyncConfiguration(pageSize: pageSize, retryPolicy: retryPolicy))
    }

    private func cached(_ repository: Repository<PocketBaseUser>) async throws -> [PocketBaseUser.Content] {
        try await repository.fetch(sortedBy: [SortDescriptor(\.id)]).map(\.content)
    }

    private func onServer(_ server: PocketBaseServer) async throws -> [PocketBaseUser.Content] {
        try await server.users().map(\.content)
    }

    // MARK: - Pushes

    /// A local edit goes out as `PATCH` of the changed fields (a field edited on the server meanwhile
    /// stays), a local deletion as `DELETE` (answered 204); both checked on the server.
    @Test func editsAndDeletionsReachTheServer() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let ids = try await server.seedUsers(5)
        let repository = try makeRepository(server, credential: Credential(server.token))
        try await repository.sync()

        var user = try #require(try await repository.fetch(id: ids[1]))
        user.userName = "edited here"
        user.age = 41
        try await repository.save(user)
        try await repository.delete(id: ids[3])
        try await server.update("users", id: ids[1], fields: ["email_address": "edited@there.example"])
        let report = try await repository.sync()
        #expect(report.pushed == 2)
        #expect(report.failed.isEmpty)
        #expect(report.conflicts.isEmpty)

        let stored = try await server.users()
        #expect(stored.map(\.id) == ids.filter { $0 != ids[3] }.sorted())
        let edited = try #require(stored.first { $0.id == ids[1] })
        #expect(edited.user_name == "edited here")
        #expect(edited.age == 41)
        #expect(edited.email_address == "edited@there.example")
        #expect(try await cached(repository) == onServer(server))
        #expect(try await repository.pendingChangeCount() == 0)
    }

    /// A user saved on the device with an id of PocketBase's form is created with that id (`POST`,
    /// answered 200 with the stored record); a second device's create of the same id is refused (400
    /// `validation_not_unique`), kept as a failed change.
    @Test func aUserCreatedOnTheDeviceKeepsItsID() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let repository = try makeRepository(server, credential: Credential(server.token))
        try await repository.sync()

        try await repository.save(PocketBaseUser(id: "device000000001", userName: "offline", age: 7))
        let report = try await repository.sync()
        #expect(report.pushed == 1)
        #expect(report.failed.isEmpty)
        #expect(try await onServer(server).map(\.id) == ["device000000001"])
        #expect(try await repository.fetch(id: "device000000001")?.updated != nil)

        let other = try makeRepository(server, credential: Credential(server.token))
        try await other.save(PocketBaseUser(id: "device000000001", userName: "twin"))
        let refused = try await other.sync()
        #expect(refused.failed.map(\.id) == ["device000000001"])
        #expect(refused.failed.first?.reason.hasPrefix("HTTP 400") == true)
        #expect(refused.failed.first?.reason.contains("validation_not_unique") == true)
        #expect(try await onServer(server).map(\.userName) == ["offline"])

        // Reverting the refused create reads the server's record of that id: the cache takes it, not
        // an empty row.
        try await other.revert(failedChangeOf: "device000000001")
        #expect(try await other.fetch(id: "device000000001")?.userName == "offline")
        #expect(try await other.pendingChangeCount() == 0)
        #expect(try await cached(other) == onServer(server))
    }

    /// `create(_:)` draws an id of PocketBase's form (the recipe's `newIDs: .pocketBase`), which
    /// PocketBase accepts and keeps.
    @Test func aUserMadeWithCreateIsStoredUnderItsNewID() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let repository = try makeRepository(server, credential: Credential(server.token))
        let user = try await repository.create { PocketBaseUser(id: $0, userName: "made here", age: 5) }
        let report = try await repository.sync()
        #expect(report.pushed == 1)
        #expect(report.failed.isEmpty)
        #expect(try await onServer(server).map(\.id) == [user.id])
        #expect(try await cached(repository) == onServer(server))
    }

    /// A create whose answer is lost after PocketBase stored it: the sync's own retry finds the record
    /// by the id this device chose and adopts it, where the second `POST` would be refused as a
    /// duplicate of itself (`400 validation_not_unique`) and wait for the app as a failed change.
    @Test func aCreateWhoseAnswerIsLostIsFoundByItsOwnID() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let repository = try makeRepository(
            server, credential: Credential(server.token),
            transport: LosingFirstWriteTransport(base: HTTPTransports.platformDefault, method: "POST"))
        try await repository.sync()

        try await repository.save(PocketBaseUser(id: "device000000002", userName: "sent once", age: 3))
        let report = try await repository.sync()
        #expect(report.failed.isEmpty)
        #expect(report.conflicts.isEmpty)
        #expect(report.pushed == 1)
        #expect(report.retries >= 1)
        #expect(try await onServer(server).map(\.id) == ["device000000002"])
        #expect(try await repository.failedChanges().isEmpty)
        #expect(try await repository.pendingChangeCount() == 0)
        #expect(try await cached(repository) == onServer(server))
    }

    /// A create whose answer was lost, edited before the next sync: the server holds the record as the
    /// create sent it, which is this device's own create, and the edit goes on top of it. (It was taken
    /// for another device's record and the server's copy won: 5 of 377 edits lost in 233 runs of
    /// `PocketBaseManyDevicesTests`.)
    @Test func aCreateInDoubtEditedBeforeTheNextSyncKeepsTheEdit() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let repository = try makeRepository(
            server, credential: Credential(server.token),
            transport: LosingFirstWriteTransport(base: HTTPTransports.platformDefault, method: "POST"),
            retryPolicy: .never)
        try await repository.sync()
        try await repository.save(PocketBaseUser(id: "device000000004", userName: "sent once", age: 4))
        await #expect(throws: (any Error).self) { try await repository.sync() }
        #expect(try await onServer(server).map(\.userName) == ["sent once"])

        var user = try #require(try await repository.fetch(id: "device000000004"))
        user.userName = "edited while in doubt"
        try await repository.save(user)
        let report = try await repository.sync()
        #expect(report.conflicts.isEmpty)
        #expect(report.failed.isEmpty)
        #expect(try await onServer(server).map(\.userName) == ["edited while in doubt"])
        #expect(try await cached(repository) == onServer(server))
        #expect(try await repository.pendingChangeCount() == 0)
    }

    /// The edit of a create in doubt whose adoption was itself cut short (the sync failed before its
    /// `PATCH` reached the server): the next sync finds the server holding the body the create first sent,
    /// which is still this device's own create, and the edit goes on top. Marking the adoption as sent
    /// replaced the body the create had sent with the edited one, and the server's copy then read as
    /// another device's record: a conflict the server won, the edit gone.
    @Test func aCreateInDoubtWhoseAdoptionWasCutShortKeepsTheEdit() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let losing = try makeRepository(
            server, credential: Credential(server.token),
            transport: LosingFirstWriteTransport(base: HTTPTransports.platformDefault, method: "POST"),
            retryPolicy: .never)
        try await losing.sync()
        try await losing.save(PocketBaseUser(id: "device000000005", userName: "sent once", age: 5))
        await #expect(throws: (any Error).self) { try await losing.sync() }
        #expect(try await onServer(server).map(\.userName) == ["sent once"])

        var user = try #require(try await losing.fetch(id: "device000000005"))
        user.userName = "edited while in doubt"
        try await losing.save(user)
        // The adoption's update never leaves: the sync fails before it reaches the server.
        let cut = try Repository(
            database: losing.database,
            remote: HTTPRemoteSource<PocketBaseUser>(
                baseURL: server.baseURL, api: PocketBaseUser.api, headers: ["Authorization": server.token], timeout: 60,
                transport: FailingFirstWriteTransport(base: HTTPTransports.platformDefault, method: "PATCH")),
            configuration: SyncConfiguration(retryPolicy: .never))
        await #expect(throws: (any Error).self) { try await cut.sync() }
        #expect(try await onServer(server).map(\.userName) == ["sent once"])

        let report = try await cut.sync()
        #expect(report.conflicts.isEmpty)
        #expect(try await onServer(server).map(\.userName) == ["edited while in doubt"])
        #expect(try await cached(cut) == onServer(server))
        #expect(try await cut.pendingChangeCount() == 0)
    }

    /// A create in doubt whose id the server holds with other values (another device's create of the
    /// same id) is a conflict the policy settles, not a failed change: the server's copy wins here.
    @Test func aCreateInDoubtMeetingAnotherRecordOfItsIDIsAConflict() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let first = try makeRepository(server, credential: Credential(server.token))
        try await first.save(PocketBaseUser(id: "device000000003", userName: "first", age: 1))
        try await first.sync()

        // The second device's `POST` is refused (the id is taken), and that answer lost: its retry
        // cannot know whether the first request created the record.
        let second = try makeRepository(
            server, credential: Credential(server.token),
            transport: LosingFirstWriteTransport(base: HTTPTransports.platformDefault, method: "POST"))
        try await second.save(PocketBaseUser(id: "device000000003", userName: "second", age: 2))
        let report = try await second.sync()
        #expect(report.failed.isEmpty)
        #expect(report.retries >= 1)
        #expect(report.conflicts.map(\.id) == ["device000000003"])
        #expect(try await onServer(server).map(\.userName) == ["first"])
        #expect(try await second.fetch(id: "device000000003")?.userName == "first")
        #expect(try await second.pendingChangeCount() == 0)
    }

    // MARK: - Tokens

    /// With a token PocketBase cannot verify, nothing fails and nothing says so: PocketBase serves a
    /// guest, whose list answers 200 with no items and whose writes answer 404. Pinned as it is: a pull
    /// changes nothing; an edit is taken for a conflict with the server's deletion and the server wins
    /// (the edit is lost, the record leaves the cache); a deletion answered 404 is done; a `resync()`
    /// refuses to empty the cache. With a good token, a `resync()` brings the server's records back,
    /// not the edit.
    /// PocketBase answers a bad token like no token: an empty list, `404` for an update or delete, `400`
    /// for a create. With the recipe's credentials check, none of these is settled: the sync stops with
    /// the credentials error, the edit and the deletion stay queued, and reach the server once the
    /// token is good again.
    @Test func aBadTokenStopsTheSyncAndLosesNoEdit() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let ids = try await server.seedUsers(5)
        let credential = Credential(server.token)
        let repository = try makeRepository(server, credential: credential)
        try await repository.sync()
        let before = try await cached(repository)
        #expect(before.count == 5)

        credential.current = server.invalidToken
        var user = try #require(try await repository.fetch(id: ids[0]))
        user.age = 77
        try await repository.save(user)
        try await repository.delete(id: ids[1])
        await #expect(throws: RemoteSourceError.self) { try await repository.sync() }
        #expect(try await repository.fetch(id: ids[0])?.age == 77)
        #expect(try await repository.count() == 4)
        #expect(try await repository.failedChanges().isEmpty)
        #expect(try await repository.unsentChanges().count == 2)
        #expect(try await onServer(server) == before)
        await #expect(throws: (any Error).self) { try await repository.resync() }
        #expect(try await repository.count() == 4)

        credential.current = server.token
        let report = try await repository.sync()
        #expect(report.pushed == 2)
        #expect(try await repository.unsentChanges().isEmpty)
        #expect(try await onServer(server).first { $0.id == ids[0] }?.age == 77)
        #expect(try await onServer(server).contains { $0.id == ids[1] } == false)
        #expect(try await cached(repository) == (try await onServer(server)))
    }

    /// A token that expires between two syncs: PocketBase then reads the request as a guest's (an empty
    /// list, `404` for an update or a delete). The declared check tells, the sync stops, nothing is dropped
    /// or deleted, and a fresh token sends everything.
    @Test func anExpiredTokenStopsTheSyncAndLosesNoEdit() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let ids = try await server.seedUsers(5)
        let credential = Credential(try await server.memberToken(lasting: 10))
        let repository = try makeRepository(server, credential: credential)
        try await repository.sync()
        let before = try await cached(repository)
        #expect(before.count == 5)

        // PocketBase takes no shorter duration than 10 seconds.
        try await Task.sleep(for: .seconds(11))
        var user = try #require(try await repository.fetch(id: ids[2]))
        user.userName = "renamed after expiry"
        try await repository.save(user)
        try await repository.delete(id: ids[3])
        let error = try await #require(throws: RemoteSourceError.self) { try await repository.sync() }
        #expect("\(error)".contains("401"))
        await #expect(throws: (any Error).self) { try await repository.resync() }
        #expect(try await repository.count() == 4)
        #expect(try await repository.failedChanges().isEmpty)
        #expect(try await repository.unsentChanges().count == 2)
        #expect(try await onServer(server) == before)

        credential.current = try await server.memberToken(lasting: 600)
        let report = try await repository.sync()
        #expect(report.pushed == 2)
        #expect(try await onServer(server).first { $0.id == ids[2] }?.userName == "renamed after expiry")
        #expect(try await onServer(server).contains { $0.id == ids[3] } == false)
        #expect(try await cached(repository) == (try await onServer(server)))
    }
}
