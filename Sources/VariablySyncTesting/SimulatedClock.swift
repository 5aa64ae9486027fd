import Foundation

/// A write counter several ``SimulatedServer``s share: each write on any of them takes the next number,
/// so their changes have one order, as the tables of one real database do. ``SimulatedChangeFeed``
/// serves such servers as one feed.
///
/// ```swift
/// let clock = SimulatedClock()
/// let users = try SimulatedServer(records: users, clock: clock)
/// let posts = try SimulatedServer(records: posts, clock: clock)
/// let feed = SimulatedChangeFeed(users, posts)
/// ```
///
/// `@unchecked Sendable`: `value`, `servers` and `log` are only read and written while holding `lock`.
public final class SimulatedClock: @unchecked Sendable {
    /// Where the write with a version is kept: its server, and its place in that server's own log.
    struct Entry: Sendable {
        let server: Int32
        let index: Int32
    }

    private let lock = NSLock()
    private var value: Int64 = 0
    private var servers: Int32 = 0
    /// Entry `v - 1` is the write with version `v`: one walk finds the writes of every server in order.
    private var log: [Entry] = []

    /// A clock at 0: the first write is number 1.
    ///
    /// ```swift
    /// let clock = SimulatedClock()
    /// ```
    public init() {}

    /// The number of the latest write.
    ///
    /// ```swift
    /// let position = clock.now
    /// ```
    public var now: Int64 { lock.withLock { value } }

    /// A number for a server that joins the clock.
    func register() -> Int32 {
        lock.withLock {
            servers += 1
            return servers
        }
    }

    /// Makes room for `count` more writes.
    func reserveCapacity(_ count: Int) {
        lock.withLock { log.reserveCapacity(log.count + count) }
    }

    /// Takes the next number for the write at `index` of `server`'s log.
    func next(server: Int32, index: Int) -> Int64 {
        lock.withLock {
            value += 1
            log.append(Entry(server: server, index: Int32(index)))
            return value
        }
    }

    /// The writes with versions after `version`, at most `limit` of them, and the version of the last.
    ///
    /// - Complexity: O(limit).
    func entries(after version: Int64, limit: Int) -> (entries: ArraySlice<Entry>, last: Int64) {
        lock.withLock {
            let start = Int(min(max(version, 0), value))
            let end = min(start + limit, log.count)
            return (log[start..<end], Int64(end))
        }
    }
}
