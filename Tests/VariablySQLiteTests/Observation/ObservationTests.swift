import Foundation
import Synchronization
import Testing
import UserSyncModels
import VariablySQLite
import VariablyTestSupport

/// Counts an observer's fetches, and can hold one of them until released.
private final class FetchProbe: Sendable {
    let fetches = Atomic<Int>(0)
    let blockedFetch = Atomic<Int>(0)
    let gate = DispatchSemaphore(value: 0)

    func fetched() {
        let number = fetches.add(1, ordering: .sequentiallyConsistent).newValue
        if number == blockedFetch.load(ordering: .sequentiallyConsistent) { gate.wait() }
    }
}

/// A file database in WAL mode, so that observers fetch on readers while the writer writes.
private func fileDatabase(users count: Int = 0) throws -> (SQLiteDatabase, @Sendable () -> Void) {
    let (path, cleanUp) = try TestDatabase.temporaryPath()
    let database = try SQLiteDatabase(path: path)
    try database.write { db in
        try db.migrate(User.self)
        try db.migrate(Order.self)
        if count > 0 { try db.insert(User.samples(count)) }
    }
    return (database, cleanUp)
}

@Suite("Observation: values after committed transactions")
struct ObservationTests {
    @Test func theCurrentResultComesFirst() async throws {
        let (database, cleanUp) = try fileDatabase(users: 50)
        defer { cleanUp() }
        var values = database.observe(User.self, where: #Predicate { $0.age > 30 }, sortedBy: [SortDescriptor(\.id)])
            .makeAsyncIterator()
        let first = try #require(try await values.next())
        let expected = try await database.read {
            try $0.fetch(User.self, where: #Predicate { $0.age > 30 }, sortedBy: [SortDescriptor(\.id)])
        }
        #expect(first == expected)
        #expect(!first.isEmpty)
    }

    @Test func oneTransactionGivesOneValueWithAllItsRows() async throws {
        let (database, cleanUp) = try fileDatabase()
        defer { cleanUp() }
        var values = database.observe(User.self, sortedBy: [SortDescriptor(\.id)]).makeAsyncIterator()
        #expect(try await values.next()?.count == 0)
        try await database.write { db in
            for user in User.samples(100) { try db.insert(user) }
        }
        // Never a partial transaction: the next value holds the 100 rows.
        #expect(try await values.next()?.count == 100)
        try await database.write { db in _ = try db.delete(User.self, id: Int64(1)) }
        #expect(try await values.next()?.count == 99)
    }

    @Test func transactionsDuringAFetchAreCoalescedIntoOneMoreFetch() async throws {
        let (database, cleanUp) = try fileDatabase()
        defer { cleanUp() }
        let probe = FetchProbe()
        probe.blockedFetch.store(2, ordering: .sequentiallyConsistent)
        var values = database.observe(tables: ["users"]) { db in
            probe.fetched()
            return try db.count(User.self)
        }.makeAsyncIterator()
        #expect(try await values.next() == 0)
        try await database.write { try $0.insert(User.sample(0)) }
        // The second fetch is now held; ten more transactions commit meanwhile.
        while probe.fetches.load(ordering: .sequentiallyConsistent) < 2 { try await Task.sleep(for: .milliseconds(1)) }
        for index in 1...10 { try await database.write { try $0.insert(User.sample(index)) } }
        probe.gate.signal()
        var last = 0
        while last < 11 { last = try #require(try await values.next()) }
        // The first fetch, the held one, and one for the ten transactions (it may still be running).
        for _ in 0..<2_000 where probe.fetches.load(ordering: .sequentiallyConsistent) < 3 {
            try await Task.sleep(for: .milliseconds(1))
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(probe.fetches.load(ordering: .sequentiallyConsistent) == 3)
    }

    @Test func writesToOtherTablesFetchNothing() async throws {
        let (database, cleanUp) = try fileDatabase()
        defer { cleanUp() }
        let probe = FetchProbe()
        var values = database.observe(tables: ["users"]) { db in
            probe.fetched()
            return try db.count(User.self)
        }.makeAsyncIterator()
        #expect(try await values.next() == 0)
        for index in 0..<5 {
            try await database.write { db in try db.insert(Order(id: Int64(index), order: index, quoted: "q")) }
        }
        try await database.write { try $0.insert(User.sample(0)) }
        #expect(try await values.next() == 1)
        #expect(probe.fetches.load(ordering: .sequentiallyConsistent) == 2)
    }

    @Test func aWriteThatLeavesTheResultAloneYieldsNothing() async throws {
        let (database, cleanUp) = try fileDatabase(users: 10)
        defer { cleanUp() }
        var values = database.observe(User.self, where: #Predicate { $0.age >= 1_000 }).makeAsyncIterator()
        #expect(try await values.next() == [])
        // Changes rows outside the result: fetched, equal, not yielded.
        try await database.write { db in try db.execute(sql: #"UPDATE "users" SET "score" = "score" + 1"#) }
        var old = User.sample(3)
        old.age = 1_000
        let changed = old
        try await database.write { try $0.upsert(changed) }
        #expect(try await values.next() == [changed])
    }

    @Test func cancellingTheConsumerEndsTheSequence() async throws {
        let (database, cleanUp) = try fileDatabase()
        defer { cleanUp() }
        let received = Atomic<Int>(0)
        let consumer = Task {
            for try await _ in database.observeCount(User.self) { received.add(1, ordering: .sequentiallyConsistent) }
            return "ended"
        }
        while received.load(ordering: .sequentiallyConsistent) == 0 { try await Task.sleep(for: .milliseconds(1)) }
        consumer.cancel()
        #expect(try await consumer.value == "ended")
        // The observer is gone: writes still work and nothing is delivered.
        try await database.write { try $0.insert(User.sample(0)) }
        #expect(received.load(ordering: .sequentiallyConsistent) == 1)
    }

    @Test func aFetchThatThrowsEndsTheSequenceWithItsError() async throws {
        let (database, cleanUp) = try fileDatabase()
        defer { cleanUp() }
        struct Refused: Error {}
        var values = database.observe(tables: ["users"]) { db -> Int in
            let count = try db.count(User.self)
            if count > 0 { throw Refused() }
            return count
        }.makeAsyncIterator()
        #expect(try await values.next() == 0)
        try await database.write { try $0.insert(User.sample(0)) }
        await #expect(throws: Refused.self) { _ = try await values.next() }
    }

    @Test func observingACountAndOneRecordFollowsSavesAndDeletes() async throws {
        let (database, cleanUp) = try fileDatabase(users: 3)
        defer { cleanUp() }
        var counts = database.observeCount(User.self, where: #Predicate { $0.isActive }).makeAsyncIterator()
        var record = database.observe(User.self, id: Int64(2)).makeAsyncIterator()
        let activeBefore = try #require(try await counts.next())
        #expect(try await record.next() == User.sample(1))
        var user = User.sample(1)
        user.isActive.toggle()
        let toggled = user
        try await database.write { try $0.upsert(toggled) }
        #expect(try await counts.next() == activeBefore + (toggled.isActive ? 1 : -1))
        #expect(try await record.next() == toggled)
        try await database.write { db in _ = try db.delete(User.self, id: Int64(2)) }
        #expect(try await record.next() == .some(nil))
    }

    @Test func anUntranslatablePredicateFailsTheSequence() async throws {
        let (database, cleanUp) = try fileDatabase()
        defer { cleanUp() }
        var values = database.observe(User.self, where: #Predicate { $0.userName.count > 3 }).makeAsyncIterator()
        await #expect(throws: QueryTranslationError.self) { _ = try await values.next() }
    }
}
