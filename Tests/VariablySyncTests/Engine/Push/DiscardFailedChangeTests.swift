import Foundation
import Testing
import VariablySQLite

@testable import VariablySync

/// `discard(failedChangeOf:)` leaves the cache as the server has the record, not as edited here.
@Suite(.timeLimit(.minutes(2)))
struct DiscardFailedChangeTests {
    @Test func discardingARefusedEditStoresTheServersRecordOrRemovesTheRow() async throws {
        let server = LockVersionServer([LockedNote(id: 1, title: "one"), LockedNote(id: 2, title: "two")])
        let notes = try server.repository(LockVersionServer.api(), database: try SQLiteDatabase.inMemory())
        try await notes.sync()
        try await notes.save([LockedNote(id: 1, title: ""), LockedNote(id: 2, title: "")])
        #expect(Set(try await notes.sync().failed.map(\.id)) == [1, 2])
        server.edit(1, title: "edited there")
        server.remove(2)

        try await notes.discard(failedChangeOf: 1)
        try await notes.discard(failedChangeOf: 2)
        #expect(try await notes.fetch() == [LockedNote(id: 1, title: "edited there", lockVersion: 1)])
        #expect(try await notes.failedChanges().isEmpty)
        #expect(try await notes.pendingChangeCount() == 0)
    }
}
