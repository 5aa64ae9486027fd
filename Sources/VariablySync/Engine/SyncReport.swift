public import VariablySQLite

/// What one ``Repository/sync()`` did.
///
/// ```swift
/// let report = try await repository.sync()
/// print(report)
/// // pulled 10000 in 10 pages (10000 inserted, 0 updated, 0 deleted), pushed 0, 0 conflicts, 0 skipped, 0 retries, 0.84 s
/// ```
///
/// `ID` is the model's `Identifiable.ID`: rejected changes, conflicts and skipped records name their
/// records by it.
public struct SyncReport<ID: Hashable & Sendable>: Sendable, CustomStringConvertible {
    /// Records received from the server (malformed ones included).
    public var pulled = 0
    /// Pages applied.
    public var pages = 0
    /// Records that were new to the cache.
    public var inserted = 0
    /// Records that replaced a cached one (a page received twice counts its records again here).
    public var updated = 0
    /// Records removed from the cache by tombstones.
    public var deleted = 0
    /// Local changes the server accepted.
    public var pushed = 0
    /// Local changes the server refused, with its reasons; they stay queued, not sent again, until the
    /// app retries, reverts or discards them (``Repository/failedChanges()``).
    public var failed: [ReportedChange<ID>] = []
    /// Local changes not sent because a record they reference (`SQLiteTable` references) has not
    /// reached the server: its create was refused (the reason quotes the refusal) or is still queued.
    /// They stay queued and go once the parent's create is accepted.
    public var waitingForParent: [ReportedChange<ID>] = []
    /// Local changes the server answered with a failure (`5xx`) after every retry: they stay queued
    /// with the error and are sent again by a later sync, after a wait that grows with each failing
    /// sync (15 s, doubling, at most 15 minutes); the other changes and the pull went on.
    public var retrying: [ReportedChange<ID>] = []
    /// Conflicts met while pushing and how each was settled.
    public var conflicts: [ConflictReport<ID>] = []
    /// Server records that did not decode and were not applied.
    public var skipped: [SkippedRecord<ID>] = []
    /// Records of pulled pages left alone because a local change to them is waiting to be pushed.
    public var keptLocal = 0
    /// Pulled records parked because a record they reference is not in the cache yet (a reply served
    /// before the comment it replies to, a post whose user comes from a later page): kept in the
    /// database with the server's JSON, never shown without their parent, and applied by the batch the
    /// parent arrives in, or settled by the reference's rule when the server has no such parent. After a
    /// pull, the table's records still parked for a parent.
    public var parked = 0
    /// Records parked for a parent that the server turned out to have deleted, settled by the
    /// reference's rule, by rule: `ReferenceAction.cascade` dropped them, `ReferenceAction.setNull`
    /// applied them with the reference emptied, `ReferenceAction.restrict` keeps them parked (counted
    /// in ``parked`` too).
    ///
    /// ```swift
    /// let dropped = report.settledOrphans[.cascade, default: 0]
    /// ```
    public var settledOrphans: [ReferenceAction: Int] = [:]
    /// Pulled records the model could not decode (see ``skipped``), kept with the server's JSON and
    /// decoded again by every later sync: a model fixed in an app update gets them without a
    /// ``Repository/resync(allowingDeletionOf:)``. After a pull, how many of the table's are still undecodable.
    public var undecodable = 0
    /// Requests retried after transient failures.
    public var retries = 0
    /// Pages asked only to check that the list had ended: after a page shorter than asked, since a
    /// server may serve fewer records a page than asked without saying so. At most one a pull.
    public var checkRequests = 0
    /// Ids the server listed: what ``Repository/removeDeletedRecords(allowingDeletionOf:)`` read to find
    /// the cached records the server no longer has. `0` for a sync.
    public var listedIDs = 0
    /// The cursor the cache is at after the sync.
    public var cursor: SyncCursor?
    /// Wall-clock time of the sync.
    public var duration: Duration = .zero
    /// Whether the pull started over from the beginning by itself: because the server no longer knew
    /// the cursor (see ``SyncConfiguration/resyncsOnUnknownCursor``), or because the cache was last
    /// synced with another feed (see ``RemoteSource/feedIdentifier``).
    public var resynced: Bool { resyncReason != nil }

    /// Why the pull started over by itself.
    package enum ResyncReason: Sendable {
        case unknownCursor
        case feedChanged
    }

    /// Why the pull started over by itself, if it did.
    package var resyncReason: ResyncReason?
    /// Whether the sync ran to the end; `false` in the partial report of a failed sync
    /// (``Repository/lastReport``, ``SyncProgress/failed(_:partialReport:)``).
    public var isComplete = false

    /// An empty report.
    public init() {}

    /// One line: counts, conflicts by outcome, skipped records, retries and duration.
    public var description: String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        var text = "pulled \(pulled) in \(pages) page\(pages == 1 ? "" : "s") "
        text += "(\(inserted) inserted, \(updated) updated, \(deleted) deleted), pushed \(pushed)"
        if !failed.isEmpty { text += ", \(failed.count) failed" }
        if !retrying.isEmpty { text += ", \(retrying.count) retrying" }
        if !waitingForParent.isEmpty { text += ", \(waitingForParent.count) waiting for a parent" }
        if parked > 0 { text += ", \(parked) parked" }
        if let dropped = settledOrphans[.cascade], dropped > 0 { text += ", \(dropped) dropped with their parents" }
        if undecodable > 0 { text += ", \(undecodable) kept undecodable" }
        if listedIDs > 0 { text += ", \(listedIDs) ids listed" }
        text += ", \(conflicts.count) conflict\(conflicts.count == 1 ? "" : "s")"
        if !conflicts.isEmpty {
            let outcomes = Dictionary(grouping: conflicts, by: \.resolution.description).map { "\($1.count) \($0)" }
            text += " (\(outcomes.sorted().joined(separator: ", ")))"
        }
        text += ", \(skipped.count) skipped, \(retries) retr\(retries == 1 ? "y" : "ies")"
        text += ", " + String(format3: seconds) + " s"
        switch resyncReason {
        case .unknownCursor: text += " (full resync: the server did not know the cursor)"
        case .feedChanged: text += " (full resync: the cache was last synced with another feed)"
        case nil: break
        }
        return text
    }
}

/// A server record that did not decode, with the error naming the key path and coding path.
///
/// Its id is read from the record under the remote key of the model's primary key, when that much of
/// the record is readable.
///
/// ```swift
/// for record in report.skipped { print(record.id.map { "\($0)" } ?? "#\(record.index)", record.error) }
/// ```
public struct SkippedRecord<ID: Hashable & Sendable>: Error, Sendable, CustomStringConvertible {
    /// Its position in the page.
    public let index: Int
    /// Its id, when the record's primary key could still be read.
    public let id: ID?
    /// The `VariablyCodingError` (or other decoding error).
    public let error: any Error

    /// `record id 42: <the decoding error>`.
    public var description: String {
        "record \(id.map { "id \($0)" } ?? "#\(index)"): \(error)"
    }
}

/// A local change a sync reports with why it has not reached the server: refused by it (a *failed*
/// change, waiting for the app), *waiting for its parent*'s create, or *retrying* after a backoff.
public struct ReportedChange<ID: Hashable & Sendable>: Sendable, CustomStringConvertible {
    /// The record's id.
    public let id: ID
    /// Why it has not reached the server: the server's answer, or the parent it waits for.
    public let reason: String

    /// `42: <the server's reason>`.
    public var description: String { "\(id): \(reason)" }
}

/// A conflict met while pushing and how the policy settled it.
public struct ConflictReport<ID: Hashable & Sendable>: Sendable, CustomStringConvertible {
    /// How a conflict ended.
    public enum Resolution: Sendable, Equatable, CustomStringConvertible {
        /// The server's version is now in the cache.
        case keptServer
        /// The local version was pushed over the server's.
        case keptLocal
        /// A merged version was stored and pushed.
        case merged
        /// Still unresolved after ``SyncConfiguration/maxConflictRounds``; the change stays queued.
        case unresolved

        /// `server won`, `client won`, `merged` or `unresolved`.
        public var description: String {
            switch self {
            case .keptServer: "server won"
            case .keptLocal: "client won"
            case .merged: "merged"
            case .unresolved: "unresolved"
            }
        }
    }

    /// The record's id.
    public let id: ID
    /// The policy that decided, e.g. `"serverWins"`.
    public let policy: String
    /// What happened.
    public let resolution: Resolution

    /// `42: client won (newestWins(\User.updatedAt))`.
    public var description: String { "\(id): \(resolution) (\(policy))" }
}

extension String {
    /// `1.234` for 1.2344: three decimals without Foundation's `String(format:)`.
    init(format3 value: Double) {
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(abs(thousandths) % 1000)
        self = "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}

// MARK: - Former names

extension SyncReport {
    /// The local changes the server refused: ``failed``.
    @available(*, deprecated, renamed: "failed")
    public var rejected: [ReportedChange<ID>] {
        get { failed }
        set { failed = newValue }
    }

    /// The local changes waiting for a parent's create: ``waitingForParent``.
    @available(*, deprecated, renamed: "waitingForParent")
    public var held: [ReportedChange<ID>] {
        get { waitingForParent }
        set { waitingForParent = newValue }
    }

    /// The local changes retried after a backoff: ``retrying``.
    @available(*, deprecated, renamed: "retrying")
    public var deferred: [ReportedChange<ID>] {
        get { retrying }
        set { retrying = newValue }
    }

    /// The pulled records parked for a parent: ``parked``.
    @available(*, deprecated, renamed: "parked")
    public var waitingForParents: Int {
        get { parked }
        set { parked = newValue }
    }
}

/// A local change a sync reports with why it has not reached the server: ``ReportedChange``.
@available(*, deprecated, renamed: "ReportedChange")
public typealias RejectedChange = ReportedChange
