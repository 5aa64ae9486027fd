/// A ``Migrator`` cannot run.
public enum MigrationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The database records steps this migrator does not register: it was written by a newer version.
    case unknownMigrations([String])

    public var description: String {
        switch self {
        case .unknownMigrations(let identifiers):
            "The database has migrations this version does not know: \(identifiers.joined(separator: ", "))."
        }
    }
}
