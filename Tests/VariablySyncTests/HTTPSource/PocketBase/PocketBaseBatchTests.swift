import Foundation
import Testing
import VariablyHTTP
import VariablySQLite
import VariablySync

/// Counts the requests a repository sends, by method and path.
actor RequestTally {
    private(set) var requests: [String] = []

    func add(_ request: String) { requests.append(request) }

    func count(_ request: String) -> Int { requests.filter { $0 == request }.count }
}

/// A transport that records each request's method and path before sending it.
struct TallyingTransport: HTTPTransport {
    let base: any HTTPTransport
    let tally: RequestTally

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        await tally.add("\(request.method) \(request.url.path)")
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

    private func makeRepository(_ server: PocketBaseServer, tally: RequestTally) throws -> Repository<PocketBaseUser> {
        let remote = HTTPRemoteSource<PocketBaseUser>(
            baseURL: server.baseURL, api: Self.api, headers: ["Authorization": server.token], timeout: 60,
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
}
