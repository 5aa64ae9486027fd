import Foundation
import Testing
import VariablySync
import VariablyTestSupport

/// A repository against a real page API (`ShapedAPIServer.pageAPI`): `updated_since` and `per_page`,
/// `Link` headers, `POST`/`PUT`/`DELETE` one post at a time with `If-Match`, no tombstones. Every request
/// has a deadline of a few seconds, every server a lifetime, the suite a time limit.
@Suite(.timeLimit(.minutes(3)), .enabled(if: PythonScriptProcess.python != nil, "python3 is not installed"))
struct HTTPPageAPITests {
    // MARK: - Pull

    @Test(arguments: [false, true])
    func postsSharingATimestampAcrossPagesAreNeitherSkippedNorPulledAgain(throughURLSession: Bool) async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("posts", VersionedPost.drafts(1...10))
        // 25 posts written together: one `updated_at`, spread over three pages of 10.
        let shared = try server.put("posts", VersionedPost.drafts(11...35), stamp: .oneForAll)
        let boundary = try #require(shared.posts.last?.updatedAt)
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI, throughURLSession: throughURLSession)

        let first = try await repository.sync()
        #expect(first.pulled == 35)
        #expect(first.pages == 4)
        #expect(try await cachedPosts(repository) == server.state().posts)

        // The server answers the 25 posts at the boundary again; none of them is a change.
        let unchanged = try await repository.sync()
        #expect(unchanged.pulled == 0)
        #expect(unchanged.pages == 3)

        // A post committed late with the boundary timestamp, one moved off it, two written together.
        try server.put("posts", [VersionedPost(id: 36, title: "late at the boundary")], stamp: .at(boundary))
        try server.put("posts", [VersionedPost(id: 12, title: "edited 12")])
        try server.put(
            "posts", [VersionedPost(id: 3, title: "edited 3"), VersionedPost(id: 4, title: "edited 4")],
            stamp: .oneForAll)
        let changed = try await repository.sync()
        #expect(changed.pulled == 4)
        #expect(try await cachedPosts(repository) == server.state().posts)

        #expect(try await repository.sync().pulled == 0)
        #expect(try await cachedPosts(repository) == server.state().posts)
        // The first page of the last sync: asked with the boundary, then the `Link`s followed as they came.
        let state = try server.state()
        let latest = try #require(state.posts.compactMap(\.updatedAt).max())
        let pulls = state.requests.filter { $0.path == "/posts" }.map {
            $0.query.split(separator: "&").map(String.init).sorted()
        }
        let firstPage = try #require(pulls.last { !$0.contains { $0.hasPrefix("page=") } })
        #expect(firstPage == ["per_page=10", "updated_since=" + latest.replacingOccurrences(of: ":", with: "%3A")])
    }

    @Test func serverDeletionsReachTheCacheOnlyThroughResync() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("posts", VersionedPost.drafts(1...12))
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        try await repository.sync()

        try server.delete("posts", ids: [4, 9])
        let sync = try await repository.sync()
        #expect(sync.deleted == 0)
        #expect(try await repository.count() == 12)

        let resync = try await repository.resync()
        #expect(resync.deleted == 2)
        #expect(try await cachedPosts(repository) == server.state().posts)
        #expect(try await repository.sync().pulled == 0)
    }

    /// Each fault hits the second page of the first sync; `401` means the server accepts only the
    /// token that the request hook gets by refreshing.
    @Test(arguments: ["500", "429", "truncate", "slow", "repeat", "401"])
    func cacheMirrorsThePostsThroughAFault(_ fault: String) async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("posts", VersionedPost.drafts(1...8))
        try server.put("posts", VersionedPost.drafts(9...20), stamp: .oneForAll)
        let vault = TokenVault(token: "old", refreshed: "new")
        try server.requireToken(fault == "401" ? "new" : "old")
        if fault != "401" { try server.fault(fault, path: "/posts", skip: 1) }
        let repository = try server.makeRepository(
            ShapedAPIServer.pageAPI, timeout: fault == "slow" ? 1 : 5, vault: vault)

        let report = try await repository.sync()
        var state = try server.state()
        #expect(state.faultsLeft == 0)
        #expect(try await cachedPosts(repository) == state.posts)
        #expect(vault.refreshes == (fault == "401" ? 1 : 0))
        if ["500", "429", "truncate", "slow"].contains(fault) { #expect(report.retries >= 1) }
        if fault == "401" {
            #expect(state.requests.prefix(2).map(\.authorization) == ["Bearer old", "Bearer new"])
        } else {
            #expect(state.requests.contains { $0.fault == fault })
        }

        try server.put(
            "posts", [VersionedPost(id: 1, title: "edited"), VersionedPost(id: 21, title: "new")], stamp: .oneForAll)
        #expect(try await repository.sync().pulled == 2)
        state = try server.state()
        #expect(try await cachedPosts(repository) == state.posts)
        #expect(try await repository.sync().pulled == 0)
    }

    @Test func interruptedPullResumesAtTheNextLinkItStoppedAt() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("posts", VersionedPost.drafts(1...12))
        try server.put("posts", VersionedPost.drafts(13...30), stamp: .oneForAll)
        // More failures than the 30 attempts of the retry policy, from the second page on.
        try server.fault("500", path: "/posts", skip: 1, times: 30)
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        do {
            try await repository.sync()
            Issue.record("the sync should give up on the second page")
        } catch SyncError.retriesExhausted(let attempts, _) {
            #expect(attempts == 30)
        }
        #expect(try await repository.count() == 10)

        try server.put("posts", [VersionedPost(id: 31, title: "written meanwhile")])
        let asked = try server.state().requests.count
        let resumed = try await repository.sync()
        #expect(resumed.pulled == 21)
        let state = try server.state()
        #expect(try await cachedPosts(repository) == state.posts)
        let query = state.requests[asked].query.split(separator: "&").map(String.init)
        #expect(query.contains("page=2"))
        #expect(try await repository.sync().pulled == 0)
    }

    /// A server whose clock has a coarse resolution stamps later writes with the boundary timestamp
    /// itself: another client's edit, and the client's own accepted push, must still reach the cache.
    @Test func writesStampedWithTheBoundaryTimestampAreStillPulled() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("posts", VersionedPost.drafts(1...5), stamp: .oneForAll)
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI, pageSize: 2)
        try await repository.sync()
        try server.freezeClock()

        try server.put("posts", [VersionedPost(id: 2, title: "edited by another client")])
        let other = try await repository.sync()
        #expect(other.pulled == 1)
        #expect(try await cachedPosts(repository) == server.state().posts)

        var local = try #require(try await repository.fetch(id: 3))
        local.title = "local edit"
        try await repository.save(local)
        let own = try await repository.sync()
        #expect(own.pushed == 1)
        #expect(try await cachedPosts(repository) == server.state().posts)

        var again = try #require(try await repository.fetch(id: 3))
        again.title = "local edit, again"
        try await repository.save(again)
        let second = try await repository.sync()
        #expect(second.pushed == 1)
        #expect(second.conflicts.isEmpty)
        let state = try server.state()
        #expect(state.posts[2].title == "local edit, again")
        #expect(try await cachedPosts(repository) == state.posts)
        #expect(try await repository.sync().pulled == 0)
    }

    /// `Link` targets relative to the page's URL (RFC 8288, section 3.2): a path, or a query alone.
    @Test(arguments: ["/posts?", "?"])
    func relativeNextLinksResolveAgainstThePageURL(_ prefix: String) async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("posts", VersionedPost.drafts(1...25))
        try server.writeLinks(withPrefix: prefix)
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        let report = try await repository.sync()
        #expect(report.pages == 3)
        #expect(try await cachedPosts(repository) == server.state().posts)
        #expect(try server.state().requests.allSatisfy { $0.status == 200 && $0.path == "/posts" })
    }

    @Test func nextLinkThatNeverAdvancesStopsTheSyncWithAnError() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("posts", VersionedPost.drafts(1...3))
        try server.put("posts", VersionedPost.drafts(4...6), stamp: .oneForAll)
        // Bounded, so that a sync that does not notice ends (and fails the test) instead of looping.
        try server.fault("stuck", path: "/posts", times: 200)
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        do {
            try await repository.sync()
            Issue.record("a next link that never advances should stop the sync")
        } catch SyncError.cursorDidNotAdvance {}
        #expect(try server.state().requests.filter { $0.path == "/posts" }.count <= 40)
        #expect(try await cachedPosts(repository) == server.state().posts)
    }

    // MARK: - Push

    @Test(arguments: [false, true])
    func localCreatesUpdatesAndDeletesArePostedPutAndDeletedWithIfMatch(throughURLSession: Bool) async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("posts", VersionedPost.drafts(1...5))
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI, throughURLSession: throughURLSession)
        try await repository.sync()

        var edited = try #require(try await repository.fetch(id: 1))
        edited.title = "local edit"
        try await repository.save(edited)
        try await repository.save(VersionedPost(id: 6, title: "created locally"))
        try await repository.delete(id: 2)
        let report = try await repository.sync()
        #expect(report.pushed == 3)
        #expect(report.conflicts.isEmpty)

        let state = try server.state()
        #expect(state.posts.map(\.id) == [1, 3, 4, 5, 6])
        #expect(state.posts.first.map { [$0.title, "\($0.version ?? 0)"] } == ["local edit", "2"])
        #expect(state.posts.last.map { [$0.title, "\($0.version ?? 0)"] } == ["created locally", "1"])
        #expect(try await cachedPosts(repository) == state.posts)
        // Sent concurrently: in any order.
        let writes = state.requests.filter { $0.method != "GET" }.sorted { $0.method > $1.method }
        #expect(
            writes.map { "\($0.method) \($0.path) \($0.status)" } == [
                "PUT /posts/1 200", "POST /posts 201", "DELETE /posts/2 204",
            ])
        #expect(writes[0].ifMatch == "\"1\"")
        // The deletion sends the version the client pulled, read from the deleted row.
        #expect(writes[2].ifMatch == "\"1\"")
        #expect(Set(writes.compactMap(\.idempotencyKey)).count == 3)

        let quiet = try await repository.sync()
        #expect(quiet.pulled == 0)
        #expect(quiet.pushed == 0)
    }

    /// The 412 holds the current post, nothing, or an error object: the client reads the post from the
    /// answer only when it is one, else with `GET /posts/{id}`.
    @Test(arguments: ["record", "empty", "error"])
    func staleIfMatchKeepsTheServerVersionByDefault(conflictBody: String) async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("posts", VersionedPost.drafts(1...3))
        try server.answerConflicts(with: conflictBody)
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        try await repository.sync()

        try server.put("posts", [VersionedPost(id: 2, title: "server edit")])
        var local = try #require(try await repository.fetch(id: 2))
        local.title = "local edit"
        try await repository.save(local)
        let report = try await repository.sync()
        #expect(report.conflicts.map(\.resolution) == [.keptServer])
        #expect(report.pushed == 0)

        let state = try server.state()
        #expect(state.posts[1].title == "server edit")
        #expect(state.posts[1].version == 2)
        #expect(try await cachedPosts(repository) == state.posts)
        #expect(try await repository.pendingChangeCount() == 0)
        let asked = state.requests.filter { $0.path == "/posts/2" }.map {
            "\($0.method) \($0.ifMatch ?? "-") \($0.status)"
        }
        #expect(asked == ["PUT \"1\" 412"] + (conflictBody == "record" ? [] : ["GET - 200"]))
    }

    @Test func staleIfMatchWithClientWinsLandsTheLocalEdit() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("posts", VersionedPost.drafts(1...3))
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI, conflicts: .clientWins)
        try await repository.sync()

        try server.put("posts", [VersionedPost(id: 2, title: "server edit")])
        var local = try #require(try await repository.fetch(id: 2))
        local.title = "local edit"
        try await repository.save(local)
        let report = try await repository.sync()
        #expect(report.conflicts.map(\.resolution) == [.keptLocal])
        #expect(report.pushed == 1)

        let state = try server.state()
        #expect(state.posts[1].title == "local edit")
        #expect(state.posts[1].version == 3)
        #expect(try await cachedPosts(repository) == state.posts)
        let puts = state.requests.filter { $0.method == "PUT" }.map { "\($0.ifMatch ?? "-") \($0.status)" }
        #expect(puts == ["\"1\" 412", "\"2\" 200"])
        #expect(try await repository.sync().pulled == 0)
    }

    /// A deletion of a post the client only pulled must not win over a server edit it never saw.
    @Test(arguments: [false, true])
    func deletionOfAPostEditedOnTheServerSendsTheVersionLastSeen(clientWins: Bool) async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("posts", VersionedPost.drafts(1...3))
        let repository = try server.makeRepository(
            ShapedAPIServer.pageAPI, conflicts: clientWins ? .clientWins : .serverWins)
        try await repository.sync()

        try server.put("posts", [VersionedPost(id: 2, title: "server edit")])
        try await repository.delete(id: 2)
        let report = try await repository.sync()
        #expect(report.conflicts.map(\.resolution) == [clientWins ? .keptLocal : .keptServer])

        let state = try server.state()
        #expect(state.posts.map(\.id) == (clientWins ? [1, 3] : [1, 2, 3]))
        #expect(try await cachedPosts(repository) == state.posts)
        #expect(try await repository.pendingChangeCount() == 0)
        let deletes = state.requests.filter { $0.method == "DELETE" }.map { "\($0.ifMatch ?? "-") \($0.status)" }
        #expect(deletes == (clientWins ? ["\"1\" 412", "\"2\" 204"] : ["\"1\" 412"]))
    }

    /// A post edited locally, then deleted, is deleted with the version it was pulled at.
    @Test func deletionOfAPostEditedLocallyKeepsThePulledVersion() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("posts", VersionedPost.drafts(1...3))
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        try await repository.sync()

        var local = try #require(try await repository.fetch(id: 3))
        local.title = "local edit"
        try await repository.save(local)
        try await repository.delete(id: 3)
        let report = try await repository.sync()
        #expect(report.conflicts.isEmpty)
        let state = try server.state()
        #expect(state.posts.map(\.id) == [1, 2])
        let writes = state.requests.filter { $0.method != "GET" }.map {
            "\($0.method) \($0.ifMatch ?? "-") \($0.status)"
        }
        #expect(writes == ["DELETE \"1\" 204"])
    }

    @Test func editOfAPostDeletedOnTheServerEndsDeletedByDefault() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("posts", VersionedPost.drafts(1...3))
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        try await repository.sync()

        try server.delete("posts", ids: [3])
        var local = try #require(try await repository.fetch(id: 3))
        local.title = "local edit"
        try await repository.save(local)
        let report = try await repository.sync()
        #expect(report.conflicts.map(\.resolution) == [.keptServer])
        #expect(try await cachedPosts(repository) == server.state().posts)
        #expect(try await repository.pendingChangeCount() == 0)
    }

    @Test func editOfAPostDeletedOnTheServerIsPostedAgainWithClientWins() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.put("posts", VersionedPost.drafts(1...3))
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI, conflicts: .clientWins)
        try await repository.sync()

        try server.delete("posts", ids: [3])
        var local = try #require(try await repository.fetch(id: 3))
        local.title = "local edit"
        try await repository.save(local)
        let report = try await repository.sync()
        #expect(report.conflicts.map(\.resolution) == [.keptLocal])
        #expect(report.pushed == 1)
        let state = try server.state()
        #expect(state.posts.last.map { [$0.title, "\($0.version ?? 0)"] } == ["local edit", "1"])
        #expect(try await cachedPosts(repository) == state.posts)
        #expect(try await repository.pendingChangeCount() == 0)
        let writes = state.requests.filter { $0.method != "GET" }.map { "\($0.method) \($0.path) \($0.status)" }
        #expect(writes == ["PUT /posts/3 404", "POST /posts 201"])
    }

    /// A `POST` answered 404 says the collection is not there (a wrong path), not that the record was
    /// deleted: the new post stays, queued and held with the server's answer, and the app decides.
    @Test func createAnsweredNotFoundKeepsTheNewPostQueued() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        let wrongPath = HTTPAPI(
            pull: ShapedAPIServer.pageAPI.pull,
            push: .perRecord(HTTPRecordEndpoints(path: "nowhere", versionField: "version", concurrency: .ifMatch)))
        let repository = try server.makeRepository(wrongPath)
        try await repository.save(VersionedPost(id: 1, title: "created locally"))
        let report = try await repository.sync()
        #expect(report.rejected.map(\.id) == [1])
        #expect(report.rejected.first?.reason.hasPrefix("HTTP 404 (no collection at this URL") == true)
        #expect(try await repository.fetch(id: 1)?.title == "created locally")
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
        try server.put("posts", VersionedPost.drafts(1...3))
        let vault = TokenVault(token: "old", refreshed: "new")
        try server.requireToken("old")
        let repository = try server.makeRepository(
            ShapedAPIServer.pageAPI, timeout: fault == "slow" ? 1 : 5, vault: vault)
        try await repository.sync()

        if fault == "401" {
            try server.requireToken("new")
        } else {
            try server.fault(fault, method: "PUT", path: "/posts/")
            try server.fault(fault, method: "POST", path: "/posts")
        }
        var edited = try #require(try await repository.fetch(id: 1))
        edited.title = "local edit"
        try await repository.save(edited)
        try await repository.save(VersionedPost(id: 4, title: "created locally"))
        let report = try await repository.sync()
        #expect(report.pushed == 2)
        #expect(report.conflicts.isEmpty)

        let state = try server.state()
        #expect(state.faultsLeft == 0)
        #expect(state.posts.map(\.version) == [2, 1, 1, 1])
        #expect(state.posts.map(\.title) == ["local edit", "post 2", "post 3", "created locally"])
        #expect(try await cachedPosts(repository) == state.posts)
        #expect(vault.refreshes == (fault == "401" ? 1 : 0))
        let writes = state.requests.filter { $0.method == "PUT" || $0.method == "POST" }
        #expect(Set(writes.compactMap(\.idempotencyKey)).count == 2)
        #expect(writes.allSatisfy { $0.idempotencyKey != nil })
    }
}
