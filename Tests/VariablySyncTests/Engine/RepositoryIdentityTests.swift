import Foundation
import Testing
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// A model whose primary key is `memberID` (`"member_id"` on the server, `"member_key"` in SQLite),
/// with `id` computed from it, and a local-only column: `note` is stored in SQLite, never sent.
struct Member: VariablyCodable, SQLiteStorable, Identifiable, Sendable {
    var memberID: String
    var name: String
    var level: Int
    var note: String

    var id: String { memberID }

    init(memberID: String, name: String, level: Int, note: String = "") {
        self.memberID = memberID
        self.name = name
        self.level = level
        self.note = note
    }

    init(from container: DecodingContainer<Member>) throws {
        memberID = try container.decode(\.memberID)
        name = try container.decode(\.name)
        level = try container.decode(\.level)
        note = try container.decode(\.note, default: "")
    }

    static let keySets = KeySets<Member>(defaultSource: .remote) {
        KeySet(.remote, excluding: [\.note]) {
            Key(\.memberID, "member_id")
            Key(\.name, "display_name")
            Key(\.level, "level")
        }
        KeySet(.sqlite) {
            Key(\.memberID, "member_key")
            Key(\.name, "name")
            Key(\.level, "level")
            Key(\.note, "note")
        }
    }

    static let sqliteTable = SQLiteTable<Member>("members", primaryKey: \.memberID)

    static func samples(_ count: Int) -> [Member] {
        (0..<count).map { Member(memberID: "m-\($0)", name: "member \($0)", level: $0 % 7) }
    }
}

extension Member: Hashable {}

/// A source whose records are raw JSON, for records the simulated server would not make.
private struct RawSource: RemoteSource {
    typealias Model = Member
    let records: Data

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<String> {
        RemotePage(records: records, deletedIDs: [], nextCursor: SyncCursor(rawValue: "1"), hasMore: false)
    }

    func push(_ changes: [RemoteChange<String>]) async throws -> [PushResult<String>] { [] }
}

@Suite("Repository: identity from the declared primary key")
struct RepositoryIdentityTests {
    private func configuration() -> SyncConfiguration<Member> {
        SyncConfiguration(
            pageSize: 25, retryPolicy: RetryPolicy(maxAttempts: 3, initialDelay: .microseconds(10), seed: 1))
    }

    @Test func aModelWhoseKeyIsNotNamedIdSyncsUpdatesAndDeletes() async throws {
        let server = try SimulatedServer(records: Member.samples(100), seed: 1)
        let repository = try Repository(database: .inMemory(), remote: server, configuration: configuration())
        let first = try await repository.sync()
        #expect(first.inserted == 100)
        await #expect(try repository.count() == 100)

        try await server.update(id: "m-3") { $0.level = 99 }
        await server.delete(id: "m-4")
        let second = try await repository.sync()
        #expect(second.updated == 1)
        #expect(second.deleted == 1)
        await #expect(try repository.fetch(id: "m-3")?.level == 99)
        await #expect(try repository.fetch(id: "m-4") == nil)
    }

    @Test func pushedChangesAndConflictsCarryTheModelsIDs() async throws {
        let server = try SimulatedServer(records: Member.samples(10), seed: 2) { member in
            member.level < 0 ? "level must not be negative" : nil
        }
        let repository = try Repository(database: .inMemory(), remote: server, configuration: configuration())
        try await repository.sync()
        var member = try await #require(try repository.fetch(id: "m-1"))
        member.level = -1
        try await repository.save(member)
        let report = try await repository.sync()
        #expect(report.failed.map(\.id) == ["m-1"])
    }

    @Test func skippedRecordsAreReportedWithTheirPrimaryKeys() async throws {
        let json = #"[{"member_id": "a", "display_name": "A", "level": 1}, {"member_id": "b", "level": "high"}]"#
        let repository = try Repository(
            database: .inMemory(), remote: RawSource(records: Data(json.utf8)), configuration: configuration())
        let report = try await repository.sync()
        #expect(report.inserted == 1)
        #expect(report.skipped.map(\.id) == ["b"])
        #expect(report.skipped.first?.index == 1)
    }

    @Test func aResyncKeepsTheRowsTheServerStillHasAndRemovesTheOthers() async throws {
        let server = try SimulatedServer(records: Member.samples(60), seed: 3)
        let database = try SQLiteDatabase.inMemory()
        let repository = try Repository(database: database, remote: server, configuration: configuration())
        try await repository.sync()
        // A row the server never had, written behind the repository's back and then unqueued, as a
        // cache of unknown history would hold it.
        try await database.write { db in
            try db.upsert(Member(memberID: "stale", name: "gone", level: 0))
            try db.execute(sql: #"DELETE FROM "variably_pending_changes""#)
        }
        let report = try await repository.resync()
        #expect(report.deleted == 1)
        await #expect(try repository.count() == 60)
        await #expect(try repository.fetch(id: "stale") == nil)
        await #expect(try repository.fetch(id: "m-59") != nil)
    }

    @Test func aPullKeepsLocalOnlyColumns() async throws {
        let server = try SimulatedServer(records: Member.samples(10), seed: 4)
        let database = try SQLiteDatabase.inMemory()
        let repository = try Repository(database: database, remote: server, configuration: configuration())
        try await repository.sync()
        var member = try await #require(try repository.fetch(id: "m-2"))
        member.note = "call back on Monday"
        try await repository.save(member)
        try await repository.sync()  // pushes the edit; `note` is not part of the remote key set

        try await server.update(id: "m-2") { $0.name = "renamed by another client" }
        try await server.update(id: "m-5") { $0.level = 42 }
        try await repository.sync()
        let pulled = try await #require(try repository.fetch(id: "m-2"))
        #expect(pulled.name == "renamed by another client")
        #expect(pulled.note == "call back on Monday")
        await #expect(try repository.fetch(id: "m-5")?.level == 42)
    }
}
