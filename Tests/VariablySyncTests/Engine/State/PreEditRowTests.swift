import Foundation
import Testing
import VariablySQLite

@testable import VariablySync

/// The capture keeps a record's row as pulled before its first queued edit, only when no version is
/// kept for it, and forgets it once the change is settled.
@Suite(.timeLimit(.minutes(2)))
struct PreEditRowTests {
    private func keptRows(_ notes: Repository<LockedNote>) async throws -> [String: [String: SQLValue]] {
        let ids = ["1", "2"].map(StoredRecordID.init(rawValue:))
        let rows = try await notes.database.read { try PreEditRows(table: "locked_notes").preEditRows(of: ids, $0) }
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.key.rawValue, $0.value) })
    }

    @Test func onlyTheFirstEditOfARecordWithoutAVersionKeepsItsRow() async throws {
        let server = LockVersionServer([LockedNote(id: 1, title: "one"), LockedNote(id: 2, title: "two")])
        let database = try SQLiteDatabase.inMemory()
        try await server.repository(LockVersionServer.api(concurrency: .none), database: database).sync()
        let notes = try server.repository(LockVersionServer.api(), database: database)
        try await notes.save(LockedNote(id: 1, title: "first edit"))
        try await notes.save(LockedNote(id: 1, title: "second edit"))
        #expect(try await keptRows(notes)["1"]?["title"] == .text("one"))
        #expect(try await keptRows(notes)["2"] == nil)

        try await notes.sync()
        #expect(try await keptRows(notes).isEmpty)
        // The version of the accepted push is kept: the next edit compares nothing.
        try await notes.save(LockedNote(id: 1, title: "third edit", lockVersion: 1))
        #expect(try await keptRows(notes).isEmpty)
    }
}
