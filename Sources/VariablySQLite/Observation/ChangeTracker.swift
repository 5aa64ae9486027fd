internal import CSQLite
import Foundation
import Synchronization

/// Which tables the writer connection's committed transactions changed, and who wants to know.
///
/// SQLite's hooks (https://www.sqlite.org/c3ref/update_hook.html,
/// https://www.sqlite.org/c3ref/commit_hook.html) collect the tables a transaction changes; a commit
/// moves them to the committed set, a rollback drops them; ``publish()``, called after each write
/// releases the writer, tells the observers of those tables. Only writes through this
/// `SQLiteDatabase` are seen: SQLite tells a connection nothing of other processes' writes.
///
/// `@unchecked Sendable`: `pending`, `lastTable` and `droppedObject` are only touched by SQLite's
/// hooks and authorizer, on the thread that holds the writer; `committed`, `observers` and
/// `nextToken` only while holding `lock`; `observerCount` is atomic.
final class ChangeTracker: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: Set<String> = []
    /// The table of the previous row change, to skip building its name again for each row.
    private var lastTable: (pointer: UnsafePointer<CChar>, name: String)?
    /// The table or view a `DROP` being prepared names, until SQLite asks about deleting it.
    private var droppedObject: String?
    private var committed: Set<String> = []
    private var observers: [Int: (tables: Set<String>, notify: @Sendable () -> Void)] = [:]
    private var nextToken = 0
    private let observerCount = Atomic<Int>(0)

    /// The form under which table names are compared: SQLite folds ASCII letters only.
    static func key(_ table: String) -> String {
        String(decoding: table.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    // MARK: Hooks (writer thread)

    func rowChanged(in table: UnsafePointer<CChar>) {
        guard observerCount.load(ordering: .relaxed) > 0 else { return }
        if let lastTable, lastTable.pointer == table, pending.contains(lastTable.name) { return }
        let name = Self.key(String(cString: table))
        lastTable = (table, name)
        pending.insert(name)
    }

    func didCommit() {
        guard !pending.isEmpty else { return }
        let tables = pending
        pending.removeAll(keepingCapacity: true)
        lock.withLock { committed.formUnion(tables) }
    }

    func didRollBack() {
        pending.removeAll(keepingCapacity: true)
    }

    /// The authorizer's answer while a statement is prepared
    /// (https://www.sqlite.org/c3ref/set_authorizer.html): `SQLITE_IGNORE` to a `DELETE` keeps the
    /// deletion, but without the truncate optimization, which would delete every row unseen by the update
    /// hook (https://www.sqlite.org/lang_delete.html#the_truncate_optimization). Except where SQLite asks
    /// about a `DELETE` while it prepares a `DROP`, of its schema table or of the table or view dropped:
    /// answered `SQLITE_IGNORE`, the `DROP` would silently do nothing.
    func authorize(_ action: Int32, _ name: UnsafePointer<CChar>?) -> Int32 {
        switch action {
        case SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW:
            droppedObject = name.map { String(cString: $0) }
            return SQLITE_OK
        case SQLITE_DELETE:
            guard let name else { return SQLITE_IGNORE }
            if strncmp(name, "sqlite_", 7) == 0 { return SQLITE_OK }
            if let dropped = droppedObject, dropped == String(cString: name) {
                droppedObject = nil
                return SQLITE_OK
            }
            return SQLITE_IGNORE
        default:
            droppedObject = nil
            return SQLITE_OK
        }
    }

    // MARK: Observers

    /// Calls `notify` after each committed write that changed one of `tables`, until
    /// ``removeObserver(_:)``.
    ///
    /// - Returns: The token that removes the observer.
    func addObserver(tables: Set<String>, notify: @escaping @Sendable () -> Void) -> Int {
        lock.withLock {
            nextToken += 1
            observers[nextToken] = (Set(tables.map(Self.key)), notify)
            observerCount.store(observers.count, ordering: .relaxed)
            return nextToken
        }
    }

    func removeObserver(_ token: Int) {
        lock.withLock {
            observers[token] = nil
            observerCount.store(observers.count, ordering: .relaxed)
        }
    }

    /// Tells the observers of the tables committed since the last call.
    func publish() {
        let targets: [@Sendable () -> Void] = lock.withLock {
            guard !committed.isEmpty else { return [] }
            let tables = committed
            committed.removeAll(keepingCapacity: true)
            return observers.values.filter { !$0.tables.isDisjoint(with: tables) }.map(\.notify)
        }
        for notify in targets { notify() }
    }
}

extension Database {
    /// Installs the hooks that feed `tracker`; `tracker` must outlive the connection.
    func trackChanges(into tracker: ChangeTracker) {
        let context = Unmanaged.passUnretained(tracker).toOpaque()
        sqlite3_update_hook(
            handle,
            { context, _, _, table, _ in
                guard let context, let table else { return }
                Unmanaged<ChangeTracker>.fromOpaque(context).takeUnretainedValue().rowChanged(in: table)
            }, context)
        _ = sqlite3_commit_hook(
            handle,
            { context in
                guard let context else { return 0 }
                Unmanaged<ChangeTracker>.fromOpaque(context).takeUnretainedValue().didCommit()
                return 0
            }, context)
        _ = sqlite3_rollback_hook(
            handle,
            { context in
                guard let context else { return }
                Unmanaged<ChangeTracker>.fromOpaque(context).takeUnretainedValue().didRollBack()
            }, context)
        sqlite3_set_authorizer(
            handle,
            { context, action, name, _, _, _ in
                guard let context else { return SQLITE_OK }
                return Unmanaged<ChangeTracker>.fromOpaque(context).takeUnretainedValue().authorize(action, name)
            }, context)
    }
}
