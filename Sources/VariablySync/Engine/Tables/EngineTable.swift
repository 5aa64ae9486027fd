import Foundation
import VariablySQLite

/// A synced table as the engine runs it, whatever its model: where it sits in the graph of references,
/// how its pages are made, how one of its records is looked up on the server, how its queue is pushed.
/// ``SyncTable`` is the one kind there is; the engine keeps them as `any EngineTable`, and every value
/// that crosses it (pages, batches, reports) is made by the table, typed.
protocol EngineTable: Sendable {
    /// The table's name.
    var name: String { get }
    /// The identifier of the table's model: a store's report is kept by it.
    var model: ObjectIdentifier { get }
    /// The database the table is on.
    var database: SQLiteDatabase { get }
    /// Every reference the table declares, its own table's included.
    var references: [TableReference] { get }
    /// What the table's run did so far, for a store's report (see ``RunTally``).
    var runReport: any AnyTableReport { get }

    /// The table's pages of nothing yet: a feed's parts are added to them, or the batch takes only the
    /// table's parked records.
    func makePages() -> any TablePages
    /// The pages of `records` (a JSON array the server sent for this table), decoded off the writer.
    func pages(ofRecords records: Data) throws -> any TablePages
    /// The server's current JSON of the record with `id`, or `nil` when the server answers that it has
    /// no such record.
    func lookUp(_ id: StoredRecordID) async throws -> Data?

    /// Starts the table's part of a run: forgets the last run's report, announces `.started` on the
    /// table's progress stream.
    ///
    /// - Returns: The table's queued local changes.
    func beginRun() async throws -> Int
    /// Ends the table's part of a run: its report takes `duration` and `error` (`nil`: complete), and is
    /// announced on the table's progress stream.
    func endRun(_ error: (any Error)?, duration: Duration)
    /// Pushes the table's queued `operations` of the transaction groups up to `group` (`nil`: all).
    ///
    /// - Returns: The changes the server accepted, and those still waiting for a parent.
    func push(_ operations: Set<PendingChange.Operation>, throughGroup group: Int64?) async throws
        -> (pushed: Int, waiting: Int)
    /// Pulls the table's own source until caught up (see `SyncTable.pullChanges(fromStart:deletions:announce:)`):
    /// a cursor of another feed, or one the server no longer knows, starts over as a resync.
    ///
    /// - Parameter announce: Told the records of each page applied.
    func pull(fromStart: Bool, deletions: ResyncDeletions, announce: @escaping @Sendable (Int) -> Void) async throws
    /// Lists the server's ids and removes the cached records it did not list.
    func removeRecordsNotListed(allowing deletions: ResyncDeletions) async throws
    /// Notes in the run's report how many of the table's records are parked.
    func countParkedRecords() async throws
    /// Notes in the run's report `count` records parked for a parent the server deleted, settled by `rule`.
    func noteSettledOrphans(_ count: Int, by rule: ReferenceAction)
    /// The table's local changes not yet accepted by the server, inside a read transaction.
    func unsentChanges(_ db: Database) throws -> [UnsentChange]
}

extension EngineTable {
    /// The other tables it references through required columns.
    var parents: Set<String> {
        Set(references.filter { $0.parentTable != name && !$0.isOptional }.map(\.parentTable))
    }

    /// The other tables it references through optional columns only: a cycle may go through them.
    var optionalParents: Set<String> {
        Set(references.filter { $0.parentTable != name && $0.isOptional }.map(\.parentTable)).subtracting(parents)
    }
}

/// Orders engine tables.
enum EngineTables {
    /// `tables` with each after the tables it references; in a cycle, references through optional
    /// columns give way first (a record is created with them empty and completed later), and tables
    /// still in a cycle keep the order they were given in.
    static func ordered(_ tables: [any EngineTable]) -> [any EngineTable] {
        var placed: [any EngineTable] = []
        var remaining = tables
        while !remaining.isEmpty {
            let names = Set(remaining.map(\.name))
            let ready =
                remaining.firstIndex { $0.parents.union($0.optionalParents).isDisjoint(with: names) }
                ?? remaining.firstIndex { $0.parents.isDisjoint(with: names) } ?? 0
            placed.append(remaining.remove(at: ready))
        }
        return placed
    }
}
