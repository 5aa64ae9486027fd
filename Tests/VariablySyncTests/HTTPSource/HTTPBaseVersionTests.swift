import Foundation
import Testing
import VariablyCodable
import VariablySQLite
import VariablySyncTesting

@testable import VariablySync

/// Concurrency turned on for an existing cache (pulled before the app declared `lock_version` and
/// `.versionInBody`): no version is kept for its records, and none is invented. The server's record is
/// compared with the one pulled: unchanged, the edit goes with the server's version; changed, it is a
/// conflict for the policy, not an overwrite.
@Suite(.timeLimit(.minutes(2)))
struct HTTPBaseVersionTests {
    /// A cache of notes 1 and 2 pulled without versions, and the repository that now checks them.
    private func existingCache(
        _ server: LockVersionServer, api: HTTPAPI = LockVersionServer.api(),
        conflicts: ConflictPolicy<LockedNote> = .serverWins
    ) async throws -> Repository<LockedNote> {
        let database = try SQLiteDatabase.inMemory()
        let before = try server.repository(LockVersionServer.api(concurrency: .none), database: database)
        try await before.sync()
        #expect(try await before.count() == 2)
        return try server.repository(api, database: database, conflicts: conflicts)
    }

    private static let notes = [LockedNote(id: 1, title: "one"), LockedNote(id: 2, title: "two")]

    @Test func anEditAfterAServerEditIsAConflictNotAnOverwrite() async throws {
        let server = LockVersionServer(Self.notes)
        let notes = try await existingCache(server)
        server.edit(1, title: "edited there")
        var note = try #require(try await notes.fetch(id: 1))
        note.title = "edited here"
        try await notes.save(note)

        let report = try await notes.sync()
        #expect(report.conflicts.map(\.id) == [1])
        #expect(server.notes.first?.title == "edited there")
        #expect(server.notes.first?.lockVersion == 1)
        #expect(try await notes.fetch(id: 1)?.title == "edited there")
        #expect(server.requests.filter { $0.method == "PATCH" }.isEmpty)
        #expect(try await notes.pendingChangeCount() == 0)
    }

    /// With a policy that keeps the local edit, it goes based on the version of the server's record it
    /// was compared with.
    @Test func aConflictKeptLocalGoesWithTheServersVersion() async throws {
        let server = LockVersionServer(Self.notes)
        let notes = try await existingCache(server, conflicts: .clientWins)
        server.edit(1, title: "edited there")
        var note = try #require(try await notes.fetch(id: 1))
        note.title = "edited here"
        try await notes.save(note)

        let report = try await notes.sync()
        #expect(report.conflicts.map(\.resolution) == [.keptLocal])
        #expect(server.notes.first?.title == "edited here")
        #expect(server.requests.filter { $0.method == "PATCH" }.map { $0.body["lock_version"]?.intValue } == [1])
    }

    @Test func anEditWithNoServerEditGoesWithTheServersVersion() async throws {
        let server = LockVersionServer(Self.notes)
        let notes = try await existingCache(server)
        var note = try #require(try await notes.fetch(id: 2))
        note.title = "edited here"
        try await notes.save(note)
        note.title = "edited here again"
        try await notes.save(note)

        let report = try await notes.sync()
        #expect(report.pushed == 1)
        #expect(report.conflicts.isEmpty)
        #expect(server.notes.last?.title == "edited here again")
        #expect(server.requests.filter { $0.method == "PATCH" }.map { $0.body["lock_version"]?.intValue } == [0])
    }

    @Test func aDeleteAfterAServerEditIsAConflictNotADeletion() async throws {
        let server = LockVersionServer(Self.notes)
        let notes = try await existingCache(server)
        server.edit(1, title: "edited there")
        try await notes.delete(id: 1)

        let report = try await notes.sync()
        #expect(report.conflicts.map(\.id) == [1])
        #expect(server.notes.map(\.id) == [1, 2])
        #expect(try await notes.fetch(id: 1)?.title == "edited there")
        #expect(server.requests.filter { $0.method == "DELETE" }.isEmpty)
    }

    /// The delete carries the server's version as the declared query parameter (`?lock_version=0`).
    @Test func aDeleteWithNoServerEditSendsTheVersionAsTheQueryParameter() async throws {
        let server = LockVersionServer(Self.notes)
        let notes = try await existingCache(server)
        try await notes.delete(id: 2)

        let report = try await notes.sync()
        #expect(report.pushed == 1)
        #expect(report.conflicts.isEmpty)
        #expect(server.notes.map(\.id) == [1])
        #expect(server.requests.filter { $0.method == "DELETE" }.map(\.query) == ["lock_version=0"])
    }

    /// A record pulled with its version: the delete sends it (here in a JSON body, the default), and a
    /// server edit since is a conflict.
    @Test func aDeleteSendsTheKeptVersionInABodyByDefault() async throws {
        let server = LockVersionServer(Self.notes)
        let notes = try server.repository(
            LockVersionServer.api(deleteVersion: nil), database: try SQLiteDatabase.inMemory())
        try await notes.sync()
        server.edit(1, title: "edited there")
        try await notes.delete(id: 1)
        try await notes.delete(id: 2)

        let report = try await notes.sync()
        #expect(report.conflicts.map(\.id) == [1])
        #expect(server.notes.map(\.id) == [1])
        // Sent at once (maximumConcurrentRequests): in either order.
        let deletes = server.requests.filter { $0.method == "DELETE" }.sorted { $0.path < $1.path }
        #expect(deletes.map(\.path) == ["notes/1", "notes/2"])
        #expect(deletes.map { $0.body["lock_version"]?.intValue } == [0, 0])
        #expect(deletes.allSatisfy { $0.query.isEmpty })
    }

    /// `.versionInBody` with no version field has no way to send a version, on updates or deletes.
    @Test func versionInBodyWithoutAVersionFieldIsRefusedAtOpen() throws {
        let api = HTTPAPI(
            pull: HTTPPullShape(path: "notes", records: "results", paging: .page(parameter: "page")),
            push: .perRecord(HTTPRecordEndpoints(path: "notes", concurrency: .versionInBody)))
        let error = try #require(throws: DeclarationError.self) {
            try LockVersionServer([]).repository(api, database: try SQLiteDatabase.inMemory())
        }
        guard case .invalidSetting(let setting, _) = error.reason else {
            Issue.record("not an invalid setting: \(error)")
            return
        }
        #expect(setting == "HTTPRecordEndpoints.concurrency")
        #expect(error.fix.contains("versionField") && error.fix.contains("deleteVersion"))

        let misplaced = HTTPAPI(
            pull: api.pull,
            push: .perRecord(
                HTTPRecordEndpoints(
                    path: "notes", versionField: "lock_version", concurrency: .ifMatch, deleteVersion: .body)))
        let second = try #require(throws: DeclarationError.self) {
            try LockVersionServer([]).repository(misplaced, database: try SQLiteDatabase.inMemory())
        }
        #expect(second.fix.contains("remove deleteVersion"))
    }

    /// A create whose client reference is empty gets a UUID, in the cache first: the create sent
    /// again after its answer was lost finds the first one by it.
    @Test func anEmptyClientReferenceIsFilledAtCreate() async throws {
        let server = LockVersionServer([])
        let notes = try server.repository(
            LockVersionServer.api(clientReference: true), database: try SQLiteDatabase.inMemory())
        try await notes.save(LockedNote(id: -1, title: "new", clientID: nil))

        let report = try await notes.sync()
        #expect(report.pushed == 1)
        let sent = try #require(server.requests.first { $0.method == "POST" }?.body["client_id"]?.stringValue)
        #expect(UUID(uuidString: sent) != nil)
        #expect(server.notes.map(\.clientID) == [sent])
        #expect(try await notes.fetch().map(\.clientID) == [sent])
    }

    /// Per-record endpoints read a change's base only when it is a record's version, so an edit of a
    /// record with none kept is queued with no base, not with a copy of the table's cursor (which a
    /// look-back window makes up to 10,000 records long, copied into every queued change). A source of
    /// the package's envelope, whose server compares positions, still bases the edit on the cursor.
    @Test func anEditWithNoVersionKeptCopiesNoCursorForPerRecordEndpoints() async throws {
        let database = try SQLiteDatabase.inMemory()
        let notes = try LockVersionServer(Self.notes).repository(
            LockVersionServer.api(concurrency: .none), database: database)
        try await notes.sync()
        var note = try #require(try await notes.fetch(id: 1))
        note.title = "edited here"
        try await notes.save(note)
        let (cursor, base) = try await Self.cursorAndQueuedBase(database, table: "locked_notes")
        #expect(cursor != nil)
        #expect(base == nil)

        let enveloped = try SQLiteDatabase.inMemory()
        let server = try SimulatedServer(records: Self.notes, seed: 1)
        let envelope = try Repository<LockedNote>(database: enveloped, remote: server)
        try await envelope.sync()
        try await envelope.save(LockedNote(id: 2, title: "edited here"))
        let (envelopeCursor, envelopeBase) = try await Self.cursorAndQueuedBase(enveloped, table: "locked_notes")
        #expect(envelopeCursor != nil)
        #expect(envelopeBase == envelopeCursor)
    }

    /// The table's cursor and the base of its one queued change.
    private static func cursorAndQueuedBase(_ database: SQLiteDatabase, table: String) async throws
        -> (cursor: String?, base: String?)
    {
        try await database.read { db in
            let cursor = try db.fetchValue(
                sql: #"SELECT "cursor" FROM "variably_sync_state" WHERE "table_name" = ?"#, arguments: [table])
            let base = try db.fetchValue(
                sql: #"SELECT "base_cursor" FROM "variably_pending_changes" WHERE "table_name" = ?"#, arguments: [table]
            )
            func text(_ value: SQLValue?) -> String? { if case .text(let text)? = value { text } else { nil } }
            return (text(cursor), text(base))
        }
    }
}
