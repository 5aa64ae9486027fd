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

    /// The changes at `indices` of the server's log that are still current (a record written again
    /// later shows at its latest write only), in the order given.
    ///
    /// - Complexity: O(indices).
    func feedEntries(at indices: [Int32]) throws -> [FeedEntry] {
        var entries: [FeedEntry] = []
        entries.reserveCapacity(indices.count)
        let encoder = JSONEncoder()
        for index in indices.map(Int.init) where index < feed.logVersions.count {
            let version = feed.logVersions[index]
            let id = feed.logIDs[index]
            guard let row = feed.rows[id], row.version == version else { continue }  // superseded
            // The id is only read for a deletion: a record carries it in its JSON.
            let idValue = row.json == nil ? try JSONDecoder().decode(JSONValue.self, from: encoder.encode(id)) : .null
            entries.append(FeedEntry(version: version, id: idValue, json: served(row.json)))
        }
        return entries
    }
}
