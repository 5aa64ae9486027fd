import Synchronization

/// The pull states a source made its last cursors from, by the cursor's text: the next page of a
/// running pull starts from the state itself, not from its cursor decoded again.
///
/// A cursor in the middle of a pull leaves out the look-back window's records (``HTTPPullState/recent``,
/// up to ``HTTPPullState/maximumRecent``): they matter to the next pull only, and writing them into
/// every page's cursor cost more than reading the page (their JSON encoded, stored and decoded again
/// page after page). The running pull keeps them here; the cursor that ends the pull carries them. A
/// pull resumed from a stored cursor (after a restart) starts its window afresh: records of the window
/// it did not keep are applied again if the next pull reads them again, which changes nothing.
final class HTTPPullStates: Sendable {
    /// The most states kept: one per pull of the source running at once (its records and its id listing).
    private static let capacity = 4
    private let states = Mutex<[(cursor: String, state: HTTPPullState)]>([])

    init() {}

    /// The state `cursor` was made from, if this source made it recently.
    func state(of cursor: SyncCursor) -> HTTPPullState? {
        states.withLock { states in states.last { $0.cursor == cursor.rawValue }?.state }
    }

    /// Notes that `cursor` was made from `state`.
    func remember(_ state: HTTPPullState, as cursor: SyncCursor) {
        states.withLock { states in
            states.removeAll { $0.cursor == cursor.rawValue }
            states.append((cursor.rawValue, state))
            if states.count > Self.capacity { states.removeFirst(states.count - Self.capacity) }
        }
    }
}
