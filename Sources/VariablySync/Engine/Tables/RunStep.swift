/// What a run of the engine does: a ``Repository``'s or a ``SyncStore``'s sync, resync or removal of
/// the records the server no longer lists.
enum RunStep: Sendable {
    /// Push, then pull the changes since the cursor.
    case pull
    /// Push, then pull from the start and remove the cached records not received (a resync), within
    /// what the deletions allow.
    case pullFromStart(ResyncDeletions)
    /// No push, no pull: the server's ids listed, and the cached records it no longer has removed,
    /// within what the deletions allow.
    case removeDeleted(ResyncDeletions)

    /// Whether the run pushes the queue first.
    var pushes: Bool {
        if case .removeDeleted = self { return false }
        return true
    }

    /// Whether the run pulls from the start (a resync).
    var isResync: Bool {
        if case .pullFromStart = self { return true }
        return false
    }

    /// How much of the cache the run may remove.
    var deletions: ResyncDeletions {
        switch self {
        case .pull: .allButEveryRow
        case .pullFromStart(let deletions), .removeDeleted(let deletions): deletions
        }
    }
}
