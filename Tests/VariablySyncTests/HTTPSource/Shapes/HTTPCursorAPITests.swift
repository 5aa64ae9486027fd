import Foundation
import UserSyncModels
import Testing
import VariablySync
import VariablyTestSupport

/// A repository against a real cursor-token API (`ShapedAPIServer.cursorAPI`): records and tombstones
/// under `data`, `meta.next_cursor` and `meta.has_more`. Every request has a deadline of a few seconds,
/// every server a lifetime, the suite a time limit.
@Suite(.timeLimit(.minutes(3)), .enabled(if: PythonScriptProcess.python != nil, "python3 is not installed"))
struct HTTPCursorAPITests {
    @Test func cacheMirrorsTheItemsAndTheirTombstonesAcrossSyncs() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("items", User.drafts(1...35))
        // Tombstones of records the client never had, and of one that never existed.
        try server.delete("items", ids: [4, 5, 40])
        let repository = try server.makeRepository(ShapedAPIServer.cursorAPI)

        let first = try await repository.sync()
        #expect(first.pulled == 33)
        #expect(first.pages == 4)
        #expect(try await cached(repository) == server.state().items)

        try server.put(
            "items",
            [User(id: 1, userName: "edited 1"), User(id: 2, userName: "edited 2")]
                + User.drafts(36...38))
        try server.delete("items", ids: [3, 6])
        let second = try await repository.sync()
        #expect(second.pulled == 5)
        #expect(second.deleted == 2)
        #expect(try await cached(repository) == server.state().items)

        let third = try await repository.sync()
        #expect(third.pulled == 0)
        #expect(third.deleted == 0)
        #expect(try await cached(repository) == server.state().items)
    }

    @Test func pullOnlyAPIKeepsALocalSaveQueuedAndStillPulls() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("items", User.drafts(1...5))
        let repository = try server.makeRepository(ShapedAPIServer.cursorAPI)
        try await repository.sync()

        var local = try #require(try await repository.fetch(id: 2))
        local.userName = "local edit"
        try await repository.save(local)
        try server.put(
            "items", [User(id: 3, userName: "server edit"), User(id: 2, userName: "server edit of 2")])
        let report = try await repository.sync()
        #expect(report.pushed == 0)
        // Nothing was pushed: the local edit stays queued and in the cache, over the server's edit of it.
        #expect(try await repository.pendingChangeCount() == 1)
        #expect(try await repository.fetch(id: 2)?.userName == "local edit")
        // The pull ran: another record's server edit arrived.
        #expect(try await repository.fetch(id: 3)?.userName == "server edit")
        let state = try server.state()
        #expect(state.items.first { $0.id == 2 }?.userName == "server edit of 2")
        #expect(!state.requests.contains { $0.method != "GET" })
    }

    @Test func batchPushVariantSyncsBothWaysAndSettlesAConflictForTheServer() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("items", User.drafts(1...20))
        let repository = try server.makeRepository(ShapedAPIServer.cursorAPIWithBatchPush)
        try await repository.sync()

        var edited = try #require(try await repository.fetch(id: 2))
        edited.userName = "local edit"
        try await repository.save([edited, User(id: 21, userName: "created locally")])
        try await repository.delete(id: 3)
        let pushed = try await repository.sync()
        #expect(pushed.pushed == 3)
        var state = try server.state()
        #expect(state.items.map(\.id) == [1, 2] + Array(4...21))
        #expect(state.items.first { $0.id == 2 }?.userName == "local edit")
        #expect(state.items.last?.userName == "created locally")
        #expect(try await cached(repository) == state.items)

        try server.put("items", [User(id: 5, userName: "server edit")])
        var stale = try #require(try await repository.fetch(id: 5))
        stale.userName = "stale local edit"
        try await repository.save(stale)
        let conflicted = try await repository.sync()
        #expect(conflicted.conflicts.map(\.resolution) == [.keptServer])
        state = try server.state()
        #expect(state.items.first { $0.id == 5 }?.userName == "server edit")
        #expect(try await cached(repository) == state.items)
        #expect(try await repository.pendingChangeCount() == 0)

        let quiet = try await repository.sync()
        #expect(quiet.pulled == 0)
        #expect(quiet.pushed == 0)
    }

    /// Each fault hits the second page of the first sync; `401` means the server accepts only the
    /// token that the request hook gets by refreshing.
    @Test(arguments: ["500", "429", "truncate", "slow", "repeat", "401"])
    func cacheMirrorsTheItemsThroughAFault(_ fault: String) async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("items", User.drafts(1...25))
        try server.delete("items", ids: [7])
        let vault = TokenVault(token: "old", refreshed: "new")
        try server.requireToken(fault == "401" ? "new" : "old")
        if fault != "401" { try server.fault(fault, path: "/items", skip: 1) }
        let repository = try server.makeRepository(
            ShapedAPIServer.cursorAPI, timeout: fault == "slow" ? 1 : 5, vault: vault)

        let report = try await repository.sync()
        var state = try server.state()
        #expect(state.faultsLeft == 0)
        #expect(try await cached(repository) == state.items)
        #expect(vault.refreshes == (fault == "401" ? 1 : 0))
        if ["500", "429", "truncate", "slow"].contains(fault) { #expect(report.retries >= 1) }
        if fault == "401" {
            #expect(state.requests.prefix(2).map(\.status) == [401, 200])
            #expect(state.requests.prefix(2).map(\.authorization) == ["Bearer old", "Bearer new"])
        } else {
            #expect(state.requests.contains { $0.fault == fault })
        }

        try server.put("items", [User(id: 1, userName: "edited")] + User.drafts(26...27))
        try server.delete("items", ids: [2])
        let second = try await repository.sync()
        #expect(second.pulled == 3)
        state = try server.state()
        #expect(try await cached(repository) == state.items)
        #expect(try await repository.sync().pulled == 0)
    }

    @Test func cursorThatNeverAdvancesStopsTheSyncWithAnError() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("items", User.drafts(1...5))
        // Bounded, so that a sync that does not notice ends (and fails the test) instead of looping.
        try server.fault("stuck", path: "/items", times: 200)
        let repository = try server.makeRepository(ShapedAPIServer.cursorAPI)
        do {
            try await repository.sync()
            Issue.record("a cursor that never advances should stop the sync")
        } catch SyncError.cursorDidNotAdvance(let cursor) {
            #expect(cursor == "stuck")
        }
        let pulls = try server.state().requests.filter { $0.path == "/items" }.count
        #expect(pulls <= 40)
        // The repeated page was applied, as often as it came, and changed nothing.
        #expect(try await cached(repository) == server.state().items)
    }

    @Test func unauthorizedAfterARefreshFailsTheSyncAfterTwoRequests() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("items", User.drafts(1...3))
        try server.requireToken("neither")
        let vault = TokenVault(token: "old", refreshed: "new")
        let repository = try server.makeRepository(ShapedAPIServer.cursorAPI, vault: vault)
        do {
            try await repository.sync()
            Issue.record("a token the server never accepts should fail the sync")
        } catch let error as RemoteSourceError {
            guard case .httpStatus(401, _) = error else {
                Issue.record("expected HTTP 401, got \(error)")
                return
            }
        }
        #expect(vault.refreshes == 1)
        #expect(try server.state().requests.map(\.authorization) == ["Bearer old", "Bearer new"])
        #expect(try await repository.count() == 0)
    }
}
