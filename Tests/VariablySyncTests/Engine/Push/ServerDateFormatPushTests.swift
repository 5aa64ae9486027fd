import Foundation
import Testing
import VariablyCodable
import VariablySQLite

@testable import VariablySync

/// A pushed record writes each `Date` whose remote key declares no strategy in the form the server's
/// own records write that field in (kept in the sync state); a declared strategy still wins, and a
/// field the server never sent goes as ISO 8601 with milliseconds in UTC.
@Suite(.timeLimit(.minutes(2)))
struct ServerDateFormatPushTests {
    /// The server's records: a PocketBase-style date, one with microseconds and an offset, an epoch
    /// number, a declared strategy and a date the records never carry.
    static let page = #"""
        [{"id": 1, "title": "dentist", "due_at": "2024-01-02 03:04:05.678Z",
          "seen_at": "2026-11-02T10:00:00.123456+01:00", "stamp": 1714566600, "logged_at": "2026-11-02"}]
        """#

    @Test func anEditWritesEachDateInTheFormTheServerSentIt() async throws {
        let remote = DatedRecordsSource(page: Self.page)
        let repository = try await Repository<Appointment>.open(database: .inMemory(), remote: remote)
        try await repository.sync()
        var appointment = try #require(try await repository.fetch(id: 1))
        appointment.title = "dentist, moved"
        appointment.dueAt = appointment.dueAt.addingTimeInterval(3600)
        appointment.remindAt = Date(timeIntervalSince1970: 0.25)
        try await repository.save(appointment)
        try await repository.sync()

        let sent = try #require(await remote.pushedRecords.last)
        let json = try #require(JSONSerialization.jsonObject(with: sent) as? [String: Any])
        #expect(json["title"] as? String == "dentist, moved")
        #expect(json["due_at"] as? String == "2024-01-02 04:04:05.678Z")
        #expect(json["seen_at"] as? String == "2026-11-02T10:00:00.123456+01:00")
        #expect(json["stamp"] as? Int == 1_714_566_600)
        // Declared `.dates(.dateOnly)` wins over the form the server sent.
        #expect(json["logged_at"] as? String == "2026-11-02")
        // Never sent by the server: the default.
        #expect(json["remind_at"] as? String == "1970-01-01T00:00:00.250Z")
    }

    /// The forms are kept in the sync state: a repository opened again on the same file writes them
    /// though its server now sends no record.
    @Test func theFormsOutliveTheRepository() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dates-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: path) }
        do {
            let repository = try await Repository<Appointment>.open(
                database: try SQLiteDatabase(path: path.path), remote: DatedRecordsSource(page: Self.page))
            try await repository.sync()
        }
        let remote = DatedRecordsSource(page: "[]")
        let repository = try await Repository<Appointment>.open(
            database: try SQLiteDatabase(path: path.path), remote: remote)
        var appointment = try #require(try await repository.fetch(id: 1))
        appointment.title = "moved offline"
        try await repository.save(appointment)
        try await repository.sync()
        let sent = try #require(await remote.pushedRecords.last)
        let json = try #require(JSONSerialization.jsonObject(with: sent) as? [String: Any])
        #expect(json["due_at"] as? String == "2024-01-02 03:04:05.678Z")
    }
}

/// A model with dates in several forms.
struct Appointment: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
    var id: Int64
    var title: String
    var dueAt: Date
    var seenAt: Date
    var stamp: Date
    var loggedAt: Date
    var remindAt: Date?

    init(from container: DecodingContainer<Appointment>) throws {
        id = try container.decode(\.id)
        title = try container.decode(\.title)
        dueAt = try container.decode(\.dueAt)
        seenAt = try container.decode(\.seenAt)
        stamp = try container.decode(\.stamp)
        loggedAt = try container.decode(\.loggedAt)
        remindAt = try container.decode(\.remindAt)
    }

    static let keySets = KeySets<Appointment>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.title, "title")
            Key(\.dueAt, "due_at")
            Key(\.seenAt, "seen_at")
            Key(\.stamp, "stamp")
            Key(\.loggedAt, "logged_at").dates(.dateOnly)
            Key(\.remindAt, "remind_at")
        }
        KeySet(.sqlite, style: .snakeCase)
    }

    static let sqliteTable = SQLiteTable<Appointment>("appointments", primaryKey: \.id)
}

/// Serves one page of JSON and accepts every change, keeping the JSON of each upsert.
actor DatedRecordsSource: RemoteSource {
    typealias Model = Appointment

    let page: String
    private(set) var pushedRecords: [Data] = []

    init(page: String) { self.page = page }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        RemotePage(
            records: cursor == nil ? Data(page.utf8) : Data("[]".utf8), deletedIDs: [],
            nextCursor: SyncCursor(rawValue: "1"), hasMore: false)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        for change in changes { if case .upsert(let json) = change.operation { pushedRecords.append(json) } }
        return changes.map {
            PushResult(
                idempotencyKey: $0.idempotencyKey, id: $0.id, outcome: .accepted(version: RecordVersion(rawValue: "2")))
        }
    }
}
