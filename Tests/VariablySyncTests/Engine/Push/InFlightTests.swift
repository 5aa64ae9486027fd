import Foundation
import Testing
import UserSyncModels
import VariablyHTTP
import VariablySQLite
import VariablySync

/// A transport whose `POST`s after the first `passing` never get an answer: the push is cut short as a
/// kill would cut it, with some requests on their way and the rest not started.
struct StallingTransport: HTTPTransport {
    let base: any HTTPTransport
    let passing: Int
    let posts = Counter()

    actor Counter {
        var count = 0
        func next() -> Int {
            count += 1
            return count
        }
    }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        if request.method == "POST", await posts.next() > passing {
            try await Task.sleep(for: .seconds(600))
        }
        return try await base.send(request)
    }
}

/// A change is *in flight* from the transaction before its request starts, one commit per window of
/// requests: after a push cut short, only the window on its way is in doubt, not the whole batch.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct InFlightTests {
    @Test func onlyTheWindowOnItsWayIsInFlightAfterAPushCutShort() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        let remote = HTTPRemoteSource<User>(
            baseURL: server.baseURL, api: ShapedAPIServer.pageAPI, timeout: 700,
            transport: StallingTransport(base: HTTPTransports.platformDefault, passing: 6))
        let repository = try Repository(
            database: .inMemory(), remote: remote,
            configuration: SyncConfiguration(pageSize: 10, pushBatchSize: 100, retryPolicy: quickRetries))
        try await repository.sync()
        for user in User.drafts(1...20) { try await repository.save(user) }

        let sync = Task { try await repository.sync() }
        // Six creates answered, four stalled on their way: then the sync is cut short.
        for _ in 0..<600 {
            if try server.state().users.count >= 6 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(300))
        sync.cancel()
        _ = try? await sync.value

        let unsent = try await repository.unsentChanges()
        let inFlight = unsent.filter { if case .awaitingAnswer = $0.status { true } else { false } }
        let queued = unsent.filter { if case .queued = $0.status { true } else { false } }
        #expect(try server.state().users.count == 6)
        // Answered creates whose answers were committed are done; the others (answered but cut short
        // before their commit, or stalled) are in flight, with the rest of the window they were marked
        // with (one commit per window of four): at most seven. The others were never sent, so nothing
        // about them is in doubt. Before, the whole batch was marked at once, and none stayed queued.
        #expect((1...7).contains(inFlight.count), "in flight: \(inFlight.count)")
        #expect(queued.count == unsent.count - inFlight.count)
        #expect(queued.count >= 20 - 6 - 7)
    }
}
