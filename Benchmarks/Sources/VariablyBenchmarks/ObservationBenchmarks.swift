import Foundation
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// Observation groups: a full sync with no observer is the baseline of the same sync with three
/// active observers (a sorted `LIMIT 100` query, a count and one record), each consumed as fast as it
/// emits.
func observationGroups(users: [BenchUser]) throws -> [Group] {
    let pageSize = 1_000
    let server = try SimulatedServer(records: users, seed: 3)

    func sync(observers: Int) throws -> Int {
        let file = try TemporaryDatabase()
        let database = try SQLiteDatabase(path: file.path)
        let repository = try Repository<BenchUser>(
            database: database, remote: server, configuration: SyncConfiguration(pageSize: pageSize))
        let count = users.count
        return try runBlocking {
            var consumers: [Task<Int, any Error>] = []
            if observers > 0 {
                let streams: [AsyncThrowingStream<Int, any Error>] = [
                    repository.observe(
                        where: #Predicate { $0.age > 30 }, sortedBy: [SortDescriptor(\.userName)], limit: 100
                    )
                    .map(\.count).erasedToStream(),
                    repository.observeCount(where: #Predicate { $0.isActive }).erasedToStream(),
                    repository.observe(id: 42).map { $0 == nil ? 0 : 1 }.erasedToStream(),
                ]
                for stream in streams.prefix(observers) {
                    consumers.append(
                        Task {
                            var values = 0
                            for try await _ in stream { values += 1 }
                            return values
                        })
                }
            }
            let report = try await repository.sync()
            for consumer in consumers { consumer.cancel() }
            for consumer in consumers { _ = try? await consumer.value }
            guard report.inserted == count else { throw BenchmarkError("synced \(report.inserted) of \(count)") }
            return report.pulled
        }
    }
    return [
        Group(
            name: "Sync with observers",
            variants: [
                Variant(name: "Repository.sync(), no observer") { try sync(observers: 0) },
                Variant(name: "Repository.sync(), 3 active observers") { try sync(observers: 3) },
            ],
            targets: ["Repository.sync(), 3 active observers": 0.9])
    ]
}

/// Commit-to-emission latency of an observed `LIMIT 100` query on a table of `users`: each sample
/// renames one user of the result so that it sorts first, and waits for the value that shows it.
/// Returns the latencies in seconds, from the start of the write to the value's arrival; the writes
/// are 20 ms apart, longer than the default minimum observation interval.
func measureObservationLatency(users: [BenchUser], samples: Int) throws -> [Double] {
    let file = try TemporaryDatabase()
    let database = try SQLiteDatabase(path: file.path)
    try database.write { db in
        try db.migrate(BenchUser.self)
        try db.insert(users)
    }
    let over30 = users.filter { $0.age > 30 }
    return try runBlocking {
        var iterator = database.observe(
            BenchUser.self, where: #Predicate { $0.age > 30 }, sortedBy: [SortDescriptor(\.userName)], limit: 100
        ).makeAsyncIterator()
        _ = try await iterator.next()
        var latencies: [Double] = []
        for sample in 0..<samples {
            // Writes a moment apart, as a user's edits come: back-to-back commits are paced by design
            // (`Configuration.minimumObservationInterval`).
            try await Task.sleep(for: .milliseconds(20))
            var user = over30[sample % over30.count]
            // Decreasing names that sort before every generated one: each sample's user comes first.
            user.userName = String(format: "!%07d", samples - sample)
            let renamed = user
            let start = DispatchTime.now().uptimeNanoseconds
            try await database.write { try $0.upsert(renamed) }
            while let value = try await iterator.next() {
                if value.first?.userName == renamed.userName { break }
            }
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return latencies
    }
}

extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// The sequence as a stream, so that sequences of different types share one array.
    func erasedToStream() -> AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await element in self { continuation.yield(element) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
