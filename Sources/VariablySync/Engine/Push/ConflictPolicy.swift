/// A local change that met a newer server version of the same record during a push.
///
/// ```swift
/// .custom { conflict in
///     guard var merged = conflict.server, let local = conflict.local else { return .keepServer }
///     merged.tags = Array(Set(merged.tags + local.tags)).sorted()
///     return .merged(merged)
/// }
/// ```
public struct SyncConflict<Model: Identifiable & Sendable>: Sendable where Model.ID: Sendable {
    /// The record's id.
    public let id: Model.ID
    /// The local version, or `nil` when the local change was a deletion.
    public let local: Model?
    /// The server's version, or `nil` when the server deleted the record.
    public let server: Model?
}

/// How a conflict is settled.
public enum ConflictResolution<Model: Sendable>: Sendable {
    /// Take the server's version (or its deletion) into the cache; the local change is dropped.
    case keepServer
    /// Push the local version (or deletion) again over the server's.
    case keepLocal
    /// Store `model` locally and push it over the server's version.
    case merged(Model)
}

/// How a ``Repository`` settles conflicts between local changes and the server.
///
/// ```swift
/// var configuration = SyncConfiguration<User>()
/// configuration.conflictPolicy = .newestWins(by: \.updatedAt)
/// ```
public struct ConflictPolicy<Model: Identifiable & Sendable>: Sendable where Model.ID: Sendable {
    /// The policy's name, used in reports: `"serverWins"`, `"newestWins(\User.updatedAt)"`.
    package let name: String
    let resolve: @Sendable (SyncConflict<Model>) -> ConflictResolution<Model>

    /// The server's version always wins; local changes that conflict are dropped.
    public static var serverWins: ConflictPolicy {
        ConflictPolicy(name: "serverWins") { _ in .keepServer }
    }

    /// The local version always wins and is pushed again over the server's.
    public static var clientWins: ConflictPolicy {
        ConflictPolicy(name: "clientWins") { _ in .keepLocal }
    }

    /// The version with the larger value at `keyPath` wins (the server's on a tie). A deletion on
    /// either side has no timestamp: the side that still has the record wins.
    ///
    /// ```swift
    /// .newestWins(by: \.updatedAt)
    /// ```
    public static func newestWins<Value: Comparable & Sendable>(by keyPath: any KeyPath<Model, Value> & Sendable)
        -> ConflictPolicy
    {
        ConflictPolicy(name: "newestWins(\(keyPath))") { conflict in
            switch (conflict.local, conflict.server) {
            case (let local?, let server?):
                return local[keyPath: keyPath] > server[keyPath: keyPath] ? .keepLocal : .keepServer
            case (.some, nil): return .keepLocal
            case (nil, _): return .keepServer
            }
        }
    }

    /// Your own resolution, e.g. a field-by-field merge.
    ///
    /// ```swift
    /// .custom { conflict in conflict.local.map { .merged($0) } ?? .keepServer }
    /// ```
    public static func custom(
        name: String = "custom", _ resolve: @escaping @Sendable (SyncConflict<Model>) -> ConflictResolution<Model>
    ) -> ConflictPolicy {
        ConflictPolicy(name: name, resolve: resolve)
    }
}
