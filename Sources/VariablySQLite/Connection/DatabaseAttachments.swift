import Foundation

/// Values that other modules of the package keep for one ``SQLiteDatabase``, by key: the sync engine
/// keeps there the tables that repositories opened on the database, so that a pull of one table can
/// apply the records of another that were waiting for it.
///
/// `@unchecked Sendable`: `values` is only read or written while `lock` is held, and every value
/// stored is `Sendable`.
package final class DatabaseAttachments: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: any Sendable] = [:]

    package init() {}

    /// Changes the value under `key` (`nil` when there is none yet) and returns what `body` returns,
    /// atomically.
    package func update<T>(_ key: String, _ body: (inout (any Sendable)?) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        var value = values[key]
        let result = try body(&value)
        values[key] = value
        return result
    }

    /// The value under `key`.
    package subscript(key: String) -> (any Sendable)? {
        lock.lock()
        defer { lock.unlock() }
        return values[key]
    }
}
