import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySyncTesting

@testable import VariablySync

/// One guard for both pulls: a cursor repeated now and then passes, one repeated too often in a row or
/// coming back in a cycle stops the pull, for a repository's own source and for a store's feed alike.
struct CursorGuardTests {
    @Test func aCursorRepeatedUpToTheLimitPasses() throws {
        var cursorGuard = CursorGuard(startingAfter: nil)
        for _ in 0...CursorGuard.maximumRepeats { try cursorGuard.advance(to: SyncCursor(rawValue: "same")) }
        #expect(throws: SyncError.self) { try cursorGuard.advance(to: SyncCursor(rawValue: "same")) }
    }

    @Test func aCycleOfTwoCursorsStops() throws {
        var cursorGuard = CursorGuard(startingAfter: nil)
        var stoppedAt: Int?
        for step in 0..<200 {
            do {
                try cursorGuard.advance(to: SyncCursor(rawValue: step.isMultiple(of: 2) ? "a" : "b"))
            } catch {
                stoppedAt = step
                break
            }
        }
        // The 33rd visit of "a" (step 64) is more than twice the limit.
        #expect(stoppedAt == 4 * CursorGuard.maximumRepeats)
    }

    /// A feed that answers "more to come" with two cursors in turn, forever.
    struct CyclingFeed: RemoteChangeFeed {
        func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemoteFeedPage {
            let next = cursor?.rawValue == "a" ? "b" : "a"
            return RemoteFeedPage(
                tables: ["users": RemoteFeedChanges(records: Data("[]".utf8))], nextCursor: SyncCursor(rawValue: next),
                hasMore: true)
        }
    }

    /// Before the guard was shared, a store's feed stopped only a cursor repeated in a row: one cycling
    /// between two cursors was pulled forever. The limit only stops a pull that never ends: alone the
    /// test takes milliseconds, but its 64 pages wait for the cooperative pool, which a loaded parallel
    /// run keeps busy for minutes.
    @Test(.timeLimit(.minutes(5))) func aFeedCyclingBetweenTwoCursorsStopsTheStoresPull() async throws {
        let database = try SQLiteDatabase.inMemory()
        let users = try Repository<User>(database: database, remote: try SimulatedServer<User>(records: [], seed: 1))
        let store = try SyncStore(users, feed: CyclingFeed())
        await #expect {
            try await store.sync()
        } throws: { error in
            guard case SyncError.cursorDidNotAdvance = error else { return false }
            return true
        }
    }
}
