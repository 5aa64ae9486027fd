import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySync
import VariablySyncTesting
import VariablyTestSupport

@Suite struct SimulatedServerTests {
    private func decode(_ page: RemotePage<Int64>) throws -> [User] {
        try JSONDecoder(source: .remote).decode([User].self, from: page.records)
    }

    @Test func pagesCoverEveryRecordOnceInOrder() async throws {
        let server = try SimulatedServer(records: User.samples(2_500), seed: 1)
        var cursor: SyncCursor?
        var pulled: [User] = []
        var pages: [RemotePage<Int64>] = []
        repeat {
            let page = try await server.pull(after: cursor, limit: 1_000)
            pages.append(page)
            pulled += try decode(page)
            cursor = page.nextCursor
        } while pages.last!.hasMore
        #expect(pages.count == 3)
        #expect(pages.map(\.hasMore) == [true, true, false])
        #expect(pulled == User.samples(2_500))
        #expect(cursor == SyncCursor(rawValue: "2500"))
    }

    @Test func changeFeedHoldsOnlyLaterWritesAndTombstones() async throws {
        let server = try SimulatedServer(records: User.samples(100), seed: 2)
        let start = await server.latestCursor
        try await server.update(id: 10) { $0.age = 99 }
        try await server.update(id: 10) { $0.age = 100 }  // the earlier write is superseded
        await server.delete(id: 20)
        try await server.upsert(User.sample(500))
        let page = try await server.pull(after: start, limit: 100)
        let users = try decode(page)
        #expect(users.map(\.id) == [10, 501])
        #expect(users[0].age == 100)
        #expect(page.deletedIDs == [20])
        #expect(page.hasMore == false)
        #expect(await server.recordCount == 100)
    }

    @Test func otherClientsChangeTheSameRecordsForTheSameSeed() async throws {
        func run() async throws -> SimulatedServer<User>.OtherClientChanges {
            let server = try SimulatedServer(records: User.samples(1_000), seed: 77)
            return try await server.simulateOtherClients(edits: 20, deletions: 5, insertions: [User.sample(2_000)]) {
                user, random in
                user.score = Double(Int.random(in: 0..<100, using: &random))
            }
        }
        let first = try await run()
        let second = try await run()
        #expect(first.updated == second.updated)
        #expect(first.deleted == second.deleted)
        #expect(first.updated.count == 20)
        #expect(Set(first.updated).isDisjoint(with: first.deleted))
        #expect(first.inserted == [2_001])
    }

    @Test func malformedRecordsStillCarryTheirID() async throws {
        let server = try SimulatedServer(
            records: User.samples(10), seed: 3, faults: SimulatedFaults(malformedRecordRate: 1))
        let page = try await server.pull(after: nil, limit: 10)
        #expect(throws: VariablyCodingError.self) { try decode(page) }
        let objects = try #require(try JSONSerialization.jsonObject(with: page.records) as? [[String: Any]])
        #expect(objects.compactMap { ($0["id"] as? NSNumber)?.intValue } == Array(1...10))
        #expect(await server.statistics.malformedIDs == Array(1...10))
    }

    @Test func duplicatedPageRepeatsThePreviousAnswer() async throws {
        let server = try SimulatedServer(
            records: User.samples(30), seed: 4, faults: SimulatedFaults(duplicatePageRate: 1))
        let first = try await server.pull(after: nil, limit: 10)
        let again = try await server.pull(after: first.nextCursor, limit: 10)
        #expect(again.nextCursor == first.nextCursor)
        #expect(again.records == first.records)
        #expect(await server.statistics.duplicatedPages == 1)
    }

    @Test func renamedServerKeyStillDecodesThroughAlternatives() async throws {
        let server = try SimulatedServer(records: User.samples(5), seed: 5)
        await server.renameKey("user_name", to: "username")
        let page = try await server.pull(after: nil, limit: 10)
        let text = String(decoding: page.records, as: UTF8.self)
        #expect(text.contains("\"username\""))
        #expect(!text.contains("\"user_name\""))
        #expect(try decode(page) == User.samples(5))
    }

    @Test func transientFailuresAndInterruptionsAreThrown() async throws {
        let server = try SimulatedServer(
            records: User.samples(5), seed: 6, faults: SimulatedFaults(transientErrorRate: 1))
        await #expect(throws: RemoteSourceError.transient("simulated transient failure")) {
            _ = try await server.pull(after: nil, limit: 10)
        }
        await server.setFaults(SimulatedFaults(interruptAfterPulls: 1))
        let page = try await server.pull(after: nil, limit: 2)
        do {
            _ = try await server.pull(after: page.nextCursor, limit: 2)
            Issue.record("the second pull should have been interrupted")
        } catch let error as RemoteSourceError {
            #expect(!error.isTransient)
        }
        let resumed = try await server.pull(after: page.nextCursor, limit: 2)
        #expect(try decode(resumed).map(\.id) == [3, 4])
    }

    @Test func unknownCursorIsRejected() async throws {
        let server = try SimulatedServer(records: User.samples(5), seed: 7)
        await #expect(throws: RemoteSourceError.invalidCursor("abc")) {
            _ = try await server.pull(after: "abc", limit: 10)
        }
    }

    @Test func pushAcceptsRejectsAndReportsConflicts() async throws {
        let server = try SimulatedServer(records: User.samples(10), seed: 8) { user in
            user.email.contains("@") ? nil : "email must contain @"
        }
        let base = RecordVersion(await server.latestCursor)
        var edited = User.sample(0)
        edited.userName = "edited"
        var invalid = User.sample(1)
        invalid.email = "nowhere"
        try await server.update(id: 3) { $0.age = 70 }  // another client, after `base`
        let encoder = JSONEncoder(source: .remote)
        let results = try await server.push([
            RemoteChange(idempotencyKey: "a", id: 1, operation: .upsert(try encoder.encode(edited)), baseVersion: base),
            RemoteChange(
                idempotencyKey: "b", id: 2, operation: .upsert(try encoder.encode(invalid)), baseVersion: base),
            RemoteChange(idempotencyKey: "c", id: 3, operation: .delete, baseVersion: base),
        ])
        #expect(results.map(\.idempotencyKey) == ["a", "b", "c"])
        #expect(results[0].outcome == .accepted(version: "12"))
        #expect(results[1].outcome == .rejected(reason: "email must contain @"))
        guard case .conflict(let record?, let version) = results[2].outcome else {
            Issue.record("expected a conflict, got \(results[2].outcome)")
            return
        }
        #expect(version == "11")
        #expect(try JSONDecoder(source: .remote).decode(User.self, from: record).age == 70)
        #expect(await server.record(id: 1)?.userName == "edited")
        #expect(await server.record(id: 3) != nil)

        let forced = try await server.push([
            RemoteChange(idempotencyKey: "d", id: 3, operation: .delete, baseVersion: version)
        ])
        #expect(forced[0].outcome == .accepted(version: "13"))
        #expect(await server.record(id: 3) == nil)
    }

    @Test func replayedIdempotencyKeyIsAppliedOnce() async throws {
        let server = try SimulatedServer(records: User.samples(3), seed: 9)
        var user = User.sample(0)
        user.age = 50
        let change = RemoteChange(
            idempotencyKey: "same", id: user.id, operation: .upsert(try JSONEncoder().encode(user, source: .remote)),
            baseVersion: nil)
        let first = try await server.push([change])
        let second = try await server.push([change])
        #expect(first[0].outcome == second[0].outcome)
        #expect(await server.latestCursor == "4")
        #expect(await server.statistics.replayedChanges == 1)
    }
}

// MARK: - At scale

extension SimulatedServerTests {
    /// Pulls the whole feed after `cursor`: the live records by id and the deleted ids.
    private func pullAll(_ server: SimulatedServer<User>, after cursor: SyncCursor? = nil) async throws
        -> (records: [Int64: User], deleted: Set<Int64>, text: String)
    {
        var cursor = cursor
        var records: [Int64: User] = [:]
        var deleted = Set<Int64>()
        var text = ""
        while true {
            let page = try await server.pull(after: cursor, limit: 5_000)
            for user in try decode(page) { records[user.id] = user }
            deleted.formUnion(page.deletedIDs)
            text += String(decoding: page.records, as: UTF8.self)
            cursor = page.nextCursor
            if !page.hasMore { return (records, deleted, text) }
        }
    }

    @Test func renameAndEditsAtScaleKeepTheServerStateRight() async throws {
        let count = 50_000
        let server = try SimulatedServer(records: User.samples(count), seed: 11)
        let before = await server.latestCursor
        let signUps = (count..<(count + 100)).map(User.sample)
        let changes = try await server.simulateOtherClients(edits: 1_000, deletions: 100, insertions: signUps) {
            user, _ in
            user.age += 100
        }
        await server.renameKey("user_name", to: "username")
        try await server.update(id: 7) { $0.nickname = "after the rename" }
        await server.delete(id: 8)

        #expect(changes.updated.count == 1_000)
        #expect(changes.deleted.count == 100)
        #expect(await server.recordCount == count - 100 + 100 - (changes.deleted.contains(8) ? 0 : 1))

        let everything = try await pullAll(server)
        #expect(everything.records.count == (await server.recordCount))
        #expect(!everything.text.contains("\"user_name\""))
        #expect(everything.text.components(separatedBy: "\"username\"").count - 1 == everything.records.count)
        for id in changes.updated where id != 8 {
            #expect(everything.records[id]?.age == User.sample(Int(id) - 1).age + 100)
        }
        #expect(everything.records[7]?.nickname == "after the rename")
        #expect(everything.deleted == Set(changes.deleted).union([8]))
        let serverRecords = await server.allRecords()
        #expect(serverRecords.count == everything.records.count)
        #expect(serverRecords.allSatisfy { everything.records[$0.id] == $0 })

        let incremental = try await pullAll(server, after: before)
        #expect(Set(incremental.records.keys) == Set(changes.updated + changes.inserted + [7]).subtracting([8]))
        #expect(incremental.deleted == everything.deleted)
    }
}
