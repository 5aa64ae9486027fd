import Foundation
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablyTestSupport

/// The repository tests' model: the shared `User`'s fields with an `updatedAt` for `newestWins`, and
/// a SQLite table of its own (the SQLite tests already give `User` a table conformance; one process
/// must not see two).
struct SyncUser: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    var id: Int64
    var userName: String
    var email: String
    var age: Int
    var isActive: Bool
    var score: Double
    var updatedAt: Date
    var tags: [String]
    var nickname: String?

    init(
        id: Int64, userName: String, email: String, age: Int, isActive: Bool, score: Double, updatedAt: Date,
        tags: [String], nickname: String?
    ) {
        self.id = id
        self.userName = userName
        self.email = email
        self.age = age
        self.isActive = isActive
        self.score = score
        self.updatedAt = updatedAt
        self.tags = tags
        self.nickname = nickname
    }

    init(from container: DecodingContainer<SyncUser>) throws {
        id = try container.decode(\.id)
        userName = try container.decode(\.userName)
        email = try container.decode(\.email)
        age = try container.decode(\.age)
        isActive = try container.decode(\.isActive)
        score = try container.decode(\.score)
        updatedAt = try container.decode(\.updatedAt)
        tags = try container.decode(\.tags, default: [])
        nickname = try container.decode(\.nickname)
    }

    static let keySets = KeySets<SyncUser>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.userName, ["user_name", "username"])
            Key(\.email, "email_address")
            Key(\.age, "profile.age")
            Key(\.isActive, "is_active")
            Key(\.score, "profile.score")
            Key(\.updatedAt, "updated_at")
            Key(\.tags, "tags")
            Key(\.nickname, "nick_name")
        }
        KeySet(.local, style: .screamingSnakeCase)
        KeySet(.sqlite, style: .snakeCase)
    }

    static let sqliteTable = SQLiteTable<SyncUser>("sync_users", primaryKey: \.id, [.index(\.userName), .index(\.age)])

    /// The shared `User.sample(index)` as a user.
    static func sample(_ index: Int) -> SyncUser {
        let user = User.sample(index)
        return SyncUser(
            id: user.id, userName: user.userName, email: user.email, age: user.age, isActive: user.isActive,
            score: user.score, updatedAt: user.createdAt, tags: user.tags, nickname: user.nickname)
    }

    static func samples(_ count: Int) -> [SyncUser] {
        (0..<count).map(sample)
    }
}

/// Retries without waiting, so that fault tests run fast and stay deterministic.
let quickRetries = RetryPolicy(maxAttempts: 30, initialDelay: .microseconds(10), maxDelay: .microseconds(50), seed: 9)

func makeConfiguration(
    pageSize: Int = 100, malformed: MalformedRecordPolicy = .skipAndReport,
    conflicts: ConflictPolicy<SyncUser> = .serverWins, retry: RetryPolicy = quickRetries
) -> SyncConfiguration<SyncUser> {
    SyncConfiguration(pageSize: pageSize, retryPolicy: retry, malformedRecords: malformed, conflictPolicy: conflicts)
}

/// A folder that tests remove when done.
func makeTemporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("VariablySync-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// Every user in the cache, by id.
func cached(_ repository: Repository<SyncUser>) async throws -> [SyncUser] {
    try await repository.fetch(sortedBy: [SortDescriptor(\.id)])
}
