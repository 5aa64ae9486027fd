import Foundation
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablyTestSupport

/// Retries without waiting, so that fault tests run fast and stay deterministic.
let quickRetries = RetryPolicy(maxAttempts: 30, initialDelay: .microseconds(10), maxDelay: .microseconds(50), seed: 9)

func makeConfiguration(
    pageSize: Int = 100, malformed: MalformedRecordPolicy = .skipAndReport,
    conflicts: ConflictPolicy<User> = .serverWins, retry: RetryPolicy = quickRetries
) -> SyncConfiguration<User> {
    SyncConfiguration(pageSize: pageSize, retryPolicy: retry, malformedRecords: malformed, conflictPolicy: conflicts)
}

/// A folder that tests remove when done.
func makeTemporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("VariablySync-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// Every user in the cache, by id.
func cached(_ repository: Repository<User>) async throws -> [User] {
    try await repository.fetch(sortedBy: [SortDescriptor(\.id)])
}
