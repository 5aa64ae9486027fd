import Foundation
import VariablyCodable
import VariablySync

// MARK: - Entries of a shared feed

extension SimulatedServer {
    /// One change as a ``SimulatedChangeFeed`` serves it: the record's JSON, or `nil` for a deletion of
    /// the record `id` (`null` for a record: its JSON holds it).
    struct FeedEntry: Sendable {
        let version: Int64
        let id: JSONValue
        let json: Data?
    }

    /// Up to `limit` current changes written after `version` and at most at `top`, oldest first: a
    /// record written again later shows at its latest write only.
    ///
    /// - Complexity: O(log n + entries looked at).
    func feedEntries(after version: Int64, through top: Int64, limit: Int) throws -> [FeedEntry] {
        var entries: [FeedEntry] = []
        var index = firstLogIndex(after: version)
        let encoder = JSONEncoder()
        while index < feed.logVersions.count, entries.count < limit {
            let entryVersion = feed.logVersions[index]
            guard entryVersion <= top else { break }
            let id = feed.logIDs[index]
            index += 1
            guard let row = feed.rows[id], row.version == entryVersion else { continue }  // superseded
            // The id is only read for a deletion: a record carries it in its JSON.
            let idValue = row.json == nil ? try JSONDecoder().decode(JSONValue.self, from: encoder.encode(id)) : .null
            entries.append(FeedEntry(version: entryVersion, id: idValue, json: served(row.json)))
        }
        return entries
    }
}
