import Foundation

/// Stops a pull whose server never advances. A server repeating a page now and then (a flaky proxy) is
/// tolerated; one answering the same cursor with "more to come" more than ``maximumRepeats`` times in
/// a row, or coming back to one cursor more than twice as often in all (a cycle), stops the pull with
/// ``SyncError/cursorDidNotAdvance(_:)``. Both pulls (a repository's own and a store's feed) use it.
struct CursorGuard {
    /// How many times in a row a pull accepts the same cursor with "more to come".
    static let maximumRepeats = 16

    private var last: SyncCursor?
    private var repeats = 0
    private var visits: [SyncCursor: Int] = [:]

    /// A guard for a pull that starts after `cursor` (`nil`: from the beginning).
    init(startingAfter cursor: SyncCursor?) {
        last = cursor
    }

    /// Records that a page answered `next` with "more to come".
    ///
    /// - Throws: ``SyncError/cursorDidNotAdvance(_:)`` when `next` came back too often.
    mutating func advance(to next: SyncCursor) throws {
        visits[next, default: 0] += 1
        repeats = last == next ? repeats + 1 : 0
        last = next
        if repeats > Self.maximumRepeats || visits[next, default: 0] > 2 * Self.maximumRepeats {
            throw SyncError.cursorDidNotAdvance(next)
        }
    }
}
