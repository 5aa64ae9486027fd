import Foundation
public import VariablyCodable

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

    private struct Row {
        var model: Model?
        var json: Data?
        var version: Int64
    }

    /// The faults injected from now on.
    public private(set) var faults: SimulatedFaults
    /// What the server has done so far.
    public private(set) var statistics = Statistics()

    private var rows: [Model.ID: Row] = [:]
    private var insertionOrder: [Model.ID] = []
    private var logVersions: [Int64] = []
    private var logIDs: [Model.ID] = []
    private var clock: Int64 = 0
    private var random: SeededRandomNumberGenerator
    private var appliedChanges: [String: PushResult<Model.ID>] = [:]
    /// The idempotency key of the pushed change that last wrote each record (absent after other writes).
    private var lastWriterKey: [Model.ID: String] = [:]
    private var lastPage: RemotePage<Model.ID>?
    private var successfulPulls = 0
    private var keyRenames: [(from: String, to: String)] = []
    private let validate: (@Sendable (Model) -> String?)?
    private let encoder = JSONEncoder(source: .remote)
    private let decoder = JSONDecoder(source: .remote)
    private let idKey: String?

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
    /// - Throws: ``VariablyCodingError`` if a record cannot be encoded with the remote key set.
    /// - Complexity: O(n) encodes.
    public init(
        records: some Sequence<Model>, seed: UInt64 = 0, faults: SimulatedFaults = .none,
        validate: (@Sendable (Model) -> String?)? = nil
    ) throws {
        self.random = SeededRandomNumberGenerator(seed: seed)
        self.faults = faults
        self.validate = validate
        // `\Model.id` here names the protocol requirement, a different key path from the model's own
        // `\User.id`, so the entry is found by its property name.
        self.idKey = Model.keySets[.remote]?.entries.first { $0.propertyName == "id" }?.key.primary.keys.first
        for record in records {
            clock += 1
            let json = try encoder.encode(record)
            if rows.updateValue(Row(model: record, json: json, version: clock), forKey: record.id) == nil {
                insertionOrder.append(record.id)
            }
            logVersions.append(clock)
            logIDs.append(record.id)
        }
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
        while index < logVersions.count, recordCount + deleted.count < limit {
            let id = logIDs[index]
            let version = logVersions[index]
            last = version
            index += 1
            guard let row = rows[id], row.version == version else { continue }  // superseded by a later write
            guard let json = row.json else {
                deleted.append(id)
                continue
            }
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
            records: records, deletedIDs: deleted, nextCursor: SyncCursor(String(last)),
            hasMore: index < logVersions.count)
        successfulPulls += 1
        lastPage = page
        return page
    }

    /// Applies pushed changes: a change whose base is older than the record's version is a conflict,
    /// a record that fails validation or decoding is rejected, a change already applied (same
    /// idempotency key) returns its first outcome again.
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
            if let earlier = appliedChanges[change.idempotencyKey] {
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

    // MARK: - Server-side state and other clients

    /// The number of live (not deleted) records.
    public var recordCount: Int { rows.values.lazy.filter { $0.model != nil }.count }

    /// The cursor after the latest change: a client holding it is caught up.
    public var latestCursor: SyncCursor { SyncCursor(String(clock)) }

    /// The live record with `id`, or `nil`.
    ///
    /// ```swift
    /// let user = await server.record(id: 42)
    /// ```
    public func record(id: Model.ID) -> Model? {
        rows[id]?.model
    }

    /// Every live record, in the order they were first written.
    ///
    /// - Complexity: O(n).
    public func allRecords() -> [Model] {
        insertionOrder.compactMap { rows[$0]?.model }
    }

    /// Replaces the faults injected from now on.
    ///
    /// ```swift
    /// await server.setFaults(SimulatedFaults(transientErrorRate: 0.2))
    /// ```
    public func setFaults(_ faults: SimulatedFaults) {
        self.faults = faults
    }

    /// Writes `record` as another client would: it gets a new version and appears in the feed.
    ///
    /// ```swift
    /// try await server.upsert(User.sample(5))
    /// ```
    ///
    /// - Throws: ``VariablyCodingError`` if the record cannot be encoded.
    @discardableResult
    public func upsert(_ record: Model) throws -> SyncCursor {
        try write(record)
        return latestCursor
    }

    /// Deletes a record as another client would, leaving a tombstone in the feed.
    ///
    /// ```swift
    /// await server.delete(id: 5)
    /// ```
    public func delete(id: Model.ID) {
        guard let row = rows[id], row.model != nil else { return }
        tombstone(id)
    }

    /// Edits a record as another client would.
    ///
    /// ```swift
    /// try await server.update(id: 5) { $0.age += 1 }
    /// ```
    ///
    /// - Throws: ``VariablyCodingError`` if the edited record cannot be encoded.
    public func update(id: Model.ID, _ edit: @Sendable (inout Model) -> Void) throws {
        guard var model = rows[id]?.model else { return }
        edit(&model)
        try write(model)
    }

    /// Makes seeded random changes as other clients would between two syncs: edits records picked at
    /// random, deletes others and inserts `insertions`.
    ///
    /// ```swift
    /// let changes = try await server.simulateOtherClients(edits: 100, deletions: 5) { user, random in
    ///     user.score = Double.random(in: 0..<100, using: &random)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - edits: How many live records to edit (fewer if the table is smaller).
    ///   - deletions: How many other live records to delete.
    ///   - insertions: New records to write.
    ///   - edit: Changes one record; receives the server's seeded generator.
    /// - Returns: The ids updated, deleted and inserted.
    /// - Throws: ``VariablyCodingError`` if an edited record cannot be encoded.
    @discardableResult
    public func simulateOtherClients(
        edits: Int, deletions: Int = 0, insertions: [Model] = [],
        edit: @Sendable (inout Model, inout SeededRandomNumberGenerator) -> Void
    ) throws -> OtherClientChanges {
        var changes = OtherClientChanges()
        var touched = Set<Model.ID>()
        func pick() -> Model.ID? {
            for _ in 0..<(insertionOrder.count * 4 + 16) {
                let id = insertionOrder[Int.random(in: 0..<insertionOrder.count, using: &random)]
                if rows[id]?.model != nil, touched.insert(id).inserted { return id }
            }
            return nil
        }
        guard !insertionOrder.isEmpty else {
            for record in insertions { try write(record); changes.inserted.append(record.id) }
            return changes
        }
        for _ in 0..<edits {
            guard let id = pick(), var model = rows[id]?.model else { break }
            edit(&model, &random)
            try write(model)
            changes.updated.append(id)
        }
        for _ in 0..<deletions {
            guard let id = pick() else { break }
            tombstone(id)
            changes.deleted.append(id)
        }
        for record in insertions {
            try write(record)
            changes.inserted.append(record.id)
        }
        return changes
    }

    /// Renames a top-level key in every record served from now on, as an API v2 might
    /// (`"user_name"` becomes `"username"`). Pushed records are still accepted under either key.
    ///
    /// ```swift
    /// await server.renameKey("user_name", to: "username")
    /// ```
    public func renameKey(_ oldKey: String, to newKey: String) {
        keyRenames.append((oldKey, newKey))
        for id in insertionOrder {
            if let json = rows[id]?.json {
                rows[id]?.json = renamed(json, renames: [(oldKey, newKey)])
            }
        }
    }

    // MARK: - Internals

    private func beginRequest() async throws {
        try await Task.sleep(for: faults.latency)
        if roll(faults.transientErrorRate) {
            statistics.transientErrors += 1
            throw RemoteSourceError.transient("simulated transient failure")
        }
    }

    private func roll(_ probability: Double) -> Bool {
        guard probability > 0 else { return false }
        return Double.random(in: 0..<1, using: &random) < probability
    }

    private func version(of cursor: SyncCursor?) throws -> Int64 {
        guard let cursor else { return 0 }
        guard let version = Int64(cursor.rawValue), version >= 0, version <= clock else {
            throw RemoteSourceError.invalidCursor(cursor)
        }
        return version
    }

    private func firstLogIndex(after version: Int64) -> Int {
        var low = 0
        var high = logVersions.count
        while low < high {
            let middle = (low + high) / 2
            if logVersions[middle] <= version { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func write(_ model: Model) throws {
        lastWriterKey[model.id] = nil
        var json = try encoder.encode(model)
        if !keyRenames.isEmpty { json = renamed(json, renames: keyRenames) }
        clock += 1
        if rows.updateValue(Row(model: model, json: json, version: clock), forKey: model.id) == nil {
            insertionOrder.append(model.id)
        }
        logVersions.append(clock)
        logIDs.append(model.id)
    }

    private func tombstone(_ id: Model.ID) {
        lastWriterKey[id] = nil
        clock += 1
        rows[id] = Row(model: nil, json: nil, version: clock)
        logVersions.append(clock)
        logIDs.append(id)
    }

    private func apply(_ change: RemoteChange<Model.ID>) -> PushOutcome {
        let row = rows[change.id]
        if let base = change.baseCursor {
            guard let baseVersion = Int64(base.rawValue) else {
                return .rejected(reason: "unknown base cursor \"\(base)\"")
            }
            let ownWrite = lastWriterKey[change.id].map(change.supersedes.contains) ?? false
            if let row, row.version > baseVersion, !ownWrite {
                statistics.conflicts += 1
                return .conflict(serverRecord: row.json, version: SyncCursor(String(row.version)))
            }
        }
        switch change.operation {
        case .upsert(let json):
            let model: Model
            do {
                model = try decoder.decode(Model.self, from: json)
            } catch {
                return .rejected(reason: "the record does not decode: \(error)")
            }
            guard model.id == change.id else {
                return .rejected(reason: "the record's id does not match the change's id")
            }
            if let reason = validate?(model) { return .rejected(reason: reason) }
            do {
                try write(model)
            } catch {
                return .rejected(reason: "the record does not encode: \(error)")
            }
        case .delete:
            guard row?.model != nil else { return .accepted(version: SyncCursor(String(row?.version ?? clock))) }
            tombstone(change.id)
        }
        lastWriterKey[change.id] = change.idempotencyKey
        return .accepted(version: latestCursor)
    }

    /// The record with every value but its id replaced by `[]`.
    private func malformed(_ json: Data) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else { return nil }
        var broken: [String: Any] = [:]
        for (key, value) in object {
            broken[key] = key == idKey ? value : [Any]()
        }
        return try? JSONSerialization.data(withJSONObject: broken, options: [.sortedKeys])
    }

    private func renamed(_ json: Data, renames: [(from: String, to: String)]) -> Data {
        guard var object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else { return json }
        for (from, to) in renames {
            if let value = object.removeValue(forKey: from) { object[to] = value }
        }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? json
    }
}
