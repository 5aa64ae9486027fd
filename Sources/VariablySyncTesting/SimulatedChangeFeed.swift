import Foundation
import VariablyCodable
public import VariablySQLite
public import VariablySync

/// Several ``SimulatedServer``s on one ``SimulatedClock``, served as one ``RemoteChangeFeed``: each page
/// holds the changes of every table in the order they were written, up to one position of the clock,
/// as a server whose tables share one database serves them. Pushes go to each server directly.
///
/// ```swift
/// let clock = SimulatedClock()
/// let users = try SimulatedServer(records: someUsers, clock: clock)
/// let posts = try SimulatedServer(records: somePosts, clock: clock)
/// let store = try SyncStore(
///     try Repository<User>(database: database, remote: users), try Repository<Post>(database: database, remote: posts),
///     feed: SimulatedChangeFeed(users, posts))
/// ```
///
/// A cursor is the clock's number of the last change a page held. The servers' own faults apply to
/// their own pulls and pushes; the feed's faults (``SimulatedFaults/latency`` and
/// ``SimulatedFaults/transientErrorRate``) to its pages.
public actor SimulatedChangeFeed: RemoteChangeFeed {
    /// One server, type-erased: its table, its number on the clock, and its entries.
    struct Member: Sendable {
        let table: String
        let number: Int32
        let entries: @Sendable (_ indices: [Int32]) async throws -> [(Int64, String, JSONValue, Data?)]
    }

    let members: [Member]
    let clock: SimulatedClock
    /// The faults of the feed's pages.
    public private(set) var faults: SimulatedFaults
    /// Pages asked for.
    public private(set) var pulls = 0
    var random: SeededRandomNumberGenerator

    /// One feed of `servers`, which share one clock.
    ///
    /// ```swift
    /// let feed = SimulatedChangeFeed(users, posts, comments)
    /// ```
    ///
    /// - Parameters:
    ///   - servers: One server per table; each made with the same `clock:`.
    ///   - seed: Seeds the feed's faults.
    ///   - faults: Latency and transient failures of the feed's pages.
    public init<each Model: SQLiteStorable & Identifiable & Sendable>(
        _ servers: repeat SimulatedServer<each Model>, seed: UInt64 = 0, faults: SimulatedFaults = SimulatedFaults()
    ) {
        var members: [Member] = []
        var clocks: [SimulatedClock?] = []
        for server in repeat each servers {
            clocks.append(server.clock)
            members.append(Member(server))
        }
        guard let clock = clocks.first ?? nil, clocks.allSatisfy({ $0 === clock }) else {
            preconditionFailure(
                "The servers of a SimulatedChangeFeed share one SimulatedClock: make each with `clock: sharedClock`, "
                    + "so that their writes have one order.")
        }
        self.members = members
        self.clock = clock
        self.faults = faults
        self.random = SeededRandomNumberGenerator(seed: seed)
    }

    /// Injects `faults` into the feed's pages from now on.
    ///
    /// ```swift
    /// await feed.setFaults(SimulatedFaults())   // no more faults
    /// ```
    public func setFaults(_ faults: SimulatedFaults) {
        self.faults = faults
    }

    /// The changes of every table among the next `limit` writes after `cursor`, oldest first (a write
    /// replaced by a later one of the same record shows at the later one only, so a page may hold fewer).
    ///
    /// ```swift
    /// let page = try await feed.pull(after: nil, limit: 500)
    /// ```
    ///
    /// - Throws: ``RemoteSourceError/invalidCursor(_:)`` for a cursor the clock has not reached, and the
    ///   injected faults.
    /// - Complexity: O(limit).
    public func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemoteFeedPage {
        precondition(limit > 0, "pull(after:limit:) needs a limit of at least 1")
        pulls += 1
        try await Task.sleep(for: faults.latency)
        if faults.transientErrorRate > 0, Double.random(in: 0..<1, using: &random) < faults.transientErrorRate {
            throw RemoteSourceError.transient("simulated transient failure of the feed")
        }
        let top = clock.now
        var after: Int64 = 0
        if let cursor {
            guard let version = Int64(cursor.rawValue), version >= 0, version <= top else {
                throw RemoteSourceError.invalidCursor(cursor)
            }
            after = version
        }
        // The next `limit` writes of every server, in the clock's order; each server reads its own.
        let (slice, last) = clock.entries(after: after, limit: limit)
        var indices: [Int32: [Int32]] = [:]
        for entry in slice { indices[entry.server, default: []].append(entry.index) }
        var entries: [(Int64, String, JSONValue, Data?)] = []
        for member in members {
            guard let wanted = indices[member.number] else { continue }
            entries += try await member.entries(wanted)
        }
        entries.sort { $0.0 < $1.0 }
        let hasMore = last < clock.now
        let page = entries[...]
        var records: [String: Data] = [:]
        var deleted: [String: [JSONValue]] = [:]
        for (_, table, id, json) in page {
            if let json {
                if records[table] == nil {
                    records[table] = Data("[".utf8)
                } else {
                    records[table]?.append(UInt8(ascii: ","))
                }
                records[table]?.append(json)
            } else {
                deleted[table, default: []].append(id)
            }
        }
        var tables: [String: RemoteFeedChanges] = [:]
        for table in Set(records.keys).union(deleted.keys) {
            let array = records[table].map { $0 + Data("]".utf8) } ?? Data("[]".utf8)
            tables[table] = RemoteFeedChanges(records: array, deletedIDs: deleted[table] ?? [])
        }
        return RemoteFeedPage(tables: tables, nextCursor: SyncCursor(rawValue: String(last)), hasMore: hasMore)
    }

    /// The feed's name: the servers' tables.
    public nonisolated var feedIdentifier: String {
        "SimulatedChangeFeed(" + members.map(\.table).joined(separator: ",") + ")"
    }
}

extension SimulatedChangeFeed.Member {
    init<Model: SQLiteStorable & Identifiable & Sendable>(_ server: SimulatedServer<Model>) {
        let table = Model.sqliteTable.name
        self.table = table
        number = server.clockNumber
        entries = { indices in
            try await server.feedEntries(at: indices).map { ($0.version, table, $0.id, $0.json) }
        }
    }
}
