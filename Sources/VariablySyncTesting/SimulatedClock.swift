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
/// `@unchecked Sendable`: `value` is only read and written while holding `lock`.
public final class SimulatedClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int64 = 0

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

    /// Takes the next number.
    func next() -> Int64 {
        lock.withLock {
            value += 1
            return value
        }
    }
}
