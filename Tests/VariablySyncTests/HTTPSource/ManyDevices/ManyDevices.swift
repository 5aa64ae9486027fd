import Foundation
import Testing
import VariablySQLite
import VariablySync

/// The scenario of the many-devices tests against a real server (``DRFManyDevicesTests``,
/// ``JSONAPIManyDevicesTests``): three devices create comments (each with a client reference), edit,
/// delete and reply offline; another client replies, edits and soft-deletes comments and now and then a
/// whole post; syncs run in random order and a third of them are cancelled at a random moment; midway
/// one device turns concurrency on for its existing cache, and the server's token expires now and then.
/// Each server's test declares its ``Backend``; ``Scenario`` plays the runs and checks them.
enum ManyDevices {
    /// A comment as a device caches it: on a post (or an article), maybe replying to another comment,
    /// with the client reference of a comment the device created.
    protocol DeviceComment: SQLiteStorable, Identifiable, Sendable
    where ID: Codable & Sendable & LosslessStringConvertible {
        /// The id of the post (or article) the comment is on.
        var post: Int64 { get }
        /// The comment it replies to.
        var replyTo: ID? { get }
        var body: String { get set }
        /// The device's reference of a comment it created.
        var clientID: UUID? { get }

        /// Creates a comment with the body `new` in `comments`, as the app does offline.
        static func create(in comments: Repository<Self>, post: Int64, replyTo: ID?, clientID: UUID) async throws
    }

    /// What the scenario needs of one server: its commands, as another client would write, and its
    /// devices.
    protocol Backend {
        associatedtype Comment: DeviceComment

        /// The server's name in the tally's line (`DRF`).
        var name: String { get }
        /// The table of a device's cache that holds the posts the comments are on.
        var postsTable: String { get }

        /// Empties the server's request log.
        func clearLog() throws
        /// Creates post `id`, by the first user.
        func createPost(id: Int64) throws
        /// The token the server accepts now.
        func currentToken() throws -> String
        /// Makes the server's token expire: requests with it are answered `401`.
        func rotateToken() throws
        /// The server's comments and posts, deleted ones included, and the requests it logged.
        func snapshot() throws -> Snapshot
        /// Another client's reply to `target` (the body `there`), and its edit of `target` (`edited there`).
        func replyAndEdit(_ target: ServerComment) throws
        /// Another client's soft delete of comment `id`, which keeps its replies.
        func softDeleteComment(id: Int64) throws
        /// Another client's soft delete of post `id`, which keeps its comments.
        func softDeletePost(id: Int64) throws
        /// A device with `credentials` on `database` (a fresh in-memory one when `nil`), sending its
        /// comments with `If-Match` when `versioned`.
        func makeDevice(credentials: Credentials, versioned: Bool, database: SQLiteDatabase?) throws
            -> Device<Comment>
    }

    /// One device: its own database and credentials, the comments' repository and the store of its tables.
    struct Device<Comment: DeviceComment> {
        let comments: Repository<Comment>
        let store: SyncStore
        let database: SQLiteDatabase
        let credentials: Credentials
        /// Whether its comments are pushed with `If-Match`.
        let isVersioned: Bool
    }

    /// A comment as the server stores it, ids as its foreign keys hold them.
    struct ServerComment {
        var id: Int64
        var post: Int64
        var replyTo: Int64?
        var body: String
        /// The client reference, in lowercase.
        var clientID: String?
        var deleted: Bool
    }

    /// What the server holds and has been asked: every post and comment, deleted ones included.
    struct Snapshot {
        /// Every request since the last ``Backend/clearLog()``, oldest first.
        var requests: [DjangoProcess.Request]
        var posts: [(id: Int64, deleted: Bool)]
        var comments: [ServerComment]
    }

    /// The settings read from the environment under a prefix (`VARIABLY_DRF_DEVICE`): `_RUNS` (2 by
    /// default), `_FIRST_SEED`, so that a long run can be split between processes (each with its own
    /// server), and `_TRACE=1`, which prints every operation and sync of a run.
    struct Settings: Sendable {
        let runs: Int
        let firstSeed: UInt64
        let isTracing: Bool

        init(prefix: String) {
            let environment = ProcessInfo.processInfo.environment
            runs = environment[prefix + "_RUNS"].flatMap(Int.init) ?? 2
            firstSeed = environment[prefix + "_FIRST_SEED"].flatMap(UInt64.init) ?? 0
            isTracing = environment[prefix + "_TRACE"] == "1"
        }

        func trace(_ line: @autoclosure () -> String) { if isTracing { print("trace: " + line()) } }
    }

    /// What the runs found.
    struct Tally {
        /// The server's name in ``line``.
        let name: String
        var runs = 0
        var duplicates = 0
        var lost = 0
        var lostEdits = 0
        var editsChecked = 0
        var lostDeletions = 0
        var orphans = 0
        var diverged = 0
        var unsent = 0
        var killedSyncs = 0
        var failedSyncs = 0
        var conflicts = 0
        var tokensExpired = 0
        var refreshes = 0
        var lookUps = 0

        var line: String {
            "[reliability] \(name) devices: \(runs) run(s), \(killedSyncs) syncs killed, \(failedSyncs) failed, "
                + "\(duplicates) duplicates, \(lost) lost, \(lostEdits) of \(editsChecked) edits lost, \(lostDeletions) deletions lost, \(orphans) orphans, "
                + "\(diverged) diverged, \(unsent) left unsent; \(conflicts) conflicts reported, "
                + "\(tokensExpired) tokens expired (\(refreshes) refreshes), \(lookUps) look-ups by client reference"
        }

        /// Nothing doubled, lost, broken, left unsent or diverged, and some edits checked.
        func expectConvergence(sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(duplicates == 0, sourceLocation: sourceLocation)
            #expect(lost == 0, sourceLocation: sourceLocation)
            #expect(lostEdits == 0, sourceLocation: sourceLocation)
            #expect(lostDeletions == 0, sourceLocation: sourceLocation)
            #expect(editsChecked > 0, sourceLocation: sourceLocation)
            #expect(orphans == 0, sourceLocation: sourceLocation)
            #expect(unsent == 0, sourceLocation: sourceLocation)
            #expect(diverged == 0, sourceLocation: sourceLocation)
        }
    }
}
