import Foundation
import UserSyncModels
import Testing
import VariablySync
import VariablyTestSupport

/// A repository against a real page API (`ShapedAPIServer.pageAPI`): `updated_since` and `per_page`,
/// `Link` headers, `POST`/`PUT`/`DELETE` one user at a time with `If-Match`, no tombstones. Every request
/// has a deadline of a few seconds, every server a lifetime, the suite a time limit.
@Suite(.timeLimit(.minutes(3)), .enabled(if: PythonScriptProcess.python != nil, "python3 is not installed"))
struct HTTPPageAPITests {
    // MARK: - Pull

    @Test(arguments: [false, true])
    func usersSharingATimestampAcrossPagesAreNeitherSkippedNorPulledAgain(throughURLSession: Bool) async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...10))
        // 25 users written together: one `updated_at`, spread over three pages of 10.
        let shared = try server.put("users", User.drafts(11...35), stamp: .oneForAll)
        let boundary = try #require(shared.serverUsers.last?.updatedAt)
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI, throughURLSession: throughURLSession)

        let first = try await repository.sync()
        #expect(first.pulled == 35)
        // Page-number links give way to requests from the last value received: the first page, then one
        // request from user 10's stamp, then the shared stamp's three pages, its links followed.
        #expect(first.pages == 5)
        #expect(try await cached(repository) == server.state().users)
        // The server's `updated_at` text (milliseconds and `Z`) is what the cache holds as `updatedAt`.
        let iso8601 = ISO8601DateFormatter()
        iso8601.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let stamps = try server.state().serverUsers.compactMap { iso8601.date(from: $0.updatedAt) }
        #expect(stamps.count == 35)
        #expect(try await cached(repository).map(\.updatedAt) == stamps)

        // The server answers the 25 users at the boundary again; none of them is a change.
        let unchanged = try await repository.sync()
        #expect(unchanged.pulled == 0)
        #expect(unchanged.pages == 3)

        // A user committed late with the boundary timestamp, one moved off it, two written together.
        try server.put("users", [User(id: 36, userName: "late at the boundary")], stamp: .at(boundary))
        try server.put("users", [User(id: 12, userName: "edited 12")])
        try server.put(
            "users", [User(id: 3, userName: "edited 3"), User(id: 4, userName: "edited 4")],
            stamp: .oneForAll)
        let changed = try await repository.sync()
        #expect(changed.pulled == 4)
        #expect(try await cached(repository) == server.state().users)

        #expect(try await repository.sync().pulled == 0)
        #expect(try await cached(repository) == server.state().users)
        // The first page of the last sync: asked with the boundary, then the `Link`s followed as they came.
        let state = try server.state()
        let latest = try #require(state.serverUsers.map(\.updatedAt).max())
        let pulls = state.requests.filter { $0.path == "/users" }.map {
            $0.query.split(separator: "&").map(String.init).sorted()
        }
        let firstPage = try #require(pulls.last { !$0.contains { $0.hasPrefix("page=") } })
        #expect(firstPage == ["per_page=10", "updated_since=" + latest.replacingOccurrences(of: ":", with: "%3A")])
    }

    @Test func serverDeletionsReachTheCacheOnlyThroughResync() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...12))
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        try await repository.sync()

        try server.delete("users", ids: [4, 9])
        let sync = try await repository.sync()
        #expect(sync.deleted == 0)
        #expect(try await repository.count() == 12)

        let resync = try await repository.resync()
        #expect(resync.deleted == 2)
        #expect(try await cached(repository) == server.state().users)
        #expect(try await repository.sync().pulled == 0)
    }

    /// Each fault hits the second page of the first sync; `401` means the server accepts only the
    /// token that the request hook gets by refreshing.
    @Test(arguments: ["500", "429", "truncate", "slow", "repeat", "401"])
    func cacheMirrorsTheUsersThroughAFault(_ fault: String) async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...8))
        try server.put("users", User.drafts(9...20), stamp: .oneForAll)
        let vault = TokenVault(token: "old", refreshed: "new")
        try server.requireToken(fault == "401" ? "new" : "old")
        if fault != "401" { try server.fault(fault, path: "/users", skip: 1) }
        let repository = try server.makeRepository(
            ShapedAPIServer.pageAPI, timeout: fault == "slow" ? 1 : 5, vault: vault)

        let report = try await repository.sync()
        var state = try server.state()
        #expect(state.faultsLeft == 0)
        #expect(try await cached(repository) == state.users)
        #expect(vault.refreshes == (fault == "401" ? 1 : 0))
        if ["500", "429", "truncate", "slow"].contains(fault) { #expect(report.retries >= 1) }
        if fault == "401" {
            #expect(state.requests.prefix(2).map(\.authorization) == ["Bearer old", "Bearer new"])
        } else {
            #expect(state.requests.contains { $0.fault == fault })
        }

        try server.put(
            "users", [User(id: 1, userName: "edited"), User(id: 21, userName: "new")], stamp: .oneForAll)
        #expect(try await repository.sync().pulled == 2)
        state = try server.state()
        #expect(try await cached(repository) == state.users)
        #expect(try await repository.sync().pulled == 0)
    }

    /// The cursor of the page received before the failure holds the last value received: the pull
    /// resumes from it, not at the page-number link it stopped at, which other writes may have shifted.
    @Test func interruptedPullResumesFromTheLastValueReceived() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...12))
        try server.put("users", User.drafts(13...30), stamp: .oneForAll)
        // More failures than the 30 attempts of the retry policy, from the second page on.
        try server.fault("500", path: "/users", skip: 1, times: 30)
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        do {
            try await repository.sync()
            Issue.record("the sync should give up on the second page")
        } catch SyncError.retriesExhausted(let attempts, _) {
            #expect(attempts == 30)
        }
        #expect(try await repository.count() == 10)
        let tenth = try #require(server.state().serverUsers.first { $0.id == 10 }?.updatedAt)

        try server.put("users", [User(id: 31, userName: "written meanwhile")])
        let asked = try server.state().requests.count
        let resumed = try await repository.sync()
        #expect(resumed.pulled == 21)
        let state = try server.state()
        #expect(try await cached(repository) == state.users)
        let query = state.requests[asked].query.split(separator: "&").map(String.init)
        #expect(query.contains { $0.removingPercentEncoding == "updated_since=" + tenth })
        #expect(!query.contains { $0.hasPrefix("page=") })
        #expect(try await repository.sync().pulled == 0)
    }

    /// A server whose clock has a coarse resolution stamps later writes with the boundary timestamp
    /// itself: another client's edit, and the client's own accepted push, must still reach the cache.
    @Test func writesStampedWithTheBoundaryTimestampAreStillPulled() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...5), stamp: .oneForAll)
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI, pageSize: 2)
        try await repository.sync()
        try server.freezeClock()

        try server.put("users", [User(id: 2, userName: "edited by another client")])
        let other = try await repository.sync()
        #expect(other.pulled == 1)
        #expect(try await cached(repository) == server.state().users)

        var local = try #require(try await repository.fetch(id: 3))
        local.userName = "local edit"
        try await repository.save(local)
        let own = try await repository.sync()
        #expect(own.pushed == 1)
        #expect(try await cached(repository) == server.state().users)

        var again = try #require(try await repository.fetch(id: 3))
        again.userName = "local edit, again"
        try await repository.save(again)
        let second = try await repository.sync()
        #expect(second.pushed == 1)
        #expect(second.conflicts.isEmpty)
        let state = try server.state()
        #expect(state.users[2].userName == "local edit, again")
        #expect(try await cached(repository) == state.users)
        #expect(try await repository.sync().pulled == 0)
    }

    /// `Link` targets relative to the page's URL (RFC 8288, section 3.2): a path, or a query alone.
    @Test(arguments: ["/users?", "?"])
    func relativeNextLinksResolveAgainstThePageURL(_ prefix: String) async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...25))
        try server.writeLinks(withPrefix: prefix)
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        let report = try await repository.sync()
        #expect(report.pages == 3)
        #expect(try await cached(repository) == server.state().users)
        #expect(try server.state().requests.allSatisfy { $0.status == 200 && $0.path == "/users" })
    }

    @Test func nextLinkThatNeverAdvancesStopsTheSyncWithAnError() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...3))
        try server.put("users", User.drafts(4...6), stamp: .oneForAll)
        // Bounded, so that a sync that does not notice ends (and fails the test) instead of looping.
        try server.fault("stuck", path: "/users", times: 200)
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        do {
            try await repository.sync()
            Issue.record("a next link that never advances should stop the sync")
        } catch SyncError.cursorDidNotAdvance {}
        #expect(try server.state().requests.filter { $0.path == "/users" }.count <= 40)
        #expect(try await cached(repository) == server.state().users)
    }

    // MARK: - Push

    @Test(arguments: [false, true])
    func localCreatesUpdatesAndDeletesArePostedPutAndDeletedWithIfMatch(throughURLSession: Bool) async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...5))
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI, throughURLSession: throughURLSession)
        try await repository.sync()

        var edited = try #require(try await repository.fetch(id: 1))
        edited.userName = "local edit"
        try await repository.save(edited)
        try await repository.save(User(id: 6, userName: "created locally"))
        try await repository.delete(id: 2)
        let report = try await repository.sync()
        #expect(report.pushed == 3)
        #expect(report.conflicts.isEmpty)

        let state = try server.state()
        #expect(state.users.map(\.id) == [1, 3, 4, 5, 6])
        #expect(state.serverUsers.first.map { [$0.userName, "\($0.version)"] } == ["local edit", "2"])
        #expect(state.serverUsers.last.map { [$0.userName, "\($0.version)"] } == ["created locally", "1"])
        #expect(try await cached(repository) == state.users)
        // Sent concurrently: in any order.
        let writes = state.requests.filter { $0.method != "GET" }.sorted { $0.method > $1.method }
        #expect(
            writes.map { "\($0.method) \($0.path) \($0.status)" } == [
                "PUT /users/1 200", "POST /users 201", "DELETE /users/2 204",
            ])
        #expect(writes[0].ifMatch == "\"1\"")
        // The deletion sends the version the client pulled: `User` does not map `version`, so the engine reads it
        // from the versions it kept of the pulled JSON, not from the deleted row.
        #expect(writes[2].ifMatch == "\"1\"")
        #expect(Set(writes.compactMap(\.idempotencyKey)).count == 3)

        let quiet = try await repository.sync()
        #expect(quiet.pulled == 0)
        #expect(quiet.pushed == 0)
    }

    /// The 412 holds the current user, nothing, or an error object: the client reads the user from the
    /// answer only when it is one, else with `GET /users/{id}`.
    @Test(arguments: ["record", "empty", "error"])
    func staleIfMatchKeepsTheServerVersionByDefault(conflictBody: String) async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...3))
        try server.answerConflicts(with: conflictBody)
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        try await repository.sync()

        try server.put("users", [User(id: 2, userName: "server edit")])
        var local = try #require(try await repository.fetch(id: 2))
        local.userName = "local edit"
        try await repository.save(local)
        let report = try await repository.sync()
        #expect(report.conflicts.map(\.resolution) == [.keptServer])
        #expect(report.pushed == 0)

        let state = try server.state()
        #expect(state.users[1].userName == "server edit")
        #expect(state.serverUsers[1].version == 2)
        #expect(try await cached(repository) == state.users)
        #expect(try await repository.pendingChangeCount() == 0)
        let asked = state.requests.filter { $0.path == "/users/2" }.map {
            "\($0.method) \($0.ifMatch ?? "-") \($0.status)"
        }
        #expect(asked == ["PUT \"1\" 412"] + (conflictBody == "record" ? [] : ["GET - 200"]))
    }

    @Test func staleIfMatchWithClientWinsLandsTheLocalEdit() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...3))
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI, conflicts: .clientWins)
        try await repository.sync()

        try server.put("users", [User(id: 2, userName: "server edit")])
        var local = try #require(try await repository.fetch(id: 2))
        local.userName = "local edit"
        try await repository.save(local)
        let report = try await repository.sync()
        #expect(report.conflicts.map(\.resolution) == [.keptLocal])
        #expect(report.pushed == 1)

        let state = try server.state()
        #expect(state.users[1].userName == "local edit")
        #expect(state.serverUsers[1].version == 3)
        #expect(try await cached(repository) == state.users)
        let puts = state.requests.filter { $0.method == "PUT" }.map { "\($0.ifMatch ?? "-") \($0.status)" }
        #expect(puts == ["\"1\" 412", "\"2\" 200"])
        #expect(try await repository.sync().pulled == 0)
    }

    /// A deletion of a user the client only pulled must not win over a server edit it never saw.
    @Test(arguments: [false, true])
    func deletionOfAUserEditedOnTheServerSendsTheVersionLastSeen(clientWins: Bool) async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...3))
        let repository = try server.makeRepository(
            ShapedAPIServer.pageAPI, conflicts: clientWins ? .clientWins : .serverWins)
        try await repository.sync()

        try server.put("users", [User(id: 2, userName: "server edit")])
        try await repository.delete(id: 2)
        let report = try await repository.sync()
        #expect(report.conflicts.map(\.resolution) == [clientWins ? .keptLocal : .keptServer])

        let state = try server.state()
        #expect(state.users.map(\.id) == (clientWins ? [1, 3] : [1, 2, 3]))
        #expect(try await cached(repository) == state.users)
        #expect(try await repository.pendingChangeCount() == 0)
        let deletes = state.requests.filter { $0.method == "DELETE" }.map { "\($0.ifMatch ?? "-") \($0.status)" }
        #expect(deletes == (clientWins ? ["\"1\" 412", "\"2\" 204"] : ["\"1\" 412"]))
    }

    /// A user edited locally, then deleted, is deleted with the version it was pulled at.
    @Test func deletionOfAUserEditedLocallyKeepsThePulledVersion() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...3))
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        try await repository.sync()

        var local = try #require(try await repository.fetch(id: 3))
        local.userName = "local edit"
        try await repository.save(local)
        try await repository.delete(id: 3)
        let report = try await repository.sync()
        #expect(report.conflicts.isEmpty)
        let state = try server.state()
        #expect(state.users.map(\.id) == [1, 2])
        let writes = state.requests.filter { $0.method != "GET" }.map {
            "\($0.method) \($0.ifMatch ?? "-") \($0.status)"
        }
        #expect(writes == ["DELETE \"1\" 204"])
    }

    @Test func editOfAUserDeletedOnTheServerEndsDeletedByDefault() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...3))
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        try await repository.sync()

        try server.delete("users", ids: [3])
        var local = try #require(try await repository.fetch(id: 3))
        local.userName = "local edit"
        try await repository.save(local)
        let report = try await repository.sync()
        #expect(report.conflicts.map(\.resolution) == [.keptServer])
        #expect(try await cached(repository) == server.state().users)
        #expect(try await repository.pendingChangeCount() == 0)
    }

    @Test func editOfAUserDeletedOnTheServerIsPostedAgainWithClientWins() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...3))
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI, conflicts: .clientWins)
        try await repository.sync()

        try server.delete("users", ids: [3])
        var local = try #require(try await repository.fetch(id: 3))
        local.userName = "local edit"
        try await repository.save(local)
        let report = try await repository.sync()
        #expect(report.conflicts.map(\.resolution) == [.keptLocal])
        #expect(report.pushed == 1)
        let state = try server.state()
        #expect(state.serverUsers.last.map { [$0.userName, "\($0.version)"] } == ["local edit", "1"])
        #expect(try await cached(repository) == state.users)
        #expect(try await repository.pendingChangeCount() == 0)
        let writes = state.requests.filter { $0.method != "GET" }.map { "\($0.method) \($0.path) \($0.status)" }
        #expect(writes == ["PUT /users/3 404", "POST /users 201"])
    }

    /// A `POST` answered 404 says the collection is not there (a wrong path), not that the record was
    /// deleted: the new user stays, queued and held with the server's answer, and the app decides.
    @Test func createAnsweredNotFoundKeepsTheNewUserQueued() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        let wrongPath = HTTPAPI(
            pull: ShapedAPIServer.pageAPI.pull,
            push: .perRecord(HTTPRecordEndpoints(path: "nowhere", versionField: "version", concurrency: .ifMatch)))
        let repository = try server.makeRepository(wrongPath)
        try await repository.save(User(id: 1, userName: "created locally"))
        let report = try await repository.sync()
        #expect(report.failed.map(\.id) == [1])
        #expect(report.failed.first?.reason.hasPrefix("HTTP 404 (no collection at this URL") == true)
        #expect(try await repository.fetch(id: 1)?.userName == "created locally")
        #expect(try await repository.pendingChangeCount() == 1)
        let failed = try await repository.failedChanges()
        #expect(failed.map(\.id) == [1])
        #expect(failed.first?.isNew == true)
        // Held: the next sync does not send it again.
        _ = try await repository.sync()
        #expect(try server.state().requests.filter { $0.method == "POST" }.count == 1)
    }

    /// The fault hits the first `PUT` and the first `POST`: a lost answer (`truncate`, `slow`) after the
    /// server applied the write is retried with the same `Idempotency-Key` and answered as the first time.
    @Test(arguments: ["500", "429", "truncate", "slow", "401"])
    func localWritesLandExactlyOnceThroughAFault(_ fault: String) async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("users", User.drafts(1...3))
        let vault = TokenVault(token: "old", refreshed: "new")
        try server.requireToken("old")
        let repository = try server.makeRepository(
            ShapedAPIServer.pageAPI, timeout: fault == "slow" ? 1 : 5, vault: vault)
        try await repository.sync()

        if fault == "401" {
            try server.requireToken("new")
        } else {
            try server.fault(fault, method: "PUT", path: "/users/")
            try server.fault(fault, method: "POST", path: "/users")
        }
        var edited = try #require(try await repository.fetch(id: 1))
        edited.userName = "local edit"
        try await repository.save(edited)
        try await repository.save(User(id: 4, userName: "created locally"))
        let report = try await repository.sync()
        #expect(report.pushed == 2)
        #expect(report.conflicts.isEmpty)

        let state = try server.state()
        #expect(state.faultsLeft == 0)
        #expect(state.serverUsers.map(\.version) == [2, 1, 1, 1])
        #expect(state.users.map(\.userName) == ["local edit", "user 2", "user 3", "created locally"])
        #expect(try await cached(repository) == state.users)
        #expect(vault.refreshes == (fault == "401" ? 1 : 0))
        let writes = state.requests.filter { $0.method == "PUT" || $0.method == "POST" }
        #expect(Set(writes.compactMap(\.idempotencyKey)).count == 2)
        #expect(writes.allSatisfy { $0.idempotencyKey != nil })
    }
}
