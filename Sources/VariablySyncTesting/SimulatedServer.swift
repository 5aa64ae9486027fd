import Foundation
public import VariablyCodable
public import VariablySync

/// An in-process server for tests and demos: a table of records stored as JSON in the model's
/// ``CodingSource/remote`` key set, a change feed with version stamps and tombstones, edits "by other
/// clients", and injected faults. Deterministic: the same seed and calls give the same pages.
///
/// Versions are positions in the change feed: every write takes the next number, a record's version
/// is the number of its last write, and a cursor is the version of the last change a page held.
///
/// ```swift
/// let server = try SimulatedServer(records: User.samples(10_000), seed: 42)
/// let repository = try Repository<User>(database: database, remote: server)
/// try await repository.sync()
/// try await server.simulateOtherClients(edits: 100, deletions: 10) { user, random in
///     user.age += 1
/// }
/// ```
public actor SimulatedServer<Model: VariablyCodable & Identifiable & Sendable>: RemoteSource
where Model.ID: Codable & Sendable {
    /// What the server has done so far, faults included.
    public struct Statistics: Sendable {
        /// Pull requests received.
        public var pulls = 0
        /// Push requests received.
        public var pushes = 0
        /// Requests failed with a transient error.
        public var transientErrors = 0
        /// Push requests whose changes were applied but whose response was "lost".
        public var lostResponses = 0
        /// Ids of records served malformed.
        public var malformedIDs: [Model.ID] = []
        /// Pulls answered with the previous page again.
        public var duplicatedPages = 0
        /// Pulls failed by ``SimulatedFaults/interruptAfterPulls``.
        public var interruptions = 0
        /// Changes pushed again with an idempotency key already applied.
        public var replayedChanges = 0
        /// Conflicts reported to pushes.
        public var conflicts = 0
    }

    /// The ids touched by ``simulateOtherClients(edits:deletions:insertions:edit:)``.
    public struct OtherClientChanges: Sendable {
        /// Records edited.
        public var updated: [Model.ID] = []
        /// Records deleted.
        public var deleted: [Model.ID] = []
        /// Records inserted.
        public var inserted: [Model.ID] = []
    }

    /// The faults injected from now on.
    public internal(set) var faults: SimulatedFaults
    /// What the server has done so far.
    public internal(set) var statistics = Statistics()

    var feed: ChangeFeed<Model.ID>
    /// The clock the server shares with others, if any, and the server's number on it.
    nonisolated let clock: SimulatedClock?
    nonisolated let clockNumber: Int32
    var random: SeededRandomNumberGenerator
    var appliedChanges: [String: PushResult<Model.ID>] = [:]
    /// The idempotency key of the pushed change that last wrote each record (absent after other writes).
    var lastWriterKey: [Model.ID: String] = [:]
    var lastPage: RemotePage<Model.ID>?
    var successfulPulls = 0
    var keyRenames = TopLevelKeyRenames()
    let validate: (@Sendable (Model) -> String?)?
    let encoder = KeySetJSONEncoder(source: .remote)
    let storedDecoder = KeySetJSONDecoder(source: .remote)
    let decoder = JSONDecoder(source: .remote)
    let idKey: String?

    /// Creates a server holding `records`, each written once in sequence order (versions 1, 2, ...).
    ///
    /// ```swift
    /// let server = try SimulatedServer(records: User.samples(1_000), seed: 1) { user in
    ///     user.email.contains("@") ? nil : "email must contain @"
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - records: The initial table.
    ///   - seed: Seeds every random choice (faults, other clients' edits).
    ///   - faults: Faults to inject; see ``setFaults(_:)``.
    ///   - validate: Returns a reason to reject a pushed record, or `nil` to accept it.
    ///   - clock: A clock shared with other servers, whose writes then have one order: several servers
    ///     on one clock are served as one feed by ``SimulatedChangeFeed``. `nil`: the server numbers its
    ///     writes alone.
    /// - Throws: ``VariablyCodingError`` if a record cannot be encoded with the remote key set.
    /// - Complexity: O(n): one pass, encoding batches of records on every core.
    public init(
        records: some Sequence<Model>, seed: UInt64 = 0, faults: SimulatedFaults = SimulatedFaults(),
        validate: (@Sendable (Model) -> String?)? = nil, clock: SimulatedClock? = nil
    ) throws {
        self.clock = clock
        let number = clock?.register() ?? 0
        self.clockNumber = number
        self.feed = ChangeFeed(sharedClock: clock.map { ($0, number) })
        self.random = SeededRandomNumberGenerator(seed: seed)
        self.faults = faults
        self.validate = validate
        // `\Model.id` here names the protocol requirement, a different key path from the model's own
        // `\User.id`, so the entry is found by its property name.
        self.idKey = Model.keySets[.remote]?.entries.first { $0.propertyName == "id" }?.key.primary.keys.first
        let expected = records.underestimatedCount
        feed.reserveCapacity(expected)
        var iterator = records.makeIterator()
        var batch: [Model] = []
        batch.reserveCapacity(Self.encodingBatchSize)
        repeat {
            batch.removeAll(keepingCapacity: true)
            while batch.count < Self.encodingBatchSize, let record = iterator.next() { batch.append(record) }
            let encoded = try Self.encodeConcurrently(batch, with: encoder)
            for (record, json) in zip(batch, encoded) { feed.write(json, for: record.id) }
        } while batch.count == Self.encodingBatchSize
    }

    // MARK: - RemoteSource

    /// Returns up to `limit` changes after `cursor`: the current JSON of records written after it
    /// and the ids of records deleted after it, oldest first.
    ///
    /// ```swift
    /// let page = try await server.pull(after: nil, limit: 1_000)
    /// ```
    ///
    /// - Throws: ``RemoteSourceError/invalidCursor(_:)`` for a cursor this server did not make, and
    ///   the injected faults.
    /// - Complexity: O(log n + limit) when few records were rewritten since `cursor`.
    public func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Model.ID> {
        precondition(limit > 0, "pull(after:limit:) needs a limit of at least 1")
        statistics.pulls += 1
        try await beginRequest()
        if let pulls = faults.interruptAfterPulls, successfulPulls >= pulls {
            faults.interruptAfterPulls = nil
            statistics.interruptions += 1
            throw RemoteSourceError.unavailable("simulated interruption after \(pulls) pages")
        }
        let after = try version(of: cursor)
        if let lastPage, lastPage.hasMore, lastPage.nextCursor == cursor, roll(faults.duplicatePageRate) {
            statistics.duplicatedPages += 1
            return lastPage
        }
        var index = firstLogIndex(after: after)
        var records = Data("[".utf8)
        var recordCount = 0
        var deleted: [Model.ID] = []
        var last = after
        while index < feed.logVersions.count, recordCount + deleted.count < limit {
            let id = feed.logIDs[index]
            let version = feed.logVersions[index]
            last = version
            index += 1
            guard let row = feed.rows[id], row.version == version else { continue }  // superseded by a later write
            guard let stored = row.json else {
                deleted.append(id)
                continue
            }
            let json = keyRenames.apply(to: stored)
            if recordCount > 0 { records.append(UInt8(ascii: ",")) }
            if roll(faults.malformedRecordRate), let broken = malformed(json) {
                statistics.malformedIDs.append(id)
                records.append(broken)
            } else {
                records.append(json)
            }
            recordCount += 1
        }
        records.append(UInt8(ascii: "]"))
        let page = RemotePage(
            records: records, deletedIDs: deleted, nextCursor: SyncCursor(rawValue: String(last)),
            hasMore: index < feed.logVersions.count)
        successfulPulls += 1
        lastPage = page
        return page
    }

    /// Applies pushed changes: a change whose base is older than the record's version is a conflict,
    /// a record that fails validation or decoding is rejected, a change already applied (same
    /// idempotency key) returns its first outcome again, unless the server
    /// ``SimulatedFaults/ignoresIdempotencyKeys``.
    ///
    /// ```swift
    /// let results = try await server.push(changes)
    /// ```
    ///
    /// - Throws: The injected faults; a transient failure may come after the changes were applied.
    /// - Complexity: O(changes).
    public func push(_ changes: [RemoteChange<Model.ID>]) async throws -> [PushResult<Model.ID>] {
        statistics.pushes += 1
        try await Task.sleep(for: faults.latency)
        let fails = roll(faults.transientErrorRate)
        let losesResponse = fails && roll(0.5)
        if fails && !losesResponse {
            statistics.transientErrors += 1
            throw RemoteSourceError.transient("simulated transient failure before the push was applied")
        }
        var results: [PushResult<Model.ID>] = []
        results.reserveCapacity(changes.count)
        for change in changes {
            if !faults.ignoresIdempotencyKeys, let earlier = appliedChanges[change.idempotencyKey] {
                statistics.replayedChanges += 1
                results.append(earlier)
                continue
            }
            let result = PushResult(idempotencyKey: change.idempotencyKey, id: change.id, outcome: apply(change))
            appliedChanges[change.idempotencyKey] = result
            results.append(result)
        }
        if losesResponse {
            statistics.transientErrors += 1
            statistics.lostResponses += 1
            throw RemoteSourceError.transient("simulated lost response after the push was applied")
        }
        return results
    }
}
