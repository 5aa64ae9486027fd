/// When a file database in WAL mode copies committed pages from its `-wal` file back into the
/// database file: a checkpoint (https://www.sqlite.org/wal.html#ckpt).
///
/// A checkpoint writes every page the recent commits changed into the database file and makes both
/// files durable (`fdatasync`). It costs what the disk costs for those pages, and grows with the
/// file: on a table of 1,000,000 rows it is the larger part of a commit of 1,000 scattered updates.
///
/// Set it here rather than with `PRAGMA wal_autocheckpoint` on the writer, which puts SQLite's own
/// checkpoints back in place of the background ones.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.checkpoints = .onCommit(afterPages: 1_000)   // SQLite's own behaviour
/// let db = try SQLiteDatabase(path: path, configuration: configuration)
/// ```
public enum CheckpointPolicy: Sendable, Hashable {
    /// A commit that leaves at least this many pages in the WAL asks a connection of the database's
    /// own to checkpoint on a background thread, and returns without waiting for it: writes and
    /// syncs do not pay the checkpoint's disk writes. The default, with 1,000 pages (4 MB).
    ///
    /// The checkpoint is passive: it never waits for readers or the writer, and what it cannot copy
    /// yet, because a reader still uses it, the next one copies. When commits outrun the background
    /// checkpoints (a long stream of writes, such as a full sync) and the WAL reaches eight times
    /// `afterPages`, the committing write waits until the checkpoints have copied all of it, so that
    /// the next write starts the WAL over: the WAL stays bounded, unless a reader holds an old
    /// snapshot, as with SQLite's own checkpoints.
    case inBackground(afterPages: Int)
    /// The commit that leaves at least this many pages in the WAL runs the checkpoint itself, and the
    /// write returns when it is done: SQLite's own behaviour (`PRAGMA wal_autocheckpoint`).
    case onCommit(afterPages: Int)
}
