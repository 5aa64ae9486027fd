/// A journal mode (https://www.sqlite.org/pragma.html#pragma_journal_mode).
public enum JournalMode: String, Sendable {
    /// Write-ahead log: readers do not block the writer nor the writer readers.
    case wal = "WAL"
    /// The rollback journal, deleted at the end of each transaction.
    case delete = "DELETE"
}
