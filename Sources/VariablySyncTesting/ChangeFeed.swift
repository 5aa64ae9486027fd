import Foundation

/// A simulated server's table and change feed: every write takes the next version and appends one
/// entry to the feed; an entry superseded by a later write of the same id stays, and is skipped when
/// served.
struct ChangeFeed<ID: Hashable & Sendable>: Sendable {
    /// A record as stored: its JSON as encoded, before any key rename (renames are applied when the
    /// record is served), or `nil` for a tombstone. The JSON is the record, as on a real server: the
    /// model is decoded from it when one is asked for, so a million records are not kept twice.
    struct Row: Sendable {
        var json: Data?
        var version: Int64

        var isLive: Bool { json != nil }
    }

    private(set) var rows: [ID: Row] = [:]
    /// The number of rows holding a live record, kept as rows change.
    private(set) var liveCount = 0
    /// Every id ever written, in the order of its first write.
    private(set) var insertionOrder: [ID] = []
    /// Entry i of the feed is the write with version `logVersions[i]` of the record `logIDs[i]`.
    private(set) var logVersions: [Int64] = []
    private(set) var logIDs: [ID] = []
    /// The version of the latest write.
    private(set) var clock: Int64 = 0
    /// The clock several servers share, so that their writes have one order (``SimulatedChangeFeed``),
    /// and this server's number on it; `nil` when the server numbers its writes alone.
    let sharedClock: (clock: SimulatedClock, server: Int32)?

    init(sharedClock: (clock: SimulatedClock, server: Int32)? = nil) {
        self.sharedClock = sharedClock
    }

    /// Makes room for `count` more records.
    mutating func reserveCapacity(_ count: Int) {
        sharedClock?.clock.reserveCapacity(count)
        rows.reserveCapacity(rows.count + count)
        insertionOrder.reserveCapacity(insertionOrder.count + count)
        logVersions.reserveCapacity(logVersions.count + count)
        logIDs.reserveCapacity(logIDs.count + count)
    }

    /// Writes the record with `id` as `json`, or a tombstone for `nil`: O(1).
    mutating func write(_ json: Data?, for id: ID) {
        clock = sharedClock.map { $0.clock.next(server: $0.server, index: logVersions.count) } ?? clock + 1
        if let earlier = rows.updateValue(Row(json: json, version: clock), forKey: id) {
            if earlier.isLive != (json != nil) { liveCount += json != nil ? 1 : -1 }
        } else {
            insertionOrder.append(id)
            if json != nil { liveCount += 1 }
        }
        logVersions.append(clock)
        logIDs.append(id)
    }
}
