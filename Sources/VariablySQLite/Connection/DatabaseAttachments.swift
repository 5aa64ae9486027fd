import Foundation

/// Objects that other modules of the package keep for one ``SQLiteDatabase``, one per type: the sync
/// engine keeps there the registry of the tables opened on the database, so that a pull of one table
/// can apply the records of another that were waiting for it.
///
/// `@unchecked Sendable`: `values` is only read or written while `lock` is held, and every value
/// stored is `Sendable`.
package final class DatabaseAttachments: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [ObjectIdentifier: any Sendable] = [:]

    package init() {}

    /// The database's object of type `T`, made by `make` the first time it is asked for.
    package func object<T: AnyObject & Sendable>(_ type: T.Type, makingIfMissing make: () -> T) -> T {
        lock.withLock {
            // Stored under its own type's identifier: the value found there is a `T`.
            if let found = values[ObjectIdentifier(type)].flatMap({ $0 as? T }) { return found }
            let made = make()
            values[ObjectIdentifier(type)] = made
            return made
        }
    }
}
