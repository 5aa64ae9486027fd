import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// A store's declaration mistakes throw from its initializer: they used to trap.
@Suite struct SyncStoreDeclarationTests {
    private static let baseURL = URL(string: "http://127.0.0.1:9/v1")!

    private func users(on database: SQLiteDatabase) throws -> Repository<User> {
        try Repository(database: database, remote: HTTPRemoteSource<User>(baseURL: Self.baseURL))
    }

    @Test func aStoreOfNoRepositoryIsRefused() throws {
        let error = try #require(throws: DeclarationError.self) { try SyncStore() }
        #expect(error.reason == .noRepositories && error.modelType == "SyncStore")
        #expect("\(error)" == "SyncStore: there is no repository. Fix: give the store at least one repository")
    }

    @Test func repositoriesOnTwoDatabasesAreRefused() throws {
        let users = try users(on: .inMemory())
        let posts = try Repository<Post>(
            database: .inMemory(), remote: HTTPRemoteSource<Post>(baseURL: Self.baseURL))
        let error = try #require(throws: DeclarationError.self) { try SyncStore(users, posts) }
        #expect(error.reason == .repositoriesOnSeveralDatabases)
        #expect(error.fix.contains("the same SQLiteDatabase"))
    }

    @Test(arguments: [
        (ChangeFeedConfiguration(pageSize: 0), "ChangeFeedConfiguration.pageSize"),
        (ChangeFeedConfiguration(batchSize: 0), "ChangeFeedConfiguration.batchSize"),
        (
            ChangeFeedConfiguration(retryPolicy: RetryPolicy(maxAttempts: 0)),
            "ChangeFeedConfiguration.retryPolicy.maxAttempts"
        ),
    ])
    func aFeedConfigurationOutOfRangeNamesTheSetting(configuration: ChangeFeedConfiguration, setting: String) throws {
        let users = try users(on: .inMemory())
        let feed = HTTPRemoteFeed(baseURL: Self.baseURL)
        let error = try #require(throws: DeclarationError.self) {
            try SyncStore(users, feed: feed, configuration: configuration)
        }
        #expect(error.reason == .invalidSetting(setting, requirement: "at least 1"))
        #expect(error.modelType == "SyncStore")
    }

    @Test(arguments: ["tables.records", "tables.{table}.{table}"])
    func aFeedWhoseRecordsPathDoesNotNameTheTableOnceIsRefused(records: DataPath) async throws {
        let users = try users(on: .inMemory())
        let api = HTTPAPI(
            pull: HTTPPullShape(path: "changes", records: records, paging: .token(parameter: "after", next: "next")),
            push: .none)
        let feed = HTTPRemoteFeed(baseURL: Self.baseURL, api: api)
        let error = try #require(throws: DeclarationError.self) { try SyncStore(users, feed: feed) }
        #expect(error.reason == .feedRecordsPathWithoutTable("\(records)"))
        #expect(error.modelType == "HTTPRemoteFeed" && error.fix.contains("{table}"))
        // Used on its own, the feed throws the same error before sending anything.
        await #expect(throws: error) { try await feed.pull(after: nil, limit: 10) }
    }

    @Test func aFeedWithAChangedSinceFilterIsRefused() throws {
        let users = try users(on: .inMemory())
        let api = HTTPAPI(
            pull: HTTPPullShape(
                path: "changes", records: "tables.{table}.records", paging: .token(parameter: "after", next: "next"),
                changedSince: .updatedSince(parameter: "since", field: "updated_at")),
            push: .none)
        let error = try #require(throws: DeclarationError.self) {
            try SyncStore(users, feed: HTTPRemoteFeed(baseURL: Self.baseURL, api: api))
        }
        #expect(error.reason == .feedWithChangedSince)
    }

    @Test func aFeedsTransportSettingsAreCheckedUnderTheFeedsName() throws {
        let users = try users(on: .inMemory())
        let feed = HTTPRemoteFeed(baseURL: Self.baseURL, headers: ["X-Id": "a\r\nb"])
        let error = try #require(throws: DeclarationError.self) { try SyncStore(users, feed: feed) }
        #expect(error.reason == .unsafeHeader("X-Id") && error.modelType == "HTTPRemoteFeed")
    }
}
