// UserSync: the package's main job in one run. A simulated server holds users in its own JSON keys;
// the repository syncs them into SQLite, pushes a local edit back (settling a conflict by policy),
// writes the current user to a cache file with the local keys, and queries the cache.
//
//     swift run UserSync [--users N] [--database PATH] [--fault-rate X] [--reset]

import Foundation
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
    if let message = error.message { print("UserSync: \(message)\n") }
    print(Options.usage)
    exit(error.message == nil ? 0 : 2)
}

let clock = ContinuousClock()
let started = clock.now
let databaseURL = URL(fileURLWithPath: options.databasePath)
let cacheFileURL = databaseURL.deletingLastPathComponent().appendingPathComponent("current-user.json")

do {
    print("UserSync: \(grouped(options.users)) users on a simulated server -> \(options.databasePath)")
    print("          fault rate \(options.faultRate): transient failures, malformed records, duplicated pages")

    let server = try SimulatedServer(
        records: (0..<options.users).lazy.map(User.generated), seed: 2026,
        faults: SimulatedFaults(
            latency: .milliseconds(1), transientErrorRate: options.faultRate,
            malformedRecordRate: options.faultRate / 100, duplicatePageRate: options.faultRate / 2)
    ) { user in
        user.email.contains("@") ? nil : "email_address must contain @"
    }
    print("          server ready in \(seconds(started.duration(to: clock.now))) s")

    // Each page is one transaction, which writes every index page it touched: on a large table, pages
    // of 5,000 users share those writes among more users (a million users synced in 10 s instead of
    // 17 s, release build; the unique email index, whose keys arrive in no order, is 3 s of the 10).
    // Small runs keep 1,000, so the default run shows a few pages (and the faults they meet).
    let pageSize = options.users >= 100_000 ? 5_000 : 1_000
    let configuration = SyncConfiguration<User>(
        pageSize: pageSize,
        retryPolicy: RetryPolicy(
            maxAttempts: 8, initialDelay: .milliseconds(10), maxDelay: .milliseconds(200), seed: 7),
        malformedRecords: .skipAndReport,
        conflictPolicy: .newestWins(by: \.updatedAt))
    let (repository, needsResync) = try await openRepository(server: server, configuration: configuration)

    // 1. The first sync: every user, page by page.
    step(1, needsResync ? "Full resync with the server" : "Sync from the server")
    let first = try await syncShowingProgress(
        repository, full: needsResync, expectedRecords: await server.recordCount, observesActiveUsers: true)
    print(first)
    for record in first.skipped.prefix(2) { print("  skipped \(record)") }

    // 2. Other clients change users; the server switches to API v2, which renames user_name to username.
    step(2, "Other clients edit 200 users, delete 25 and sign up 50; the server renames user_name -> username")
    let signUps = (options.users..<(options.users + 50)).map(User.generated)
    try await server.simulateOtherClients(edits: 200, deletions: 25, insertions: signUps) { user, random in
        user.score = Double(Int.random(in: 0..<1_000, using: &random)) / 10
        user.updatedAt += 3_600
    }
    await server.renameKey("user_name", to: "username")
    print(try await syncShowingProgress(repository))

    // 3. A local edit, and another client editing the same user before we push.
    step(3, "Edit user 42 locally while another client edits it too (policy: newest updatedAt wins)")
    guard var current = try await repository.fetch(id: 42) else { throw SampleError("user 42 is not in the cache") }
    current.nickname = "Countess"
    current.tags.append("favourite")
    current.updatedAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970).rounded())
    try await repository.save(current)
    try await server.update(id: 42) { $0.age += 1 }
    print("  queued local changes: \(try await repository.pendingChangeCount())")
    let pushReport = try await syncShowingProgress(repository)
    print(pushReport)
    for conflict in pushReport.conflicts { print("  conflict on user \(conflict)") }
    guard let pushed = await server.record(id: 42) else { throw SampleError("user 42 vanished from the server") }
    print("  server now has user 42 as \"\(pushed.nickname ?? "-")\", tags \(pushed.tags)")

    // 4. The current user in a cache file, with the local key set.
    step(4, "Write the current user to \(cacheFileURL.lastPathComponent) with the local keys")
    let cache = FileCache<User>(url: cacheFileURL)
    guard let saved = try await repository.fetch(id: 42) else { throw SampleError("user 42 is not in the cache") }
    try cache.store(saved)
    let text = try String(contentsOf: cacheFileURL, encoding: .utf8)
    print(text.split(separator: "\n").prefix(8).map { "  " + $0 }.joined(separator: "\n") + "\n  ...")
    print("  read back equal: \(try cache.load() == saved)")

    // 5. A query on the cache.
    step(5, "Active users over 30, by name, first 10 (from SQLite)")
    let rows = try await repository.fetch(
        where: #Predicate { $0.isActive && $0.age > 30 }, sortedBy: [SortDescriptor(\.userName)], limit: 10)
    printTable(rows)
    let total = try await repository.count()
    let matching = try await repository.count(where: #Predicate { $0.isActive && $0.age > 30 })
    print("  \(grouped(matching)) of \(grouped(total)) cached users match")

    // 6. Related models: posts and comments, synced with the users as one graph.
    step(6, "Posts and comments beside the users: pushed parents first, a refused author's post waits for it")
    try await syncPostsAndComments(users: repository, userServer: server, needsResync: needsResync)

    let elapsed = started.duration(to: clock.now)
    print("\nDone in \(seconds(elapsed)) s. Run it again to reuse \(options.databasePath), or see --help.")
} catch {
    print("\nUserSync failed: \(error)")
    exit(1)
}

// MARK: - Helpers

struct SampleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Opens the cache. A file from an earlier run is reused, but that run's simulated server is gone: the
/// first sync is then a full resync, which updates what changed and removes what this server lacks.
func openRepository(
    server: SimulatedServer<User>, configuration: SyncConfiguration<User>
) async throws -> (Repository<User>, needsResync: Bool) {
    if options.reset { removeDatabase() }
    try FileManager.default.createDirectory(
        at: databaseURL.deletingLastPathComponent(), withIntermediateDirectories: true)
    // Checkpointing every 10,000 WAL pages instead of 1,000 copies an index page rewritten by several
    // transactions once (https://www.sqlite.org/wal.html#ckpt); in the background, as by default, so
    // that the sync's commits do not wait for fsync.
    var sqlite = Configuration()
    sqlite.checkpoints = .inBackground(afterPages: 10_000)
    let database = try SQLiteDatabase(path: databaseURL.path, configuration: sqlite)
    // A sync inserts into the indexes on user_name and (age, is_active) at scattered places. With SQLite's
    // default 2 MB page cache a large table re-reads index pages on every page of users: 64 MB on the
    // writer keeps a million users' indexes cached (https://www.sqlite.org/pragma.html#pragma_cache_size).
    try await database.write { db in
        try db.execute(sql: "PRAGMA cache_size = -65536")
    }
    let repository = try await Repository.open(database: database, remote: server, configuration: configuration)
    guard let cursor = try await repository.cursor() else { return (repository, false) }
    print(
        "Reusing \(options.databasePath) (\(await grouped(try repository.count())) users, cursor \(cursor), from an earlier run):"
    )
    print("this run's server is new, so the first sync is a full resync. --reset starts from an empty file.")
    return (repository, true)
}

func removeDatabase() {
    for suffix in ["", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: databaseURL.path + suffix)
    }
}

/// Runs a sync with its progress on one updating line (see `SyncDisplay`). With `observesActiveUsers`,
/// the line also follows the number of active users over 30 in the cache, observed while pages land.
func syncShowingProgress(
    _ repository: Repository<User>, full: Bool = false, expectedRecords: Int? = nil, observesActiveUsers: Bool = false
) async throws -> SyncReport<User.ID> {
    let display = SyncDisplay(expectedRecords: expectedRecords)
    let progress = repository.progressUpdates()
    let printer = Task {
        for await event in progress {
            switch event {
            case .started(let pending):
                if pending > 0 { await display.message("  pushing \(pending) local change\(pending == 1 ? "" : "s")") }
            case .pushed(let accepted, let conflicts, let rejected):
                await display.message("  pushed: \(accepted) accepted, \(conflicts) conflict(s), \(rejected) rejected")
            case .pageApplied(_, _, _, let total):
                await display.pageApplied(totalRecords: total)
            case .retrying:
                await display.retrying()
            case .finished, .failed:
                return
            }
        }
    }
    // The count is re-run after each committed page (coalesced when pages come faster), on a reader
    // connection, so it does not hold up the sync's writes.
    let activeOver30 = #Predicate<User> { $0.isActive && $0.age > 30 }
    let counter: Task<Void, any Error>? =
        observesActiveUsers
        ? Task {
            for try await count in repository.observeCount(where: activeOver30) {
                await display.observed(activeOver30: count)
            }
        } : nil
    defer { counter?.cancel() }
    do {
        let report = try await (full ? repository.resync() : repository.sync())
        await printer.value
        if let counter {
            // The observer may still be counting the last page: the final line shows the settled count.
            counter.cancel()
            await display.observed(activeOver30: try await repository.count(where: activeOver30))
        }
        await display.finish()
        return report
    } catch {
        await printer.value
        await display.finish()
        throw error
    }
}

func step(_ number: Int, _ title: String) {
    print("\n\(number). \(title)")
}

func printTable(_ users: [User]) {
    let header = ["id", "user name", "age", "score", "email"]
    let rows = users.map { [String($0.id), $0.userName, String($0.age), String($0.score), $0.email] }
    let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
    func line(_ cells: [String]) -> String {
        let padded = cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
        return "  " + String(padded.joined(separator: "  ").reversed().drop { $0 == " " }.reversed())
    }
    print(line(header))
    print(line(widths.map { String(repeating: "-", count: $0) }))
    for row in rows { print(line(row)) }
}
