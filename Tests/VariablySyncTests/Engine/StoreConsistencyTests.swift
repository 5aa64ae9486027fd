import Foundation
import Testing
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// Randomized runs over writers, essays and remarks, pulled table by table or (odd seeds) as one feed
/// in checkpoints, with 20% transient faults (half of the failed
/// pushes applied with their answer lost) and duplicated pages: local creates (references to new
/// records included), edits and deletions (cascading), server-side edits, creates and leaf deletions,
/// and a store sync after each round, while an observer reads the cache. The simulated servers get the
/// foreign keys a real backend has from ``ServerCascade``: a deletion pushed or made there cascades
/// (and empties replies' references) as the declared references do. Other clients also reply to remarks
/// and edit the remark replied to afterwards (the reply is served first), and now and then soft-delete
/// an essay alone, keeping its remarks and editing one (orphans the server keeps).
///
/// Checked: an observer never sees an orphan; after the faults stop, the cache and every server hold
/// the same records (no local change lost, none applied twice, nothing left queued).
/// `VARIABLY_STORE_RUNS=10000 swift test --filter StoreConsistencyTests` runs more seeds;
/// `VARIABLY_STORE_SEED=n` runs one, and `VARIABLY_STORE_TRACE=1` prints each of its syncs.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct StoreConsistencyTests {
    static let runs: [UInt64] = {
        if let seed = ProcessInfo.processInfo.environment["VARIABLY_STORE_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = ProcessInfo.processInfo.environment["VARIABLY_STORE_RUNS"].flatMap(Int.init) ?? 12
        return (0..<UInt64(max(count, 1))).map { $0 }
    }()

    /// The figures of the runs so far, printed at the end of each.
    actor Tally {
        var runs = 0
        var orphansSeen = 0
        var reads = 0
        var failedSyncs = 0
        var lost = 0

        func add(orphans: Int, reads: Int, failedSyncs: Int, lost: Int) {
            runs += 1
            orphansSeen += orphans
            self.reads += reads
            self.failedSyncs += failedSyncs
            self.lost += lost
        }

        var line: String {
            "[reliability] store: \(runs) randomized run(s), \(reads) observer reads, \(orphansSeen) orphans seen, "
                + "\(failedSyncs) syncs failed on faults and retried later, \(lost) records lost or diverged"
        }
    }

    static let tally = Tally()

    @Test(arguments: runs)
    func noOrphanNoLossNoDoubleApplyUnderFaults(seed: UInt64) async throws {
        var random = SeededRandomNumberGenerator(seed: seed)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-consistency-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Checkpoints as by default (the runs' few pages never reach 1,000), or after every couple of WAL
        // pages, in the background or in the commit: the graph stays whole whenever they run.
        var configuration = Configuration()
        switch seed % 3 {
        case 1: configuration.checkpoints = .inBackground(afterPages: 2)
        case 2: configuration.checkpoints = .onCommit(afterPages: 2)
        default: break
        }
        let database = try SQLiteDatabase(
            path: folder.appendingPathComponent("cache.sqlite").path, configuration: configuration)

        let faults = SimulatedFaults(transientErrorRate: 0.2, duplicatePageRate: 0.1)
        let clock = SimulatedClock()
        let writerServer = try SimulatedServer(
            records: (1...5).map { Writer(id: $0, name: "w\($0)") }, seed: seed, faults: faults, clock: clock)
        let essayServer = try SimulatedServer(
            records: (1...10).map { Essay(id: 100 + $0, writerID: ($0 % 5) + 1, title: "e\($0)") }, seed: seed &+ 1, faults: faults,
            clock: clock)
        let remarkServer = try SimulatedServer(
            records: (1...20).map { Remark(id: 1_000 + $0, essayID: 100 + ($0 % 10) + 1, text: "r\($0)") }, seed: seed &+ 2,
            faults: faults, clock: clock)
        // Odd seeds pull one feed of the three tables, in checkpoints of two pages; even seeds each table.
        let usesFeed = seed % 2 == 1
        let feed = SimulatedChangeFeed(writerServer, essayServer, remarkServer, seed: seed &+ 3, faults: faults)
        let retries = RetryPolicy(maxAttempts: 4, initialDelay: .microseconds(10), maxDelay: .microseconds(50), seed: seed)
        // The servers' own foreign keys: a pushed deletion cascades there as it did here.
        let cascade = ServerCascade(writers: writerServer, essays: essayServer, remarks: remarkServer)
        let writers = try Repository(
            database: database, remote: CascadingRemote(writerServer, cascade: cascade),
            configuration: SyncConfiguration(pageSize: 4, retryPolicy: retries))
        let essays = try Repository(
            database: database, remote: CascadingRemote(essayServer, cascade: cascade),
            configuration: SyncConfiguration(pageSize: 4, retryPolicy: retries))
        let remarks = try Repository(
            database: database, remote: CascadingRemote(remarkServer, cascade: cascade),
            configuration: SyncConfiguration(pageSize: 4, retryPolicy: retries))
        let store =
            usesFeed
            ? SyncStore(
                remarks, essays, writers, feed: feed,
                configuration: ChangeFeedConfiguration(pageSize: 4, batchSize: 8, retryPolicy: retries))
            : SyncStore(remarks, essays, writers)

        // The observer: orphans in any snapshot it reads.
        let observer = Task.detached { () -> (orphans: Int, reads: Int) in
            var orphans = 0
            var reads = 0
            while !Task.isCancelled {
                let found: SQLValue?
                do {
                    found = try await database.read { db in
                    try db.fetchValue(
                        sql: """
                            SELECT (SELECT count(*) FROM "store_essays" WHERE "writer_id" NOT IN (SELECT "id" FROM "store_writers"))
                            + (SELECT count(*) FROM "store_remarks" WHERE "essay_id" NOT IN (SELECT "id" FROM "store_essays"))
                            + (SELECT count(*) FROM "store_remarks" WHERE "reply_to" IS NOT NULL
                                AND "reply_to" NOT IN (SELECT "id" FROM "store_remarks"))
                            + (SELECT count(*) FROM "store_writers" WHERE "favorite_essay_id" IS NOT NULL
                                AND "favorite_essay_id" NOT IN (SELECT "id" FROM "store_essays"))
                            """)
                    }
                } catch is CancellationError {
                    break
                }
                if case .integer(let count)? = found { orphans += Int(count) }
                reads += 1
                await Task.yield()
            }
            return (orphans, reads)
        }

        var failedSyncs = 0
        var nextID: Int64 = 10_000
        func newID() -> Int64 {
            nextID += 1
            return nextID
        }
        for _ in 0..<6 {
            // Local work, in a few transactions.
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let cachedWriters = try await writers.fetch().map(\.id)
                let cachedEssays = try await essays.fetch().map(\.id)
                let cachedRemarks = try await remarks.fetch().map(\.id)
                let roll = Int.random(in: 0..<10, using: &random)
                let writerID = newID(), essayID = newID()
                let someWriter = cachedWriters.randomElement(using: &random)
                let someEssay = cachedEssays.randomElement(using: &random)
                let someRemark = cachedRemarks.randomElement(using: &random)
                let replyID = newID(), remarkID = newID()
                try await database.write { db in
                    switch roll {
                    case 0, 1:
                        // A new writer with an essay and a remark, children written first; sometimes a cycle.
                        try db.upsert(Remark(id: remarkID, essayID: essayID, text: "new"))
                        try db.upsert(Essay(id: essayID, writerID: writerID, title: "new"))
                        try db.upsert(Writer(id: writerID, name: "new", favoriteEssayID: roll == 0 ? essayID : nil))
                    case 2, 3:
                        if let someEssay {
                            try db.upsert(Remark(id: remarkID, essayID: someEssay, text: "on an old essay"))
                            try db.upsert(Remark(id: replyID, essayID: someEssay, replyTo: remarkID, text: "reply"))
                        }
                    case 4, 5:
                        if let someWriter { try db.execute(sql: #"UPDATE "store_writers" SET "name" = 'edited' WHERE "id" = ?"#, arguments: [someWriter]) }
                        if let someRemark { try db.execute(sql: #"UPDATE "store_remarks" SET "text" = 'edited' WHERE "id" = ?"#, arguments: [someRemark]) }
                    case 6:
                        if let someEssay { _ = try db.delete(Essay.self, id: someEssay) }
                    case 7:
                        if let someWriter { _ = try db.delete(Writer.self, id: someWriter) }
                    default:
                        if let someRemark { _ = try db.delete(Remark.self, id: someRemark) }
                    }
                }
            }
            // Another client: edits, a new essay with a remark, a leaf deleted.
            let serverWriters = await writerServer.allRecords().map(\.id)
            if let writer = serverWriters.randomElement(using: &random) {
                let essayID = newID(), remarkID = newID()
                _ = try await essayServer.upsert(Essay(id: essayID, writerID: writer, title: "from another client"))
                _ = try await remarkServer.upsert(Remark(id: remarkID, essayID: essayID, text: "from another client"))
                try await writerServer.update(id: writer) { $0.name = "renamed there" }
            }
            if let remark = await remarkServer.allRecords().map(\.id).randomElement(using: &random) {
                try await cascade.deleteRemark(remark)
            }
            // Another client replies, then edits the remark replied to: the reply is served first.
            if let essay = await essayServer.allRecords().map(\.id).randomElement(using: &random) {
                let parentID = newID(), replyID = newID()
                _ = try await remarkServer.upsert(Remark(id: parentID, essayID: essay, text: "parent there"))
                _ = try await remarkServer.upsert(Remark(id: replyID, essayID: essay, replyTo: parentID, text: "reply there"))
                try await remarkServer.update(id: parentID) { $0.text = "parent edited there" }
            }
            // Now and then a soft delete that marks an essay only: the server keeps its remarks (orphans),
            // and one of them is edited later.
            if Int.random(in: 0..<3, using: &random) == 0,
                let essay = await essayServer.allRecords().map(\.id).randomElement(using: &random)
            {
                await essayServer.delete(id: essay)
                if let orphan = await remarkServer.allRecords().first(where: { $0.essayID == essay }) {
                    try await remarkServer.update(id: orphan.id) { $0.text = "edited after its essay went" }
                }
            }
            do {
                let report = try await store.sync()
                if ProcessInfo.processInfo.environment["VARIABLY_STORE_TRACE"] != nil {
                    print("sync:", report, report.for(Writer.self)?.conflicts ?? [], report.for(Essay.self)?.conflicts ?? [])
                }
            } catch { failedSyncs += 1 }
        }

        // The faults stop; syncs until nothing is left to push.
        for server in [writerServer] as [SimulatedServer<Writer>] { await server.setFaults(SimulatedFaults()) }
        await essayServer.setFaults(SimulatedFaults())
        await remarkServer.setFaults(SimulatedFaults())
        await feed.setFaults(SimulatedFaults())
        var finalError: (any Error)?
        for _ in 0..<4 {
            // As an app does with a refused change once its record is mended (a reference the server's
            // deletion emptied here): send it again.
            for failure in try await writers.failedChanges() { try await writers.retry(failedChangeOf: failure.id) }
            for failure in try await essays.failedChanges() { try await essays.retry(failedChangeOf: failure.id) }
            for failure in try await remarks.failedChanges() { try await remarks.retry(failedChangeOf: failure.id) }
            do { try await store.sync() } catch { finalError = error }
        }
        if finalError != nil {
            // One more, to tell a fault left over from a sync that cannot complete.
            do { try await store.sync(); finalError = nil } catch { finalError = error }
        }
        if finalError != nil, ProcessInfo.processInfo.environment["VARIABLY_STORE_SEED"] != nil {
            print("writers here", try await writers.fetch().map { "\($0.id)->\($0.favoriteEssayID.map(String.init) ?? "-")" })
            print("writers there", await writerServer.allRecords().map { "\($0.id)->\($0.favoriteEssayID.map(String.init) ?? "-")" })
            print("essays here", try await essays.fetch().map { "\($0.id)->\($0.writerID)" })
            print("essays there", await essayServer.allRecords().map { "\($0.id)->\($0.writerID)" })
            print("remarks here", try await remarks.fetch().map { "\($0.id)->\($0.essayID)/\($0.replyTo.map(String.init) ?? "-")" })
            print("remarks there", await remarkServer.allRecords().map { "\($0.id)->\($0.essayID)/\($0.replyTo.map(String.init) ?? "-")" })
            print("queued", try await writers.pendingChangeCount(), try await essays.pendingChangeCount(), try await remarks.pendingChangeCount(),
                "failed", try await writers.failedChanges(), try await essays.failedChanges(), try await remarks.failedChanges())
            print("error", finalError.map { "\($0)" } ?? "")
            for repository in [await writers.lastReport.map { "\($0)" }, await essays.lastReport.map { "\($0)" }, await remarks.lastReport.map { "\($0)" }] {
                print("report", repository ?? "-")
            }
        }
        observer.cancel()
        let (orphans, reads) = try await observer.value

        // The server's live rows as the device keeps them: rows whose parent the server deleted while
        // keeping them are settled by their reference's rule (cascade: gone, set null: emptied).
        let live = await ServerCascade.settled(
            writers: writerServer.allRecords(), essays: essayServer.allRecords(), remarks: remarkServer.allRecords())
        let writersMatch = Set(try await writers.fetch()) == Set(live.writers)
        let essaysMatch = Set(try await essays.fetch()) == Set(live.essays)
        if !essaysMatch, ProcessInfo.processInfo.environment["VARIABLY_STORE_SEED"] != nil {
            let local = Set(try await essays.fetch()), remote = Set(live.essays)
            print("essays only here: \(local.subtracting(remote)); only there: \(remote.subtracting(local))")
            print("writers here", try await writers.fetch().map { "\($0.id)->\($0.favoriteEssayID.map(String.init) ?? "-")" })
            print("writers there", await writerServer.allRecords().map { "\($0.id)->\($0.favoriteEssayID.map(String.init) ?? "-")" })
        }
        let remarksMatch = Set(try await remarks.fetch()) == Set(live.remarks)
        if !remarksMatch {
            let local = Set(try await remarks.fetch()), remote = Set(live.remarks)
            print("only here: \(local.subtracting(remote)); only there: \(remote.subtracting(local))")
            print(await remarks.lastReport.map { "\($0)" } ?? "")
        }
        let queued = try await writers.pendingChangeCount() + essays.pendingChangeCount() + remarks.pendingChangeCount()
        let lost = [writersMatch, essaysMatch, remarksMatch].filter { !$0 }.count + queued + (finalError == nil ? 0 : 1)
        await Self.tally.add(orphans: orphans, reads: reads, failedSyncs: failedSyncs, lost: lost)
        print(await Self.tally.line)

        #expect(finalError == nil, "the syncs after the faults stopped: \(finalError.map { "\($0)" } ?? "")")
        #expect(orphans == 0)
        #expect(writersMatch)
        #expect(essaysMatch)
        #expect(remarksMatch)
        #expect(queued == 0)
    }
}

/// The foreign keys of the simulated servers, which have none of their own: a deletion of a writer
/// deletes its essays, an essay's deletion its remarks, and a remark's deletion empties its replies'
/// reference, as the declared references do on the device; and a new write that references a record
/// the server does not have is refused, as a real server's foreign key refuses it (another client may
/// have deleted a parent the device pushed earlier).
actor ServerCascade {
    let writers: SimulatedServer<Writer>
    let essays: SimulatedServer<Essay>
    let remarks: SimulatedServer<Remark>

    init(writers: SimulatedServer<Writer>, essays: SimulatedServer<Essay>, remarks: SimulatedServer<Remark>) {
        (self.writers, self.essays, self.remarks) = (writers, essays, remarks)
    }

    func deleteWriter(_ id: Int64) async throws {
        for essay in await essays.allRecords() where essay.writerID == id { try await deleteEssay(essay.id) }
        await writers.delete(id: id)
    }

    func deleteEssay(_ id: Int64) async throws {
        for writer in await writers.allRecords() where writer.favoriteEssayID == id {
            try await writers.update(id: writer.id) { $0.favoriteEssayID = nil }
        }
        for remark in await remarks.allRecords() where remark.essayID == id { try await deleteRemark(remark.id) }
        await essays.delete(id: id)
    }

    /// Why `json`, a record of `type` about to be written, cannot be: it references a record the server
    /// does not have (nor `alongside`, the records of its own table written before it in the same push).
    func missingReference(of type: Any.Type, json: Data, alongside: Set<Int64>) async throws -> String? {
        let decoder = JSONDecoder()
        switch type {
        case is Writer.Type:
            let writer = try decoder.decode(Writer.self, from: json)
            if let essay = writer.favoriteEssayID, await essays.record(id: essay) == nil { return "no essay \(essay)" }
        case is Essay.Type:
            let essay = try decoder.decode(Essay.self, from: json)
            if await writers.record(id: essay.writerID) == nil { return "no writer \(essay.writerID)" }
        case is Remark.Type:
            let remark = try decoder.decode(Remark.self, from: json)
            if await essays.record(id: remark.essayID) == nil { return "no essay \(remark.essayID)" }
            if let reply = remark.replyTo, !alongside.contains(reply), await remarks.record(id: reply) == nil {
                return "no remark \(reply)"
            }
        default:
            break
        }
        return nil
    }

    /// The servers' live records with those that reference a deleted record settled by the reference's
    /// rule, as the device settles them: essays of a missing writer and remarks of a missing essay are
    /// gone (cascade), a missing favourite essay or replied-to remark is emptied (set null).
    static func settled(writers: [Writer], essays: [Essay], remarks: [Remark]) -> (writers: [Writer], essays: [Essay], remarks: [Remark]) {
        let writerIDs = Set(writers.map(\.id))
        let keptEssays = essays.filter { writerIDs.contains($0.writerID) }
        let essayIDs = Set(keptEssays.map(\.id))
        let keptRemarks = remarks.filter { essayIDs.contains($0.essayID) }
        let remarkIDs = Set(keptRemarks.map(\.id))
        return (
            writers.map { writer in
                var writer = writer
                if let essay = writer.favoriteEssayID, !essayIDs.contains(essay) { writer.favoriteEssayID = nil }
                return writer
            },
            keptEssays,
            keptRemarks.map { remark in
                var remark = remark
                if let reply = remark.replyTo, !remarkIDs.contains(reply) { remark.replyTo = nil }
                return remark
            }
        )
    }

    func deleteRemark(_ id: Int64) async throws {
        for reply in await remarks.allRecords() where reply.replyTo == id {
            try await remarks.update(id: reply.id) { $0.replyTo = nil }
        }
        await remarks.delete(id: id)
    }
}

/// A simulated server behind its ``ServerCascade``: each accepted deletion cascades there.
struct CascadingRemote<Model: VariablyCodable & Identifiable & Sendable>: RemoteSource where Model.ID == Int64 {
    let server: SimulatedServer<Model>
    let cascade: ServerCascade

    init(_ server: SimulatedServer<Model>, cascade: ServerCascade) { (self.server, self.cascade) = (server, cascade) }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        // New writes first meet the server's foreign keys; a change the server applied already is
        // answered as before (a replay).
        var refused: [String: String] = [:]
        var alongside: Set<Int64> = []
        for change in changes {
            guard case .upsert(let json) = change.operation, await !server.hasApplied(idempotencyKey: change.idempotencyKey)
            else { continue }
            if let reason = try await cascade.missingReference(of: Model.self, json: json, alongside: alongside) {
                refused[change.idempotencyKey] = "refused: \(reason)"
            } else {
                alongside.insert(change.id)
            }
        }
        let forwarded = changes.filter { refused[$0.idempotencyKey] == nil }
        var answers = (forwarded.isEmpty ? [] : try await server.push(forwarded)).makeIterator()
        let results = changes.map { change in
            refused[change.idempotencyKey].map {
                PushResult(idempotencyKey: change.idempotencyKey, id: change.id, outcome: .rejected(reason: $0))
            } ?? answers.next()!
        }
        for (change, result) in zip(changes, results) where change.operation == .delete {
            guard case .accepted = result.outcome else { continue }
            switch Model.self {
            case is Writer.Type: try await cascade.deleteWriter(change.id)
            case is Essay.Type: try await cascade.deleteEssay(change.id)
            case is Remark.Type: try await cascade.deleteRemark(change.id)
            default: break
            }
        }
        return results
    }

    func currentRecord(id: Int64) async throws -> Data? {
        try await server.currentRecord(id: id)
    }

    var feedIdentifier: String { String(describing: Model.self) }
}
