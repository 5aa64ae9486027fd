internal import CSQLite

// MARK: - WAL checkpoints

extension Database {
    /// Applies `policy` to this connection's commits.
    ///
    /// - Parameter checkpointer: Runs the background checkpoints; the caller keeps it alive as long as
    ///   the connection, and calls ``stopCheckpointing()`` before releasing it.
    func checkpoint(following policy: CheckpointPolicy, by checkpointer: WALCheckpointer?) {
        switch policy {
        case .onCommit(let pages):
            // https://www.sqlite.org/c3ref/wal_autocheckpoint.html
            sqlite3_wal_autocheckpoint(handle, Int32(clamping: max(0, pages)))
        case .inBackground:
            guard let checkpointer else { return }
            // https://www.sqlite.org/c3ref/wal_hook.html: replaces the automatic checkpoints, and is
            // called after each commit with the write lock released.
            sqlite3_wal_hook(
                handle,
                { context, _, _, pages in
                    if let context {
                        Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().walDidCommit(
                            pages: Int(pages))
                    }
                    return SQLITE_OK
                }, Unmanaged.passUnretained(checkpointer).toOpaque())
        }
    }

    /// Removes the WAL hook that ``checkpoint(following:by:)`` installed.
    func stopCheckpointing() {
        sqlite3_wal_hook(handle, nil, nil)
    }

    /// One passive checkpoint of the main database (https://www.sqlite.org/c3ref/wal_checkpoint_v2.html):
    /// copies what no reader still needs, without waiting for anyone.
    ///
    /// - Returns: SQLite's result code (`SQLITE_BUSY` when another connection is checkpointing).
    @discardableResult
    func checkpointPassively() -> Int32 {
        sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }
}
