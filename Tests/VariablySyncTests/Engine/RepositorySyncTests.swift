import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

@Suite struct RepositorySyncTests {
    private func serverRecords(_ server: SimulatedServer<User>) async -> [User] {
        await server.allRecords().sorted { $0.id < $1.id }
    }

    @Test func firstSyncFillsAnEmptyCachePageByPage() async throws {
        let server = try SimulatedServer(records: User.samples(2_500), seed: 1)
        let repository = try Repository(
            database: .inMemory(), remote: server, configuration: makeConfiguration(pageSize: 1_000))
        let report = try await repository.sync()
        #expect(report.pulled == 2_500)
        #expect(report.pages == 3)
        #expect(report.inserted == 2_500)
        #expect(report.updated == 0)
        #expect(report.cursor == "2500")
        await #expect(try cached(repository) == User.samples(2_500))
        await #expect(try repository.cursor() == "2500")
    }

    @Test func incrementalSyncAppliesEditsDeletionsAndInsertions() async throws {
        let server = try SimulatedServer(records: User.samples(1_000), seed: 2)
        let repository = try Repository(database: .inMemory(), remote: server, configuration: makeConfiguration())
        try await repository.sync()
        let changes = try await server.simulateOtherClients(
            edits: 30, deletions: 7, insertions: [User.sample(5_000), User.sample(5_001)]
        ) { user, random in
            user.age = Int.random(in: 18..<90, using: &random)
        }
        let report = try await repository.sync()
        #expect(report.pulled == 32)
        #expect(report.updated == 30)
        #expect(report.inserted == 2)
        #expect(report.deleted == 7)
        await #expect(try repository.count() == 1_000 - 7 + 2)
        await #expect(try cached(repository) == (await serverRecords(server)))
        for id in changes.deleted { await #expect(try repository.fetch(id: id) == nil) }

        let nothing = try await repository.sync()
        #expect(nothing.pulled == 0 && nothing.deleted == 0 && nothing.pages == 1)
    }

    @Test func reappliedPagesChangeNothing() async throws {
        let server = try SimulatedServer(records: User.samples(500), seed: 3)
        let database = try SQLiteDatabase.inMemory()
        let repository = try Repository(database: database, remote: server, configuration: makeConfiguration())
        try await repository.sync()
        try await server.update(id: 10) { $0.nickname = "changed" }
        await server.delete(id: 11)
        try await repository.sync()
        let before = try await cached(repository)
        // Forget the cursor, as if the last commit had been lost: every page comes again.
        try await database.write { try $0.execute(sql: #"UPDATE "variably_sync_state" SET "cursor" = NULL"#) }
        let again = try await repository.sync()
        #expect(again.pulled == 499)
        #expect(again.inserted == 0)
        #expect(again.deleted == 0)
        await #expect(try cached(repository) == before)
    }

    @Test func incrementalSyncRewritesIndexedColumnsOnlyWhenTheyChange() async throws {
        let server = try SimulatedServer(records: User.samples(300), seed: 6)
        let database = try SQLiteDatabase.inMemory()
        let repository = try Repository(database: database, remote: server, configuration: makeConfiguration())
        try await repository.sync()
        // `UPDATE OF` triggers fire when an update names the column, as its index entries are rewritten.
        try await database.write { db in
            try db.execute(sql: #"CREATE TABLE "touched" ("id" INTEGER, "column" TEXT)"#)
            for column in ["user_name", "age", "score"] {
                try db.execute(
                    sql: """
                        CREATE TRIGGER "touch_\(column)" AFTER UPDATE OF "\(column)" ON "users"
                        BEGIN INSERT INTO "touched" VALUES (NEW."id", '\(column)'); END
                        """)
            }
        }
        for id in Int64(1)...50 { try await server.update(id: id) { $0.score += 1 } }
        try await server.update(id: 7) { $0.userName = "renamed" }
        try await server.update(id: 9) { $0.age += 1 }
        let report = try await repository.sync()
        #expect(report.updated == 50)
        let touched = try await database.read { db in
            try db.fetch(sql: #"SELECT "column", count(*) FROM "touched" GROUP BY "column" ORDER BY "column""#).map {
                [$0[0], $0[1]]
            }
        }
        #expect(
            touched == [
                [.text("age"), .integer(1)], [.text("score"), .integer(50)], [.text("user_name"), .integer(1)],
            ])
        await #expect(try cached(repository) == (await serverRecords(server)))
        await #expect(try repository.pendingChangeCount() == 0)
    }

    @Test func duplicatedPagesAreHarmless() async throws {
        let server = try SimulatedServer(
            records: User.samples(1_000), seed: 4, faults: SimulatedFaults(duplicatePageRate: 0.5))
        let repository = try Repository(database: .inMemory(), remote: server, configuration: makeConfiguration())
        let report = try await repository.sync()
        let duplicated = await server.statistics.duplicatedPages
        #expect(duplicated > 0)
        #expect(report.pages == 10 + duplicated)
        #expect(report.inserted == 1_000)
        await #expect(try cached(repository) == User.samples(1_000))
    }

    @Test func interruptedSyncResumesAfterTheLastAppliedPage() async throws {
        let server = try SimulatedServer(
            records: User.samples(1_000), seed: 5, faults: SimulatedFaults(interruptAfterPulls: 3))
        let repository = try Repository(database: .inMemory(), remote: server, configuration: makeConfiguration())
        await #expect(throws: RemoteSourceError.unavailable("simulated interruption after 3 pages")) {
            try await repository.sync()
        }
        await #expect(try repository.count() == 300)
        await #expect(try repository.cursor() == "300")
        let partial = try #require(await repository.lastReport)
        #expect(!partial.isComplete)
        #expect(partial.pages == 3 && partial.inserted == 300)
        let resumed = try await repository.sync()
        #expect(resumed.pulled == 700)
        #expect(resumed.isComplete)
        #expect(resumed.inserted == 700)
        await #expect(try cached(repository) == User.samples(1_000))
    }

    @Test func transientErrorsAreRetriedWithBackoff() async throws {
        let server = try SimulatedServer(
            records: User.samples(2_000), seed: 6, faults: SimulatedFaults(transientErrorRate: 0.3))
        let repository = try Repository(database: .inMemory(), remote: server, configuration: makeConfiguration())
        let report = try await repository.sync()
        let failures = await server.statistics.transientErrors
        #expect(failures > 0)
        #expect(report.retries == failures)
        await #expect(try cached(repository) == User.samples(2_000))
    }

    @Test func retriesStopAtTheConfiguredBound() async throws {
        let server = try SimulatedServer(
            records: User.samples(10), seed: 7, faults: SimulatedFaults(transientErrorRate: 1))
        let retry = RetryPolicy(maxAttempts: 4, initialDelay: .microseconds(10), seed: 1)
        let repository = try Repository(
            database: .inMemory(), remote: server, configuration: makeConfiguration(retry: retry))
        do {
            try await repository.sync()
            Issue.record("the sync should have given up")
        } catch SyncError.retriesExhausted(let attempts, let error) {
            #expect(attempts == 4)
            #expect((error as? RemoteSourceError)?.isTransient == true)
        }
        #expect(await server.statistics.pulls == 4)
    }

    @Test func backoffGrowsExponentiallyWithBoundedJitter() {
        let policy = RetryPolicy(initialDelay: .milliseconds(100), multiplier: 2, maxDelay: .seconds(1), jitter: 0.5)
        #expect(policy.delay(beforeAttempt: 2, random: 0.5) == .milliseconds(100))
        #expect(policy.delay(beforeAttempt: 3, random: 0.5) == .milliseconds(200))
        #expect(policy.delay(beforeAttempt: 4, random: 0.5) == .milliseconds(400))
        #expect(policy.delay(beforeAttempt: 9, random: 0.5) == .seconds(1))
        #expect(policy.delay(beforeAttempt: 3, random: 0) == .milliseconds(100))
        #expect(policy.delay(beforeAttempt: 3, random: 0.999_999) < .milliseconds(300))
    }

    @Test func malformedRecordsAreSkippedAndReported() async throws {
        let server = try SimulatedServer(
            records: User.samples(2_000), seed: 8, faults: SimulatedFaults(malformedRecordRate: 0.01))
        let repository = try Repository(database: .inMemory(), remote: server, configuration: makeConfiguration())
        let report = try await repository.sync()
        let malformed = await server.statistics.malformedIDs
        #expect(!malformed.isEmpty)
        #expect(report.skipped.map(\.id) == malformed.map { Optional($0) })
        #expect(report.inserted == 2_000 - malformed.count)
        let first = try #require(report.skipped.first)
        let error = try #require(first.error as? VariablyCodingError)
        #expect(error.modelType == "User")
        #expect("\(first)".contains("record id \(malformed[0])"))
        await #expect(try repository.fetch(id: malformed[0]) == nil)
    }

    @Test func malformedRecordsCanFailThePage() async throws {
        let server = try SimulatedServer(
            records: User.samples(300), seed: 9, faults: SimulatedFaults(malformedRecordRate: 0.005))
        let repository = try Repository(
            database: .inMemory(), remote: server, configuration: makeConfiguration(malformed: .failPage))
        do {
            try await repository.sync()
            Issue.record("a malformed record should fail its page")
        } catch SyncError.malformedRecords(let records) {
            #expect(!records.isEmpty)
        }
        let malformed = try #require(await server.statistics.malformedIDs.first)
        let pageStart = (malformed - 1) / 100 * 100
        await #expect(try repository.count() == Int(pageStart))
        await #expect(try repository.cursor() == (pageStart == 0 ? nil : SyncCursor(rawValue: String(pageStart))))
    }

    @Test func renamedServerKeyIsAbsorbedByAlternativeKeys() async throws {
        let server = try SimulatedServer(records: User.samples(200), seed: 10)
        let repository = try Repository(database: .inMemory(), remote: server, configuration: makeConfiguration())
        try await repository.sync()
        await server.renameKey("user_name", to: "username")
        try await server.update(id: 5) { $0.userName = "renamed-five" }
        let report = try await repository.sync()
        #expect(report.updated == 1)
        #expect(report.skipped.isEmpty)
        await #expect(try repository.fetch(id: 5)?.userName == "renamed-five")
    }

    @Test func cancellationStopsBetweenPages() async throws {
        let server = try SimulatedServer(
            records: User.samples(2_000), seed: 11, faults: SimulatedFaults(latency: .milliseconds(20)))
        let repository = try Repository(
            database: .inMemory(), remote: server, configuration: makeConfiguration(pageSize: 50))
        let progress = repository.progressUpdates()
        let task = Task { try await repository.sync() }
        for await event in progress {
            if case .pageApplied(let page, _, _, _) = event, page >= 2 { break }
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let count = try await repository.count()
        #expect(count > 0 && count < 2_000)
        #expect(count % 50 == 0)
        await #expect(try repository.cursor() == SyncCursor(rawValue: String(count)))
        let rest = try await repository.sync()
        #expect(rest.inserted == 2_000 - count)
    }

    @Test func readsDuringASyncNeverSeeHalfAppliedPages() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try SQLiteDatabase(path: folder.appendingPathComponent("cache.sqlite").path)
        let server = try SimulatedServer(
            records: User.samples(5_000), seed: 12, faults: SimulatedFaults(latency: .milliseconds(2)))
        let repository = try Repository(
            database: database, remote: server, configuration: makeConfiguration(pageSize: 250))
        let sync = Task { try await repository.sync() }
        var observed: Set<Int> = []
        while true {
            // One read transaction: one snapshot, whatever the writer commits meanwhile.
            let (count, active) = try await database.read { db in
                (try db.count(User.self), try db.count(User.self, where: #Predicate { $0.isActive }))
            }
            #expect(count % 250 == 0, "a read saw \(count) rows")
            #expect(active == User.samples(count).filter(\.isActive).count)
            observed.insert(count)
            if count == 5_000 { break }
            await Task.yield()
        }
        let report = try await sync.value
        #expect(report.inserted == 5_000)
        #expect(observed.contains { $0 > 0 && $0 < 5_000 }, "reads should have run while pages were applied")
    }

    @Test func progressStreamReportsEachPage() async throws {
        let server = try SimulatedServer(records: User.samples(450), seed: 13)
        let repository = try Repository(database: .inMemory(), remote: server, configuration: makeConfiguration())
        let progress = repository.progressUpdates()
        let collector = Task {
            var events: [SyncProgress<Int64>] = []
            for await event in progress {
                events.append(event)
                if case .finished = event { break }
            }
            return events
        }
        try await repository.sync()
        let events = await collector.value
        let pages = events.compactMap { event -> Int? in
            if case .pageApplied(_, _, _, let total) = event { return total }
            return nil
        }
        #expect(pages == [100, 200, 300, 400, 450])
        guard case .started(0) = events.first else { Issue.record("expected .started first, got \(events)"); return }
    }

    @Test func progressReportsRetriesAndAFailureWithItsPartialReport() async throws {
        let server = try SimulatedServer(
            records: User.samples(300), seed: 16,
            faults: SimulatedFaults(transientErrorRate: 0.4, interruptAfterPulls: 2))
        let repository = try Repository(database: .inMemory(), remote: server, configuration: makeConfiguration())
        let progress = repository.progressUpdates()
        let collector = Task {
            var retries = 0
            for await event in progress {
                switch event {
                case .retrying: retries += 1
                case .failed(let message, let partial): return (retries, message, partial)
                default: break
                }
            }
            return (retries, "", SyncReport<Int64>())
        }
        await #expect(throws: RemoteSourceError.self) { try await repository.sync() }
        let (retries, message, partial) = await collector.value
        #expect(message.contains("interruption"))
        #expect(!partial.isComplete)
        #expect(partial.pages == 2)
        #expect(retries == partial.retries)
        #expect(retries == (await server.statistics.transientErrors))
    }

    @Test func fetchQueriesTheCacheWithPredicates() async throws {
        let server = try SimulatedServer(records: User.samples(600), seed: 14)
        let repository = try Repository(database: .inMemory(), remote: server, configuration: makeConfiguration())
        try await repository.sync()
        let found = try await repository.fetch(
            where: #Predicate { $0.isActive && $0.age > 30 }, sortedBy: [SortDescriptor(\.userName)], limit: 10)
        let expected = User.samples(600).filter { $0.isActive && $0.age > 30 }.sorted { $0.userName < $1.userName }
        #expect(found == Array(expected.prefix(10)))
        await #expect(try repository.count(where: #Predicate { $0.isActive && $0.age > 30 }) == expected.count)
        await #expect(try repository.fetch(id: 42) == User.sample(41))
    }
}

@Suite struct RepositoryConcurrencyTests {
    @Test func concurrentSyncCallsShareOneRun() async throws {
        let server = try SimulatedServer(
            records: User.samples(500), seed: 15, faults: SimulatedFaults(latency: .milliseconds(2)))
        let repository = try Repository(database: .inMemory(), remote: server, configuration: makeConfiguration())
        async let first = repository.sync()
        async let second = repository.sync()
        let reports = try await [first, second]
        #expect(reports.map(\.inserted).reduce(0, +) >= 500)
        await #expect(try repository.count() == 500)
        #expect(await server.statistics.pulls <= 6, "a joined sync must not pull the pages again")
    }
}

@Suite struct RepositoryResyncTests {
    @Test func resyncReconcilesACacheMadeAgainstAnotherServer() async throws {
        let database = try SQLiteDatabase.inMemory()
        let old = try SimulatedServer(records: User.samples(300), seed: 31)
        try await old.simulateOtherClients(edits: 40, deletions: 0, insertions: [User.sample(900)]) { user, _ in
            user.age = 1
        }
        try await Repository(database: database, remote: old, configuration: makeConfiguration()).sync()
        await #expect(try database.read { try $0.count(User.self) } == 301)

        // A new server: the original 300 records, 5 of them since deleted, one served malformed.
        let new = try SimulatedServer(records: User.samples(300), seed: 32)
        for id: Int64 in 1...5 { await new.delete(id: id) }
        let repository = try Repository(database: database, remote: new, configuration: makeConfiguration())
        await new.setFaults(SimulatedFaults(malformedRecordRate: 0.005))
        let report = try await repository.resync()
        let malformed = await new.statistics.malformedIDs
        #expect(!malformed.isEmpty)
        #expect(report.deleted == 1 + 5 - malformed.filter { $0 <= 5 }.count)
        #expect(report.skipped.count == malformed.count)
        let expected = await new.allRecords().filter { !malformed.contains($0.id) }
        let kept = try await cached(repository).filter { !malformed.contains($0.id) }
        #expect(kept == expected)
        for id in malformed { await #expect(try repository.fetch(id: id) != nil, "a malformed record is not removed") }
        await #expect(try repository.cursor() == (await new.latestCursor))
    }
}

extension RepositoryResyncTests {
    /// A server that answers an empty list (credentials that no longer pass a rule, a misrouted request)
    /// does not empty the cache: the resync stops and removes nothing, until the app says how much may go.
    @Test func anEmptyAnswerNeverEmptiesTheCacheOnItsOwn() async throws {
        let database = try SQLiteDatabase.inMemory()
        let full = try SimulatedServer(records: User.samples(200), seed: 35)
        try await Repository(database: database, remote: full, configuration: makeConfiguration()).sync()
        let empty = try SimulatedServer<User>(records: [], seed: 36)
        let repository = try Repository(database: database, remote: empty, configuration: makeConfiguration())
        await #expect {
            try await repository.resync()
        } throws: { error in
            guard case SyncError.resyncWouldDelete(let table, let rows, let cached) = error else { return false }
            return table == "users" && rows == 200 && cached == 200
        }
        await #expect(try repository.count() == 200)
        await #expect(throws: SyncError.self) { try await repository.resync(allowingDeletionOf: .atMost(0.5)) }
        await #expect(try repository.count() == 200)
        let report = try await repository.resync(allowingDeletionOf: .everyRow)
        #expect(report.deleted == 200)
        await #expect(try repository.count() == 0)
    }

    @Test func aShareOfTheCacheLimitsWhatAResyncRemoves() async throws {
        let database = try SQLiteDatabase.inMemory()
        let old = try SimulatedServer(records: User.samples(100), seed: 37)
        try await Repository(database: database, remote: old, configuration: makeConfiguration()).sync()
        let new = try SimulatedServer(records: Array(User.samples(100).prefix(80)), seed: 38)
        let repository = try Repository(database: database, remote: new, configuration: makeConfiguration())
        await #expect(throws: SyncError.self) { try await repository.resync(allowingDeletionOf: .atMost(0.1)) }
        await #expect(try repository.count() == 100)
        #expect(try await repository.resync(allowingDeletionOf: .atMost(0.25)).deleted == 20)
    }

    @Test func unknownCursorTurnsASyncIntoAResync() async throws {
        let database = try SQLiteDatabase.inMemory()
        let old = try SimulatedServer(records: User.samples(120), seed: 33)
        try await old.simulateOtherClients(edits: 0, deletions: 0, insertions: [User.sample(500)]) { _, _ in }
        try await Repository(database: database, remote: old, configuration: makeConfiguration()).sync()

        let new = try SimulatedServer(records: User.samples(100), seed: 34)  // knows cursors up to 100 only
        let repository = try Repository(database: database, remote: new, configuration: makeConfiguration())
        let report = try await repository.sync()
        #expect(report.resynced)
        #expect(report.deleted == 21)
        #expect("\(report)".contains("full resync"))
        await #expect(try cached(repository) == User.samples(100))

        var strict = makeConfiguration()
        strict.resyncsOnUnknownCursor = false
        try await database.write { try $0.execute(sql: #"UPDATE "variably_sync_state" SET "cursor" = '999'"#) }
        let refusing = try Repository(database: database, remote: new, configuration: strict)
        await #expect(throws: RemoteSourceError.invalidCursor("999")) { try await refusing.sync() }
    }

    @Test func reportDescribesItselfOnOneLine() async throws {
        let server = try SimulatedServer(records: User.samples(150), seed: 35)
        let repository = try Repository(database: .inMemory(), remote: server, configuration: makeConfiguration())
        let text = "\(try await repository.sync())"
        #expect(
            text.hasPrefix(
                "pulled 150 in 2 pages (150 inserted, 0 updated, 0 deleted), pushed 0, 0 conflicts, 0 skipped, 0 retries, "
            ))
        #expect(text.hasSuffix(" s"))
        #expect(!text.contains("\n"))
    }
}
