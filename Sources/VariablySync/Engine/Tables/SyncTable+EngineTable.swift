import Foundation
import VariablySQLite

// MARK: - The table as the engine runs it

extension SyncTable: EngineTable {
    var name: String { primaryKey.table }
    var model: ObjectIdentifier { ObjectIdentifier(Model.self) }
    var references: [TableReference] { primaryKey.references }
    var runReport: any AnyTableReport { tally.value }

    func makePages() -> any TablePages {
        FetchedPages(self)
    }

    func pages(ofRecords records: Data) throws -> any TablePages {
        FetchedPages(
            self,
            pages: [
                try decode(RemotePage(records: records, deletedIDs: [], nextCursor: SyncCursor(""), hasMore: true))
            ])
    }

    func lookUp(_ id: StoredRecordID) async throws -> Data? {
        try await remote.currentRecord(id: try primaryKey.id(of: id))
    }

    func beginRun() async throws -> Int {
        tally.reset()
        let state = self.state
        let pending = try await database.read { try state.pendingCount($0) }
        broadcaster.yield(.started(pendingChanges: pending))
        return pending
    }

    func endRun(_ error: (any Error)?, duration: Duration) {
        tally.update { report in
            report.duration = duration
            report.isComplete = error == nil
        }
        announceEnd(of: tally.value, error)
    }

    /// Announces the end of a run on the table's progress stream: `.finished(report)`, or `.failed`
    /// with what was done before `error`.
    func announceEnd(of report: SyncReport<Model.ID>, _ error: (any Error)?) {
        if let error {
            broadcaster.yield(.failed("\(error)", partialReport: report))
        } else {
            broadcaster.yield(.finished(report))
        }
    }

    func push(_ operations: Set<PendingChange.Operation>, throughGroup group: Int64?) async throws
        -> (pushed: Int, waiting: Int)
    {
        var report = SyncReport<Model.ID>()
        defer { tally.add(report, replacingWaiting: operations.contains(.upsert)) }
        try await TablePush(table: self).pushPendingChanges(into: &report, operations: operations, throughGroup: group)
        return (report.pushed, report.waitingForParent.count)
    }

    func noteSettledOrphans(_ count: Int, by rule: ReferenceAction) {
        tally.update { $0.settledOrphans[rule, default: 0] += count }
    }

    func unsentChanges(_ db: Database) throws -> [UnsentChange] {
        let held = try state.heldChanges(
            primaryKeyColumn: primaryKey.quotedColumn, references: primaryKey.references, db)
        return try state.unsent(held: held, db)
    }

    func pull(fromStart: Bool, deletions: ResyncDeletions, announce: @escaping @Sendable (Int) -> Void) async throws {
        let state = self.state
        let feed = remote.feedIdentifier
        let lastFeed = try await database.read { try state.feed($0) }
        // A cursor of another feed means nothing to this one: start over, as a resync does.
        let feedChanged = lastFeed != nil && lastFeed != feed
        if feedChanged && !fromStart { tally.update { $0.resyncReason = .feedChanged } }
        do {
            try await pullChanges(fromStart: fromStart || feedChanged, deletions: deletions, announce: announce)
        } catch RemoteSourceError.invalidCursor
            where !(fromStart || feedChanged) && configuration.resyncsOnUnknownCursor
        {
            tally.update { $0.resyncReason = .unknownCursor }
            try await pullChanges(fromStart: true, deletions: deletions, announce: announce)
        }
        if lastFeed != feed { try await database.write { try state.setFeed(feed, $0) } }
    }

    /// Decodes a page the server sent for this table, off the writer: the models, their keys, their
    /// versions and the forms of the server's dates.
    ///
    /// - Throws: ``SyncError/malformedRecords(_:)`` for a page with a malformed record when the
    ///   configuration fails such pages; the decoder's error for a page that is not JSON.
    func decode(_ page: RemotePage<Model.ID>) throws -> FetchedPage<Model> {
        var fetched = try FetchedPage<Model>.decode(page)
        if configuration.malformedRecords == .failPage, !fetched.skipped.isEmpty {
            throw SyncError.malformedRecords(fetched.skipped)
        }
        fetched.keys = try primaryKey.sqlValues(ofModels: fetched.models)
        if let field = recordVersions?.field {
            fetched.versions = FetchedPage.versions(in: page.records, field: field, of: fetched)
        }
        fetched.serverDates = dateObserver.formats(in: page.records)
        return fetched
    }
}
