/// How a transaction takes its locks (https://www.sqlite.org/lang_transaction.html).
public enum TransactionKind: String, Sendable {
    /// Takes locks when first needed; a read transaction that later writes may fail with `SQLITE_BUSY`.
    case deferred = "DEFERRED"
    /// Takes the write lock at once, so that the transaction cannot fail later for lack of it.
    case immediate = "IMMEDIATE"
    /// Like immediate; in WAL mode the same as immediate.
    case exclusive = "EXCLUSIVE"
}
