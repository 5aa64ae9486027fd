import Foundation
import VariablySQLite

/// The synced tables opened on one database, and which of them run now: one registry per database
/// (`SQLiteDatabase.tableRegistry`).
///
/// A table is registered with a lifetime, as GRDB registers its transaction observers: it stays while
/// its owner (the ``Repository`` that opened it) lives, and leaves with it. A pull of any table applies
/// the parked records of every registered one whose parents it brings.
///
/// A table runs once at a time: a ``Repository``'s sync and a ``SyncStore``'s run that share a table
/// take turns (`withRun(of:_:)`), so that a queued change is pushed by one run only, and a table's
/// ``RunTally`` is its run's report.
///
/// `@unchecked Sendable`: `entries` is only read or written while `lock` is held.
final class TableRegistry: @unchecked Sendable {
    /// An owner's table, held through the owner alone: the table holds the database, whose
    /// attachments hold the registry, so a table held here would keep the database alive for good.
    private struct Entry {
        weak var owner: (any EngineTableOwner)?
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private let runs = RunQueue()

    /// Registers `owner`'s table for as long as `owner` lives; a table of the same name registered
    /// before gives way.
    func register(_ owner: any EngineTableOwner) {
        lock.withLock { entries[owner.engineTable.name] = Entry(owner: owner) }
    }

    /// The registered tables whose owners live, each after the tables it references.
    var tables: [any EngineTable] {
        let live = lock.withLock {
            entries = entries.filter { $0.value.owner != nil }
            return entries.values.compactMap { $0.owner?.engineTable }.sorted { $0.name < $1.name }
        }
        return EngineTables.ordered(live)
    }

    /// The engine over `own` and every other registered table.
    func engine(over own: [any EngineTable], on database: SQLiteDatabase) -> PullEngine {
        let names = Set(own.map(\.name))
        let others = tables.filter { !names.contains($0.name) }
        return PullEngine(database: database, tables: EngineTables.ordered(own + others))
    }

    /// Runs `body` once no other run holds any of `tables`, holding them meanwhile.
    func withRun<T: Sendable>(
        of tables: [String], isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async throws -> T {
        let names = Set(tables)
        await runs.acquire(names)
        do {
            let result = try await body()
            await runs.release(names)
            return result
        } catch {
            await runs.release(names)
            throw error
        }
    }
}

/// What owns a synced table and decides its lifetime: a ``Repository``.
protocol EngineTableOwner: AnyObject, Sendable {
    /// The table it owns.
    var engineTable: any EngineTable { get }
}

/// The tables running now, and the runs waiting for them.
private actor RunQueue {
    private var running = Set<String>()
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Waits until none of `tables` runs, then holds them all at once (never some of them: two runs
    /// that want the same tables in another order cannot wait for each other).
    func acquire(_ tables: Set<String>) async {
        while !running.isDisjoint(with: tables) {
            await withCheckedContinuation { waiting.append($0) }
        }
        running.formUnion(tables)
    }

    /// Lets `tables` go; every waiting run looks again.
    func release(_ tables: Set<String>) {
        running.subtract(tables)
        let woken = waiting
        waiting = []
        for run in woken { run.resume() }
    }
}

extension SQLiteDatabase {
    /// The registry of the synced tables opened on this database.
    var tableRegistry: TableRegistry {
        attachments.object(TableRegistry.self) { TableRegistry() }
    }
}
