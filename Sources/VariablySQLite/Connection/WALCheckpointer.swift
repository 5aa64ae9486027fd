internal import CSQLite
import Foundation

/// Runs the checkpoints of ``CheckpointPolicy/inBackground(afterPages:)`` for one database file: the
/// writer's WAL hook reports each commit's WAL size, and checkpoints run on a serial queue, on a
/// connection of their own that is opened on first use.
///
/// `@unchecked Sendable`: `connection` is only touched on `queue`; `isScheduled` and `isClosed` only
/// while `lock` is held. Everything else is immutable.
final class WALCheckpointer: @unchecked Sendable {
    /// How many times ``threshold`` the WAL may reach before a commit waits for a checkpoint.
    static let boundFactor = 8

    private let path: String
    private let configuration: Configuration
    /// Pages in the WAL from which a commit asks for a checkpoint.
    let threshold: Int
    private let queue = DispatchQueue(label: "VariablySQLite.checkpoints", qos: .utility)
    private let lock = NSLock()
    private var isScheduled = false
    private var isClosed = false
    private var connection: Database?

    /// - Parameter configuration: The database's; the checkpoints' own statements are not traced.
    init(path: String, configuration: Configuration, threshold: Int) {
        var configuration = configuration
        configuration.trace = nil
        self.path = path
        self.configuration = configuration
        self.threshold = max(1, threshold)
    }

    /// Called by the writer after each commit (https://www.sqlite.org/c3ref/wal_hook.html), on the
    /// writer's thread, with SQLite's write lock released but the ``SQLiteDatabase``'s writer still
    /// held. From ``threshold`` pages on, schedules a checkpoint unless one is scheduled already.
    ///
    /// A passive checkpoint copies the frames committed before it starts; SQLite starts the WAL over
    /// only when a write begins after a checkpoint copied every frame. Under a stream of commits (a
    /// full sync), each background checkpoint ends behind the writer and the WAL keeps growing. So
    /// from ``boundFactor`` times the threshold on, the commit waits for the running checkpoint, then
    /// for one more that copies the rest while no write can add to it; the next write starts the WAL
    /// over.
    func walDidCommit(pages: Int) {
        guard pages >= threshold else { return }
        if pages >= threshold * Self.boundFactor {
            queue.sync { checkpoint() }
            return
        }
        lock.lock()
        let shouldSchedule = !isScheduled && !isClosed
        if shouldSchedule { isScheduled = true }
        lock.unlock()
        if shouldSchedule {
            queue.async {
                // Cleared first, so that a commit made during this checkpoint schedules the next one.
                self.lock.lock()
                self.isScheduled = false
                self.lock.unlock()
                self.checkpoint()
            }
        }
    }

    /// One passive checkpoint, on `queue`: it never waits for readers or the writer.
    private func checkpoint() {
        lock.lock()
        let isClosed = self.isClosed
        lock.unlock()
        guard !isClosed else { return }
        do {
            if connection == nil {
                let opened = try Database(
                    location: path, flags: SQLITE_OPEN_READWRITE, configuration: configuration, isReadOnly: false)
                // A connection learns that the file is in WAL mode when it first reads it; until then a
                // checkpoint does nothing (https://www.sqlite.org/c3ref/wal_checkpoint_v2.html).
                guard try opened.fetchValue(sql: "PRAGMA journal_mode") == .text("wal") else { return }
                connection = opened
            }
            // A failure (a busy lock, a full disk) leaves the pages in the WAL, for the next commit's
            // checkpoint or the last connection's close to copy.
            connection?.checkpointPassively()
        } catch {
            connection = nil
        }
    }

    /// Stops checkpointing, waits for a running checkpoint and closes the connection.
    func close() {
        lock.lock()
        isClosed = true
        lock.unlock()
        queue.sync { connection = nil }
    }
}
