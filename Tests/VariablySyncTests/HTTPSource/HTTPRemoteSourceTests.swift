import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySync
import VariablyTestSupport

/// These tests need `python3` (it ships with the toolchain's Debian images; `apt-get install python3`).
@Suite(.timeLimit(.minutes(3)), .enabled(if: PythonScriptProcess.python != nil, "python3 is not installed"))
struct HTTPRemoteSourceTests {
    private func upserts(_ users: [User], base: RecordVersion? = nil, prefix: String = "k") throws -> [RemoteChange<
        Int64
    >] {
        try users.map {
            RemoteChange(
                idempotencyKey: "\(prefix)\($0.id)", id: $0.id,
                operation: .upsert(try JSONEncoder().encode($0, source: .remote)), baseVersion: base)
        }
    }

    @Test func pushesThenPullsPagesOverRealHTTP() async throws {
        let server = try await PythonSyncServer()
        defer { server.stop() }
        let remote = HTTPRemoteSource<User>(baseURL: server.baseURL, timeout: 10)
        let pushed = try await remote.push(try upserts(User.samples(25)))
        #expect(pushed.map(\.outcome) == (1...25).map { .accepted(version: RecordVersion(rawValue: String($0))) })

        var cursor: SyncCursor?
        var users: [User] = []
        var pages = 0
        while true {
            let page = try await remote.pull(after: cursor, limit: 10)
            users += try JSONDecoder(source: .remote).decode([User].self, from: page.records)
            cursor = page.nextCursor
            pages += 1
            if !page.hasMore { break }
        }
        #expect(pages == 3)
        #expect(users == User.samples(25))
        #expect(cursor == "25")
    }

    @Test func reportsTombstonesConflictsRejectionsAndReplays() async throws {
        let server = try await PythonSyncServer()
        defer { server.stop() }
        let remote = HTTPRemoteSource<User>(baseURL: server.baseURL, timeout: 10)
        _ = try await remote.push(try upserts(User.samples(3)))
        let cursor: SyncCursor = "3"
        // The simulated server's versions are its change positions.
        let base = RecordVersion(cursor)
        var edited = User.sample(0)
        edited.age = 77
        _ = try await remote.push(try upserts([edited], prefix: "other"))  // another client, version 4

        var invalid =
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(User.sample(1), source: .remote))
            as! [String: Any]
        invalid.removeValue(forKey: "email_address")
        let results = try await remote.push(
            try upserts([User.sample(0)], base: base, prefix: "mine")
                + [
                    RemoteChange(
                        idempotencyKey: "bad", id: 2,
                        operation: .upsert(try JSONSerialization.data(withJSONObject: invalid)), baseVersion: base),
                    RemoteChange(idempotencyKey: "del", id: 3, operation: .delete, baseVersion: base),
                ])
        guard case .conflict(let record?, let version) = results[0].outcome else {
            Issue.record("expected a conflict, got \(results[0].outcome)")
            return
        }
        #expect(version == "4")
        #expect(try JSONDecoder(source: .remote).decode(User.self, from: record).age == 77)
        #expect(results[1].outcome == .rejected(reason: "email_address is required"))
        #expect(results[2].outcome == .accepted(version: "5"))

        let replay = try await remote.push([
            RemoteChange(idempotencyKey: "del", id: 3, operation: .delete, baseVersion: base)
        ])
        #expect(replay[0].outcome == .accepted(version: "5"))

        let page = try await remote.pull(after: cursor, limit: 100)
        #expect(page.deletedIDs == [3])
        #expect(try JSONDecoder(source: .remote).decode([User].self, from: page.records).map(\.age) == [77])
    }

    @Test func serverErrorsAreTransientAndMissingEndpointsAreNot() async throws {
        let server = try await PythonSyncServer(failingRequests: 1)
        defer { server.stop() }
        let remote = HTTPRemoteSource<User>(baseURL: server.baseURL, timeout: 10)
        do {
            _ = try await remote.pull(after: nil, limit: 10)
            Issue.record("the first request should fail with 503")
        } catch let error as RemoteSourceError {
            #expect(error.isTransient)
            guard case .httpStatus(503, _) = error else { Issue.record("expected 503, got \(error)"); return }
        }
        let page = try await remote.pull(after: nil, limit: 10)
        #expect(page.hasMore == false)

        let wrong = HTTPRemoteSource<User>(baseURL: server.baseURL.appendingPathComponent("nowhere"), timeout: 10)
        do {
            _ = try await wrong.pull(after: nil, limit: 10)
            Issue.record("a missing endpoint should fail")
        } catch let error as RemoteSourceError {
            #expect(!error.isTransient)
        }
    }
}

@Suite(.timeLimit(.minutes(3)), .enabled(if: PythonScriptProcess.python != nil, "python3 is not installed"))
struct HTTPRepositoryTests {
    @Test func repositorySyncsBothWaysOverHTTP() async throws {
        let server = try await PythonSyncServer()
        defer { server.stop() }
        let remote = HTTPRemoteSource<User>(baseURL: server.baseURL, timeout: 10)
        let seeded = try await remote.push(
            try User.samples(35).map {
                RemoteChange(
                    idempotencyKey: "seed\($0.id)", id: $0.id,
                    operation: .upsert(try JSONEncoder().encode($0, source: .remote)), baseVersion: nil)
            })
        #expect(seeded.count == 35)

        let first = try Repository(
            database: .inMemory(), remote: remote, configuration: makeConfiguration(pageSize: 10))
        let report = try await first.sync()
        #expect(report.pages == 4)
        await #expect(try cached(first) == User.samples(35))

        var edited = User.sample(4)
        edited.nickname = "over http"
        try await first.save(edited)
        try await first.delete(id: 9)
        let pushed = try await first.sync()
        #expect(pushed.pushed == 2)

        let second = try Repository(
            database: .inMemory(), remote: remote, configuration: makeConfiguration(pageSize: 10))
        try await second.sync()
        await #expect(try second.fetch(id: 5)?.nickname == "over http")
        await #expect(try second.fetch(id: 9) == nil)
        await #expect(try second.count() == 34)
    }

    @Test(arguments: ["gzip", "gzip-chunked", "deflate"])
    func repositoryReachesTheServersStateOverCompressedAnswers(compression: String) async throws {
        let server = try await PythonSyncServer(compression: compression)
        defer { server.stop() }
        let remote = HTTPRemoteSource<User>(baseURL: server.baseURL, timeout: 10)
        var users = User.samples(120)
        let seeded = try await remote.push(
            try users.map {
                RemoteChange(
                    idempotencyKey: "seed\($0.id)", id: $0.id,
                    operation: .upsert(try JSONEncoder().encode($0, source: .remote)), baseVersion: nil)
            })
        #expect(seeded.count == 120)
        _ = try await remote.push([RemoteChange(idempotencyKey: "gone", id: 7, operation: .delete, baseVersion: nil)])
        users.removeAll { $0.id == 7 }

        let repository = try Repository(
            database: .inMemory(), remote: remote, configuration: makeConfiguration(pageSize: 25))
        let report = try await repository.sync()
        #expect(report.pages == 5)
        await #expect(try cached(repository) == users)
    }
}
