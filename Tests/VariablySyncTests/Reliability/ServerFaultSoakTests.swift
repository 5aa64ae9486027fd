import Foundation
import Testing
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting
import VariablyTestSupport

// Many syncs of a `Repository` against a `SimulatedServer` with every fault at a high rate:
// transient errors (before and after a push is applied), malformed records, duplicated pages,
// interruptions, a renamed server key, plus server-side edits, deletions and insertions, local
// saves, deletions and conflicting edits between syncs. Seeded and bounded by round counts
// (`VARIABLY_RELIABILITY_SCALE` multiplies them).

struct SoakMode: Sendable, CustomTestStringConvertible {
    let seed: UInt64
    let interruptions: Bool

    var testDescription: String { "seed \(seed)\(interruptions ? ", with interruptions" : "")" }
}

struct SoakFigures: Sendable {
    var rounds = 0
    var syncs = 0
    var failedSyncs = 0
    var pulls = 0
    var pushes = 0
    var transientErrors = 0
    var lostResponses = 0
    var malformed = 0
    var duplicatedPages = 0
    var interruptions = 0
    var replayedChanges = 0
    var conflicts = 0
    var retries = 0
    var localSaves = 0
    var localDeletes = 0
    var serverWrites = 0
    var records = 0

    var faults: Int { transientErrors + malformed + duplicatedPages + interruptions + 1 }
}

@Suite("Reliability: server faults soak")
struct ReliabilityServerFaultSoakTests {
    static let modes = [
        SoakMode(seed: 1, interruptions: false), SoakMode(seed: 2, interruptions: false),
        SoakMode(seed: 3, interruptions: true), SoakMode(seed: 4, interruptions: true),
    ]

    static func faults(_ random: inout ReliabilityRandom, interruptions: Bool) -> SimulatedFaults {
        SimulatedFaults(
            latency: .zero, transientErrorRate: 0.25, malformedRecordRate: 0.04, duplicatePageRate: 0.25,
            interruptAfterPulls: interruptions && Bool.random(using: &random)
                ? Int.random(in: 0...4, using: &random) : nil)
    }

    @Test(arguments: modes)
    func manySyncsWithEveryFaultConvergeToTheServerState(_ mode: SoakMode) async throws {
        var random = ReliabilityRandom(seed: mode.seed)
        let server = try SimulatedServer(records: ReliabilityItem.initial(groups: 60), seed: mode.seed)
        let repository = try Repository(
            database: .inMemory(), remote: server,
            configuration: SyncConfiguration(
                pageSize: 16, pushBatchSize: 7, retryPolicy: reliabilityRetries, malformedRecords: .skipAndReport,
                conflictPolicy: .serverWins))
        var figures = SoakFigures()
        var reportedSkips = Set<Int64>()
        var reportedConflicts = Set<Int64>()
        var nextID: Int64 = 10_000

        /// Syncs until one completes; interruptions and exhausted retries end a sync, never the run.
        /// Returns whether an attempt failed.
        func syncToCompletion(_ context: String) async throws -> Bool {
            var failed = false
            for _ in 0..<50 {
                await server.setFaults(Self.faults(&random, interruptions: mode.interruptions))
                figures.syncs += 1
                do {
                    let report = try await repository.sync()
                    reportedSkips.formUnion(report.skipped.compactMap(\.id))
                    reportedConflicts.formUnion(report.conflicts.map(\.id))
                    figures.retries += report.retries
                    #expect(report.failed.isEmpty, "\(context): \(report.failed)")
                    return failed
                } catch let error as RemoteSourceError {
                    #expect(!error.isTransient && mode.interruptions, "\(context): \(error)")
                    figures.failedSyncs += 1
                    failed = true
                } catch let error as SyncError {
                    guard case .retriesExhausted = error else { throw error }
                    figures.failedSyncs += 1
                    failed = true
                }
                // A failed sync's partial report: what it did before failing stays done and is reported here.
                let partial = try #require(await repository.lastReport)
                #expect(!partial.isComplete)
                reportedSkips.formUnion(partial.skipped.compactMap(\.id))
                reportedConflicts.formUnion(partial.conflicts.map(\.id))
                figures.retries += partial.retries
            }
            Issue.record("\(context): no sync completed in 50 attempts")
            throw CancellationError()
        }

        _ = try await syncToCompletion("first sync")
        let rounds = ReliabilityBudget.iterations(20)
        for round in 0..<rounds {
            figures.rounds += 1
            if round == rounds / 2 {
                // API v2: the server renames a key; the model's alternative key absorbs it.
                await server.renameKey("label", to: "title")
            }
            // Other clients edit, delete and insert on the server.
            let inserted = (0..<3).map { _ -> ReliabilityItem in
                nextID += 1
                return ReliabilityItem(id: nextID, group: (nextID - 1) / 5, generation: 0, label: "inserted \(round)")
            }
            let changes = try await server.simulateOtherClients(edits: 8, deletions: 2, insertions: inserted) {
                item, random in
                item = ReliabilityItem(
                    id: item.id, group: item.group, generation: item.generation + 1,
                    label: "server \(round) \(UInt8.random(in: 0...255, using: &random))")
            }
            figures.serverWrites += changes.updated.count + changes.deleted.count + changes.inserted.count
            let touched = Set(changes.updated + changes.deleted + changes.inserted)

            // Local edits on records the server did not touch since the last sync: they must reach the server.
            let cache = try await reliabilityCache(repository)
            let untouched = cache.keys.filter { !touched.contains($0) }.sorted()
            var expectedSaved: [ReliabilityItem] = []
            for id in untouched.shuffled(using: &random).prefix(3) {
                var item = cache[id]!
                item = ReliabilityItem(
                    id: id, group: item.group, generation: item.generation + 1_000, label: "local \(round)",
                    tags: item.tags)
                expectedSaved.append(item)
            }
            nextID += 1
            expectedSaved.append(
                ReliabilityItem(id: nextID, group: (nextID - 1) / 5, generation: 0, label: "local new \(round)"))
            try await repository.save(expectedSaved)
            figures.localSaves += expectedSaved.count
            let deletedLocally = untouched.filter { id in !expectedSaved.contains { $0.id == id } }.randomElement(
                using: &random)
            if let deletedLocally {
                try await repository.delete(id: deletedLocally)
                figures.localDeletes += 1
            }
            // A local edit of a record the server just edited: a conflict the server wins.
            var conflicting: Int64?
            if let id = changes.updated.first, var item = cache[id] {
                item.label = "losing local edit \(round)"
                try await repository.save(item)
                conflicting = id
            }

            _ = try await syncToCompletion("round \(round), seed \(mode.seed)")

            for item in expectedSaved {
                #expect(await server.record(id: item.id) == item, "round \(round): local save of \(item.id) lost")
            }
            if let deletedLocally {
                #expect(await server.record(id: deletedLocally) == nil, "round \(round): local delete lost")
            }
            if let conflicting {
                // Reported by the sync that settled it, or by its partial report if it failed later.
                #expect(reportedConflicts.contains(conflicting), "round \(round): conflict not reported")
                await #expect(try repository.fetch(id: conflicting)?.label.hasPrefix("losing") == false)
            }
            await #expect(try repository.pendingChangeCount() == 0, "round \(round)")
        }

        let statistics = await server.statistics
        let malformed = Set(statistics.malformedIDs)
        // Every record the server sent malformed was reported, by a complete or a partial report,
        // and nothing else was.
        #expect(malformed == reportedSkips, "malformed but never reported: \(malformed.subtracting(reportedSkips))")

        // The cache differs from the server only on records served malformed (nothing else lost)...
        await server.setFaults(SimulatedFaults())
        _ = try await repository.sync()
        let serverState = await reliabilityServerState(server)
        var cacheState = try await reliabilityCache(repository)
        let divergent = Set(serverState.keys).union(cacheState.keys).filter { serverState[$0] != cacheState[$0] }
        #expect(divergent.allSatisfy { malformed.contains($0) }, "divergent without a malformed serving: \(divergent)")
        // ...and once the server sends them again, the cache equals the server's state exactly.
        for id in divergent where serverState[id] != nil {
            try await server.update(id: id) { _ in }
        }
        for id in divergent where serverState[id] == nil {
            // Deleted on the server while the cache held a stale copy that was skipped: a tombstone
            // is never malformed, so this cannot happen.
            Issue.record("row \(id) is cached but deleted on the server")
        }
        _ = try await repository.sync()
        cacheState = try await reliabilityCache(repository)
        #expect(cacheState == serverState)
        await #expect(try repository.count() == serverState.count)
        await #expect(try repository.pendingChangeCount() == 0)
        await #expect(try repository.cursor() == (await server.latestCursor))

        figures.pulls = statistics.pulls
        figures.pushes = statistics.pushes
        figures.transientErrors = statistics.transientErrors
        figures.lostResponses = statistics.lostResponses
        figures.malformed = statistics.malformedIDs.count
        figures.duplicatedPages = statistics.duplicatedPages
        figures.interruptions = statistics.interruptions
        figures.replayedChanges = statistics.replayedChanges
        figures.conflicts = statistics.conflicts
        figures.records = serverState.count
        #expect(figures.transientErrors > 0 && figures.duplicatedPages > 0 && figures.malformed > 0)
        #expect(figures.lostResponses > 0 && figures.replayedChanges > 0 && figures.conflicts > 0)
        if mode.interruptions { #expect(figures.interruptions > 0) }
        reportFigure(
            "soak \(mode.testDescription): \(figures.rounds) rounds, \(figures.syncs) syncs (\(figures.failedSyncs) ended by a fault), "
                + "\(figures.pulls) pulls, \(figures.pushes) pushes, faults injected: \(figures.transientErrors) transient "
                + "(\(figures.lostResponses) after the push applied), \(figures.malformed) malformed, "
                + "\(figures.duplicatedPages) duplicated pages, \(figures.interruptions) interruptions, 1 key rename; "
                + "\(figures.replayedChanges) replayed pushes, \(figures.conflicts) conflicts, \(figures.retries) retries; "
                + "\(figures.localSaves) local saves, \(figures.localDeletes) local deletes, \(figures.serverWrites) server writes; "
                + "final \(figures.records) records equal, \(divergent.count) repaired after malformed, 0 lost, 0 duplicated"
        )
    }

    // Found by the soak: a sync that skipped a malformed record and then failed had committed the
    // page and moved the cursor past the record, but `sync()` threw and nothing named the record.
    // Fixed in 1d8b820 (`lastReport` and `.failed` carry the partial report); a regression test.
    @Test func recordsSkippedBeforeAFailedSyncAreReported() async throws {
        let server = try SimulatedServer(
            records: ReliabilityItem.initial(groups: 4), seed: 5,
            faults: SimulatedFaults(malformedRecordRate: 1, interruptAfterPulls: 1))
        let repository = try Repository(
            database: .inMemory(), remote: server,
            configuration: SyncConfiguration(pageSize: 10, retryPolicy: reliabilityRetries))
        var reported = Set<Int64>()
        do {
            let report = try await repository.sync()
            reported.formUnion(report.skipped.compactMap(\.id))
        } catch {
            let partial = try #require(await repository.lastReport)
            #expect(!partial.isComplete)
            reported.formUnion(partial.skipped.compactMap(\.id))
        }
        await server.setFaults(SimulatedFaults())
        let next = try await repository.sync()
        reported.formUnion(next.skipped.compactMap(\.id))
        let malformed = Set(await server.statistics.malformedIDs)
        #expect(!malformed.isEmpty)
        #expect(malformed.isSubset(of: reported), "never reported: \(malformed.subtracting(reported).sorted())")
    }
}
