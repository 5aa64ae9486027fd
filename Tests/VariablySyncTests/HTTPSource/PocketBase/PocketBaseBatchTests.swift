import Foundation
import Testing
import VariablyHTTP
import VariablySQLite
import VariablySync

/// Counts the requests a repository sends, by method and path, and keeps their queries.
actor RequestTally {
    private(set) var requests: [String] = []
    /// Each request's method, path and decoded query: `GET /api/…/records?filter=(id='a')`.
    private(set) var withQueries: [String] = []

    func add(_ request: String, query: String? = nil) {
        requests.append(request)
        withQueries.append(request + (query.map { "?" + $0 } ?? ""))
    }

    func count(_ request: String) -> Int { requests.filter { $0 == request }.count }
}

/// A transport that records each request's method and path before sending it.
struct TallyingTransport: HTTPTransport {
    let base: any HTTPTransport
    let tally: RequestTally

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        await tally.add("\(request.method) \(request.url.path)", query: request.url.query(percentEncoded: false))
        return try await base.send(request)
    }
}

/// Writes through PocketBase's batch API (`POST /api/batch`, at most ``PocketBaseServer/batchLimit``
/// writes a request), against a real PocketBase: creates, edits and deletes go 50 a request, and a batch
/// PocketBase rolls back because one write is refused goes again one write a request.
@Suite(
    .serialized, .timeLimit(.minutes(10)),
    .enabled(if: PocketBaseServer.isAvailable, PocketBaseServer.unavailableReason))
struct PocketBaseBatchTests {
    /// docs/http.md's PocketBase recipe, its writes in batches.
    static let api = HTTPAPI(
        pull: PocketBaseUser.api.pull,
        push: .perRecord(
            HTTPRecordEndpoints(
                path: "api/collections/users/records", update: .patch, body: .changedFields,
                readOnlyFields: ["updated"], newIDs: .pocketBase
            )
            .inBatches(.pocketBase(maximumRequests: PocketBaseServer.batchLimit))),
        credentials: PocketBaseUser.api.credentials)

    private func makeRepository(
        _ server: PocketBaseServer, tally: RequestTally, api: HTTPAPI = Self.api
    ) throws -> Repository<PocketBaseUser> {
        let remote = HTTPRemoteSource<PocketBaseUser>(
            baseURL: server.baseURL, api: api, headers: ["Authorization": server.token], timeout: 60,
            transport: TallyingTransport(base: HTTPTransports.platformDefault, tally: tally))
        return try Repository(
            database: .inMemory(), remote: remote, configuration: SyncConfiguration(retryPolicy: quickRetries))
    }

    private func onServer(_ server: PocketBaseServer) async throws -> [PocketBaseUser.Content] {
        try await server.records("users", as: PocketBaseServer.ServerUser.self).map(\.content).sorted { $0.id < $1.id }
    }

    @Test func createsEditsAndDeletesGoFiftyARequest() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let tally = RequestTally()
        let repository = try makeRepository(server, tally: tally)
        for index in 0..<120 {
            _ = try await repository.create { PocketBaseUser(id: $0, userName: "user \(index)", age: index) }
        }
        let created = try await repository.sync()
        #expect(created.pushed == 120)
        #expect(await tally.count("POST /api/batch") == 3)
        #expect(await tally.count("POST /api/collections/users/records") == 0)
        #expect(try await onServer(server).count == 120)

        let users = try await repository.fetch(sortedBy: [SortDescriptor(\.userName)])
        for var user in users.prefix(60) {
            user.age += 1000
            try await repository.save(user)
        }
        for user in users.suffix(10) { try await repository.delete(id: user.id) }
        let edited = try await repository.sync()
        #expect(edited.pushed == 70)
        #expect(await tally.count("POST /api/batch") == 5)
        #expect(try await repository.unsentChanges().isEmpty)
        let cached = try await repository.fetch(sortedBy: [SortDescriptor(\.id)]).map(\.content)
        #expect(try await onServer(server) == cached)
        #expect(cached.count == 110)
        #expect(cached.filter { $0.age >= 1000 }.count == 60)
    }

    /// PocketBase applies a batch whole or not at all: one refused write (a user without its required
    /// name) rolls back the others, which then go one a request; the refused one waits for the app.
    @Test func aBatchRolledBackGoesAgainOneWriteARequest() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let tally = RequestTally()
        let repository = try makeRepository(server, tally: tally)
        for index in 0..<10 {
            _ = try await repository.create { PocketBaseUser(id: $0, userName: index == 4 ? "" : "user \(index)") }
        }
        let report = try await repository.sync()
        #expect(await tally.count("POST /api/batch") == 1)
        #expect(await tally.count("POST /api/collections/users/records") == 10)
        #expect(report.pushed == 9)
        #expect(report.failed.count == 1)
        #expect(try await repository.failedChanges().count == 1)
        #expect(try await onServer(server).count == 9)
    }

    /// Creates in doubt whose ids the device chose (three, two of them applied by the server before their
    /// answers were lost) are found by one `filter=(id='…'||id='…'||id='…')` request, not a `GET` each:
    /// the two adopted, the third created.
    @Test func createsInDoubtAreFoundByOneFilterOfTheirIDs() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let tally = RequestTally()
        let repository = try makeRepository(server, tally: tally, api: PocketBaseUser.api)
        try await repository.sync()
        var ids: [String] = []
        for index in 0..<3 {
            ids.append(try await repository.create { PocketBaseUser(id: $0, userName: "offline \(index)") }.id)
        }
        for (index, id) in ids.prefix(2).enumerated() {
            _ = try await server.create("users", fields: ["id": id, "user_name": "offline \(index)"])
        }
        try await repository.database.write {
            try $0.execute(sql: #"UPDATE "variably_pending_changes" SET "sent" = 1"#)
        }

        let report = try await repository.sync()
        #expect(report.pushed == 3)
        #expect(report.conflicts.isEmpty)
        let lookUps = await tally.withQueries.filter { $0.hasPrefix("GET") && $0.contains("id='") }
        #expect(lookUps.count == 1)
        #expect(ids.allSatisfy { id in lookUps.first?.contains("id='\(id)'") == true })
        let singles = await tally.requests.filter { request in ids.contains { request.hasSuffix("/\($0)") } }
        #expect(singles.filter { $0.hasPrefix("GET") }.isEmpty)
        #expect(await tally.count("POST /api/collections/users/records") == 1)
        #expect(try await onServer(server).map(\.userName).sorted() == ["offline 0", "offline 1", "offline 2"])
        #expect(try await repository.pendingChangeCount() == 0)
    }
}
