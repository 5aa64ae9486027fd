import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Records the server deleted without saying so

extension SyncTable {
    /// Lists the server's ids and removes the cached records it did not list (see
    /// ``Repository/removeDeletedRecords(allowingDeletionOf:)``).
    func removeRecordsNotListed(allowing deletions: ResyncDeletions) async throws {
        var report = SyncReport<Model.ID>()
        defer { tally.add(report) }
        let remote = self.remote
        let limit = configuration.pageSize
        var random = SplitMix64(seed: jitter.next())
        var listed = Set<SQLValue>()
        var cursor: SyncCursor?
        var cursorGuard = CursorGuard(startingAfter: nil)
        while true {
            try Task.checkCancellation()
            let after = cursor
            let page = try await Self.retrying(
                policy: configuration.retryPolicy, random: &random, retries: &report.retries, broadcaster: broadcaster
            ) {
                try await remote.serverIDs(after: after, limit: limit)
            }
            for id in page.ids { listed.insert(try primaryKey.sqlValue(of: id)) }
            report.listedIDs += page.ids.count
            report.pages += 1
            guard page.hasMore else { break }
            try cursorGuard.advance(to: page.nextCursor)
            cursor = page.nextCursor
        }
        report.deleted += try await removeRecords(notIn: listed, allowing: deletions)
    }
}
