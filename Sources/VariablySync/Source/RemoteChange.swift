public import Foundation
public import VariablyCodable

/// A local change sent to a server by ``RemoteSource/push(_:)``.
///
/// ```swift
/// let change = RemoteChange(
///     idempotencyKey: UUID().uuidString, id: user.id,
///     operation: .upsert(try JSONEncoder().encode(user, source: .remote)), baseVersion: version)
/// ```
public struct RemoteChange<ID: Hashable & Sendable>: Sendable {
    /// What the change does.
    public enum Operation: Sendable, Equatable {
        /// Create or replace the record with this JSON object (the model's remote keys).
        case upsert(Data)
        /// Delete the record.
        case delete
    }

    /// A key the server uses to recognise a change it has already applied, so retries are safe.
    public var idempotencyKey: String
    /// The record's id.
    public var id: ID
    /// What the change does.
    public var operation: Operation
    /// The server state the change was made against: the server reports a conflict if the record
    /// changed after this version (the record's own, or the cursor of the pull it came with, for a
    /// server whose versions are its change positions). `nil` overwrites unconditionally.
    public var baseVersion: RecordVersion?
    /// Idempotency keys of earlier changes to the same record that this one replaces and that may have
    /// reached the server without their outcome reaching the client (a lost response, a crash). A
    /// record whose last write came from one of them is the client's own write, not a conflict.
    public var supersedes: [String]
    /// Whether the server has never accepted this record: it was created on this device and not
    /// pushed yet. A per-record API creates it (`POST` to the collection) instead of updating it, and
    /// may answer with the id it assigns (see ``PushResult/serverRecord``).
    public var isNew: Bool
    /// The top-level keys of the record's JSON that changed since the server last accepted it; `nil`
    /// when the whole record is the change (a new record, a replaced one). An API that takes partial
    /// updates may send only these members.
    public var changedKeys: Set<String>?
    /// The full paths of the fields that changed since the server last accepted the record, as the
    /// model's remote key set writes them (`attributes.name` where ``changedKeys`` has `attributes`);
    /// `nil` when the whole record is the change, or when only ``changedKeys`` is known. A `PATCH` of
    /// changed fields sends these leaves, inside the objects around them, and nothing else of those
    /// objects.
    ///
    /// ```swift
    /// var change = RemoteChange(idempotencyKey: key, id: 7, operation: .upsert(json), baseVersion: nil)
    /// change.changedPaths = ["attributes.name"]
    /// ```
    public var changedPaths: Set<DataPath>?
    /// Whether this change, or one it replaced, was sent before and its answer never arrived (a kill, a
    /// timeout, a dropped connection): the server may have applied it. A source whose server ignores
    /// idempotency keys looks a create in doubt up before sending it again.
    public var mayHaveBeenApplied = false
    /// For a change of a record whose create is in doubt (``isNew`` and ``mayHaveBeenApplied``): the
    /// record as its create sent it. A deletion's source finds the server's copy by what the record
    /// carries (a client reference; the id the server assigned is unknown here) and deletes that one; an
    /// upsert edited since the create was sent tells the server's copy of its own create (it holds this
    /// record) from another device's record of the same id.
    public var createdRecord: Data?
    /// Every record a create in doubt was sent with, oldest first (``createdRecord`` the first of them):
    /// an edit sent before its answer, and an adoption's update cut short, are sent too.
    var createdRecords: [Data] = []
    /// For a change of a record with no version kept (cached before the source declared one): the
    /// record as this device pulled it, to compare the server's current record with (see
    /// `SyncStateStore+PreEditRows`). A source that checks versions never invents the base.
    var preEditRecord: PreEditRecord?

    /// Creates a change.
    ///
    /// - Parameters:
    ///   - idempotencyKey: Unique per change, kept across retries.
    ///   - id: The record's id.
    ///   - operation: Upsert with the record's JSON, or delete.
    ///   - baseVersion: The server state the change is based on; `nil` to overwrite.
    ///   - supersedes: Keys of earlier changes to the record that this one replaces.
    ///   - isNew: Whether the server has never accepted the record.
    ///   - changedKeys: The top-level keys that changed; `nil` for the whole record.
    public init(
        idempotencyKey: String, id: ID, operation: Operation, baseVersion: RecordVersion?,
        supersedes: [String] = [], isNew: Bool = false, changedKeys: Set<String>? = nil
    ) {
        self.idempotencyKey = idempotencyKey
        self.id = id
        self.operation = operation
        self.baseVersion = baseVersion
        self.supersedes = supersedes
        self.isNew = isNew
        self.changedKeys = changedKeys
    }
}

extension RemoteChange {
    /// The server state the change was made against, as a cursor: ``baseVersion``'s text.
    @available(*, deprecated, renamed: "baseVersion", message: "a record's version is a RecordVersion")
    public var baseCursor: SyncCursor? {
        get { baseVersion.map { SyncCursor(rawValue: $0.rawValue) } }
        set { baseVersion = newValue.map(RecordVersion.init(_:)) }
    }

    /// Creates a change based on a cursor.
    @available(*, deprecated, message: "use init(idempotencyKey:id:operation:baseVersion:…) with RecordVersion(cursor)")
    public init(
        idempotencyKey: String, id: ID, operation: Operation, baseCursor: SyncCursor?, supersedes: [String] = [],
        isNew: Bool = false, changedKeys: Set<String>? = nil
    ) {
        self.init(
            idempotencyKey: idempotencyKey, id: id, operation: operation,
            baseVersion: baseCursor.map(RecordVersion.init(_:)), supersedes: supersedes, isNew: isNew,
            changedKeys: changedKeys)
    }
}

/// What a server did with one ``RemoteChange``.
///
/// ```swift
/// switch result.outcome {
/// case .accepted(let version): print("stored as \(version)")
/// case .rejected(let reason): print("refused: \(reason)")
/// case .conflict(let serverRecord, let version): print("changed on the server at \(version)")
/// }
/// ```
public enum PushOutcome: Sendable, Equatable {
    /// Applied; the record's new version on the server.
    case accepted(version: RecordVersion)
    /// Refused, and retrying the same change will not help (validation, permissions, a request the
    /// server does not take). The change stays queued, a failed change, until the app retries, reverts or discards
    /// it (see `Repository.failedChanges()`): a refusal never loses a local change.
    case rejected(reason: String)
    /// The record changed on the server after the change's base: its current JSON (`nil` when the
    /// server deleted it) and version. Push again with that version as base to overwrite it.
    case conflict(serverRecord: Data?, version: RecordVersion)
}

extension PushOutcome {
    /// Applied at a version given as a cursor.
    @available(
        *, deprecated, message: "a record's version is a RecordVersion: .accepted(version: RecordVersion(cursor))"
    )
    @_disfavoredOverload
    public static func accepted(version: SyncCursor) -> PushOutcome { .accepted(version: RecordVersion(version)) }

    /// A conflict at a version given as a cursor.
    @available(
        *, deprecated,
        message: "a record's version is a RecordVersion: .conflict(serverRecord:version: RecordVersion(cursor))"
    )
    @_disfavoredOverload
    public static func conflict(serverRecord: Data?, version: SyncCursor) -> PushOutcome {
        .conflict(serverRecord: serverRecord, version: RecordVersion(version))
    }
}

/// The outcome of one pushed change, with the change's id and idempotency key.
public struct PushResult<ID: Hashable & Sendable>: Sendable {
    /// The pushed change's idempotency key.
    public var idempotencyKey: String
    /// The record's id.
    public var id: ID
    /// What the server did.
    public var outcome: PushOutcome
    /// The record as the server stored it (remote keys), when an accepted change was answered with
    /// it: for a new record, the id the server assigned, which replaces the provisional local one.
    public var serverRecord: Data?

    /// Creates a result.
    ///
    /// ```swift
    /// PushResult(idempotencyKey: change.idempotencyKey, id: change.id, outcome: .accepted(version: "42"))
    /// ```
    ///
    /// - Parameters:
    ///   - idempotencyKey: The pushed change's idempotency key.
    ///   - id: The record's id, as the change named it.
    ///   - outcome: What the server did.
    ///   - serverRecord: The record as the server stored it, if the answer carried it.
    public init(idempotencyKey: String, id: ID, outcome: PushOutcome, serverRecord: Data? = nil) {
        self.idempotencyKey = idempotencyKey
        self.id = id
        self.outcome = outcome
        self.serverRecord = serverRecord
    }
}

extension RemoteChange {
    /// Whether the server's record `server` holds the values of `sent` (both JSON objects in remote
    /// keys) at `paths` (written as in key sets: `attributes.name`), or at every leaf of `sent` when
    /// `paths` is `nil`: a change the server already applied, or a create in doubt found on the
    /// server. Members the server adds around them (its own stamps inside `attributes`) do not count.
    /// `false` when nothing is compared.
    static func record(_ server: Data?, holds sent: Data?, paths: Set<DataPath>?) -> Bool {
        guard let server, let sent,
            let serverObject = try? JSONSerialization.jsonObject(with: server) as? [String: Any],
            let sentObject = try? JSONSerialization.jsonObject(with: sent) as? [String: Any]
        else { return false }
        // Each path's leaves: an object sent is held when the server's holds each of its members.
        let roots = paths.map { $0.map(\.keys) } ?? (sentObject.isEmpty ? [] : [[]])
        let compared = roots.flatMap { root -> [[String]] in
            guard let nested = value(at: root, in: sentObject) as? [String: Any], !nested.isEmpty else { return [root] }
            return leafPaths(of: nested, under: root)
        }
        guard !compared.isEmpty else { return false }
        return compared.allSatisfy { path in
            let sentValue = value(at: path, in: sentObject) as? NSObject ?? NSNull()
            let serverValue = value(at: path, in: serverObject) as? NSObject ?? NSNull()
            return sentValue.isEqual(serverValue)
        }
    }

    /// The paths of every value of `object` that is not itself an object (an empty object counts as
    /// a value).
    private static func leafPaths(of object: [String: Any], under prefix: [String] = []) -> [[String]] {
        object.flatMap { key, value -> [[String]] in
            if let nested = value as? [String: Any], !nested.isEmpty {
                return leafPaths(of: nested, under: prefix + [key])
            }
            return [prefix + [key]]
        }
    }

    /// The value at `path` in `object`; `nil` where a member is missing or not an object.
    private static func value(at path: [String], in object: [String: Any]) -> Any? {
        var current: Any? = object
        for key in path {
            guard let members = current as? [String: Any] else { return nil }
            current = members[key]
        }
        return current
    }
}
