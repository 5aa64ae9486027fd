import Foundation
import VariablySQLite

// MARK: - Parents that never came

extension PullEngine {
    /// A parent that parked records wait for and that is not in the cache.
    private struct MissingParent: Sendable, Hashable {
        /// The parent's table.
        let table: String
        /// Its id, as the sync state keeps the parent table's ids.
        let id: StoredRecordID
        /// Its key as the children's column holds it.
        let key: SQLValue
    }

    /// Asks the server about the parents that parked records still wait for after a pull: a parent the
    /// server still has (a write the pull's pages missed) is applied, and its children with it; a parent
    /// the server answers it does not have is settled by each reference's rule (`.cascade`: its parked
    /// children are dropped, `.setNull`: applied with the reference emptied, `.restrict`: kept parked as
    /// deleted).
    ///
    /// The look-ups follow the missing parents as deep as they go: a parent applied may itself be parked
    /// for a parent of its own (a comment's new post, by a new author), which is looked up next. Each
    /// parent is asked once a pull (a cycle ends), so the requests are bounded by the records parked,
    /// never by a constant. A table whose look-up fails (a source that cannot read one record, a
    /// network error) is not asked again in this pull: its parents are asked by the next one, and their
    /// children stay parked and block nothing.
    ///
    /// - Complexity: One indexed query per table and reference with parked records a round; one request
    ///   per missing parent.
    func settleMissingParents() async throws {
        let tables = self.tables
        var asked = Set<MissingParent>()
        var failing = Set<String>()
        while true {
            try Task.checkCancellation()
            let missing = try await database.read { db in try Self.missingParents(among: tables, db) }
                .filter { !asked.contains($0) && !failing.contains($0.table) }
            guard !missing.isEmpty else { return }
            for parent in missing where !failing.contains(parent.table) {
                asked.insert(parent)
                guard let table = tables.first(where: { $0.name == parent.table }) else { continue }
                let current: Data?
                do {
                    current = try await table.lookUp(parent.id)
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    failing.insert(parent.table)
                    continue
                }
                if let current {
                    var records = Data("[".utf8)
                    records.append(current)
                    records.append(contentsOf: "]".utf8)
                    try await apply([parent.table: try table.pages(ofRecords: records)]) { _ in }
                } else {
                    let settled = try await database.write { db in
                        try Self.settleParkedChildren(ofDeleted: [parent.key], in: parent.table, among: tables, db)
                    }
                    for outcome in settled { outcome.deliver() }
                    // Records whose reference was emptied are ready now.
                    try await apply([:]) { _ in }
                }
            }
        }
    }

    /// The parents that waiting parked records reference and the cache does not have.
    private static func missingParents(among tables: [any EngineTable], _ db: Database) throws -> [MissingParent] {
        let parked = try ParkedRecords.tablesWithParkedRecords(db)
        var missing: [MissingParent] = []
        for table in tables where parked.contains(table.name) {
            for reference in table.references {
                let value = "json_extract(\"parents\", \(SQL.literal("$.\"" + reference.column + "\"")))"
                let rows = try db.fetch(
                    sql: """
                        SELECT DISTINCT \(value) AS "key", json_quote(\(value)) AS "id_text" FROM "variably_parked_records"
                        WHERE "table_name" = ? AND "state" = 'waiting' AND "key" IS NOT NULL
                            AND NOT EXISTS (SELECT 1 FROM \(SQL.quote(reference.parentTable))
                                WHERE \(SQL.quote(reference.parentColumn)) = "key")
                        """,
                    arguments: [table.name])
                for row in rows {
                    guard let idText = row.text("id_text"), let key = row["key"] else { continue }
                    missing.append(
                        MissingParent(table: reference.parentTable, id: StoredRecordID(rawValue: idText), key: key))
                }
            }
        }
        return missing
    }
}
