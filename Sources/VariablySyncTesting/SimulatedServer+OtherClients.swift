public import Foundation
import VariablyCodable
public import VariablySync

// MARK: - Server-side state and other clients

extension SimulatedServer {
    /// The number of live (not deleted) records.
    public var recordCount: Int { feed.liveCount }

    /// The cursor after the latest change: a client holding it is caught up.
    public var latestCursor: SyncCursor { SyncCursor(rawValue: String(feed.clock)) }

    /// The live record with `id`, or `nil`: decoded from the JSON the server stores for it (as a client
    /// would decode it before any ``renameKey(_:to:)``).
    ///
    /// ```swift
    /// let user = await server.record(id: 42)
    /// ```
    public func record(id: Model.ID) -> Model? {
        feed.rows[id].flatMap(model(of:))
    }

    /// Whether the server applied the change pushed under `idempotencyKey`: a push of it again is
    /// answered with the earlier result, not applied twice. A test's stand-in for a server rule that
    /// checks new writes only (a foreign key) skips the changes this says were applied.
    ///
    /// ```swift
    /// let replay = await server.hasApplied(idempotencyKey: change.idempotencyKey)
    /// ```
    public func hasApplied(idempotencyKey: String) -> Bool {
        appliedChanges[idempotencyKey] != nil
    }

    /// The record with `id` as the server serves it (remote keys), or `nil` when it has none.
    ///
    /// ```swift
    /// let json = try await server.currentRecord(id: 42)
    /// ```
    ///
    /// - Throws: An encoding error.
    public func currentRecord(id: Model.ID) async throws -> Data? {
        try record(id: id).map { try JSONEncoder(source: .remote).encode($0) }
    }

    /// The ids of the live records after `cursor` (`nil`: from the first), at most `limit`, in the
    /// order they were first written: the server's listing, read by
    /// `Repository.removeDeletedRecords(allowingDeletionOf:)`. Counted in ``Statistics/pulls``, with the
    /// pull's faults.
    ///
    /// ```swift
    /// let page = try await server.serverIDs(after: nil, limit: 1_000)
    /// ```
    ///
    /// - Throws: ``RemoteSourceError/invalidCursor(_:)`` for a cursor this listing did not make, and
    ///   the injected faults.
    public func serverIDs(after cursor: SyncCursor?, limit: Int) async throws -> RemoteIDPage<Model.ID> {
        statistics.pulls += 1
        try await beginRequest()
        var start = 0
        if let cursor {
            guard cursor.rawValue.hasPrefix("ids:"), let offset = Int(cursor.rawValue.dropFirst(4)), offset >= 0 else {
                throw RemoteSourceError.invalidCursor(cursor)
            }
            start = offset
        }
        // The cursor is a position in the insertion order, so a page costs what it lists and skips.
        let order = feed.insertionOrder
        var position = start
        var ids: [Model.ID] = []
        while position < order.count, ids.count < max(limit, 1) {
            if feed.rows[order[position]]?.json != nil { ids.append(order[position]) }
            position += 1
        }
        while position < order.count, feed.rows[order[position]]?.json == nil { position += 1 }
        return RemoteIDPage(
            ids: ids, nextCursor: SyncCursor(rawValue: "ids:\(position)"), hasMore: position < order.count)
    }

    /// Every live record, in the order they were first written.
    ///
    /// - Complexity: O(n): one decode per record.
    public func allRecords() -> [Model] {
        feed.insertionOrder.compactMap { feed.rows[$0].flatMap(model(of:)) }
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
        guard feed.rows[id]?.isLive == true else { return }
        tombstone(id)
    }

    /// Edits a record as another client would.
    ///
    /// ```swift
    /// try await server.update(id: 5) { $0.age += 1 }
    /// ```
    ///
    /// - Throws: ``VariablyCodingError`` if the edited record cannot be encoded.
    /// - Complexity: One decode and one encode.
    public func update(id: Model.ID, _ edit: @Sendable (inout Model) -> Void) throws {
        guard var model = feed.rows[id].flatMap(model(of:)) else { return }
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
    /// - Complexity: O(edits + deletions + insertions), whatever the table's size: each edit decodes and
    ///   encodes one record.
    @discardableResult
    public func simulateOtherClients(
        edits: Int, deletions: Int = 0, insertions: [Model] = [],
        edit: @Sendable (inout Model, inout SeededRandomNumberGenerator) -> Void
    ) throws -> OtherClientChanges {
        var changes = OtherClientChanges()
        var touched = Set<Model.ID>()
        func pick() -> Model.ID? {
            for _ in 0..<(feed.insertionOrder.count * 4 + 16) {
                let id = feed.insertionOrder[Int.random(in: 0..<feed.insertionOrder.count, using: &random)]
                if feed.rows[id]?.isLive == true, touched.insert(id).inserted { return id }
            }
            return nil
        }
        guard !feed.insertionOrder.isEmpty else {
            for record in insertions { try write(record); changes.inserted.append(record.id) }
            return changes
        }
        for _ in 0..<edits {
            guard let id = pick(), var model = feed.rows[id].flatMap(model(of:)) else { break }
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
    /// The rename is recorded, not applied to the stored records: each record is rewritten when it is
    /// served (in a page or a conflict), so a rename on a large table costs nothing up front. A record
    /// that has both keys keeps the old key's value under the new one.
    ///
    /// ```swift
    /// await server.renameKey("user_name", to: "username")
    /// ```
    ///
    /// - Parameters:
    ///   - oldKey: The top-level key to rename.
    ///   - newKey: Its new name.
    /// - Complexity: O(1); serving a record then costs one pass over its bytes.
    public func renameKey(_ oldKey: String, to newKey: String) {
        keyRenames.append(from: oldKey, to: newKey)
    }

}
