import Foundation
import Synchronization
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// Several devices, one real Django REST Framework with foreign keys: each device creates (with a
/// client reference, creates in doubt looked up many a request), edits, deletes and replies to
/// comments offline; another client edits and soft-deletes comments and whole posts (keeping their
/// comments); syncs run in random order and are killed at random moments (their task cancelled
/// mid-push or mid-pull). Midway, one device turns
/// concurrency on for its existing cache (`If-Match` on `updated_at`), and the server's token expires
/// now and then (each device refreshes it on the `401`). After the runs every device holds the
/// server's live comments, the server holds each created comment once, every edit and deletion
/// reached it or was reported as a conflict, nothing is left unsent and no reference is broken.
///
/// `VARIABLY_DRF_DEVICE_RUNS=500 swift test --filter DRFManyDevicesTests` runs more seeds on one server.
// One test at a time: it starts its own Django, which takes a core for a second or more.
@Suite(.serialized, .timeLimit(.minutes(60)), .enabled(if: DRFServer.isAvailable, DRFServer.unavailableReason))
struct DRFManyDevicesTests {
    static let runs: Int = ProcessInfo.processInfo.environment["VARIABLY_DRF_DEVICE_RUNS"].flatMap(Int.init) ?? 2
    /// The first seed, so that a long run can be split between processes (each with its own server).
    /// Prints every operation and sync of a run (`VARIABLY_DRF_DEVICE_TRACE=1`).
    static let isTracing = ProcessInfo.processInfo.environment["VARIABLY_DRF_DEVICE_TRACE"] == "1"
    static func trace(_ line: @autoclosure () -> String) { if isTracing { print("trace: " + line()) } }
    static let firstSeed: UInt64 =
        ProcessInfo.processInfo.environment["VARIABLY_DRF_DEVICE_FIRST_SEED"].flatMap(UInt64.init) ?? 0

    /// One device: its own database and credentials, the three repositories and their store.
    struct Device {
        let comments: Repository<Comment>
        let store: SyncStore
        let database: SQLiteDatabase
        let credentials: Credentials
        /// Whether its comments are pushed with `If-Match`.
        let isVersioned: Bool

        init(
            _ server: DRFServer, credentials: Credentials, versioned: Bool = false, database: SQLiteDatabase? = nil
        ) throws {
            self.database = try database ?? SQLiteDatabase.inMemory()
            self.credentials = credentials
            isVersioned = versioned
            let hook: HTTPRemoteSource<Comment>.RequestHook = { request, attempt in
                if attempt.isRetryAfterUnauthorized { credentials.refresh(ifStill: attempt.rejectedAuthorization) }
                request.setValue(credentials.authorization, forHTTPHeaderField: "Authorization")
            }
            func source<Model: SQLiteStorable & Identifiable & Sendable>(_: Model.Type, _ api: HTTPAPI)
                -> HTTPRemoteSource<Model>
            {
                HTTPRemoteSource<Model>(baseURL: server.baseURL, api: api, timeout: 10) { request, attempt in
                    try await hook(&request, attempt)
                }
            }
            let users = try Repository(
                database: self.database, remote: source(User.self, DRFServer.graphAPI("users")),
                configuration: SyncConfiguration(pageSize: 5, retryPolicy: quickRetries))
            let posts = try Repository(
                database: self.database, remote: source(Post.self, DRFServer.graphAPI("posts")),
                configuration: SyncConfiguration(pageSize: 5, retryPolicy: quickRetries))
            comments = try Repository(
                database: self.database, remote: source(Comment.self, Self.commentsAPI(versioned: versioned)),
                configuration: SyncConfiguration(retryPolicy: quickRetries))
            store = try SyncStore(comments, posts, users)
        }

        /// The comments' API; `versioned`, with `If-Match` on `updated_at`, as the server's mixin takes it.
        static func commentsAPI(versioned: Bool) -> HTTPAPI {
            let api = DRFExactlyOnceTests.commentsAPI(clientReference: true, manyAtOnce: true)
            guard versioned else { return api }
            return HTTPAPI(
                pull: api.pull,
                push: .perRecord(
                    HTTPRecordEndpoints(
                        path: "graph/comments", trailingSlash: true, update: .patch, body: .changedFields,
                        readOnlyFields: ["id", "updated_at", "deleted"], versionField: "updated_at",
                        concurrency: .ifMatch,
                        clientReference: .init(field: "client_id", lookUp: .list(parameter: "client_id__in")))))
        }
    }

    /// A device's token, and the one its auth server would issue now: refreshed on a `401`, once
    /// however many requests meet the expired one.
    final class Credentials: Sendable {
        private let tokens: Mutex<(inUse: String, issued: String, refreshes: Int)>

        init(token: String) { tokens = Mutex((token, token, 0)) }

        var authorization: String { "Token \(tokens.withLock { $0.inUse })" }
        var refreshes: Int { tokens.withLock { $0.refreshes } }

        /// The server's token changed (it expired and a new one was issued).
        func issue(_ token: String) { tokens.withLock { $0.issued = token } }

        func refresh(ifStill rejected: String?) {
            tokens.withLock { tokens in
                guard rejected == nil || rejected == "Token \(tokens.inUse)" else { return }
                tokens.inUse = tokens.issued
                tokens.refreshes += 1
            }
        }
    }

    /// What the runs found.
    struct Tally {
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
            "[reliability] DRF devices: \(runs) run(s), \(killedSyncs) syncs killed, \(failedSyncs) failed, "
                + "\(duplicates) duplicates, \(lost) lost, \(lostEdits) of \(editsChecked) edits lost, \(lostDeletions) deletions lost, \(orphans) orphans, "
                + "\(diverged) diverged, \(unsent) left unsent; \(conflicts) conflicts reported, "
                + "\(tokensExpired) tokens expired (\(refreshes) refreshes), \(lookUps) look-ups by client reference"
        }
    }

    @Test func devicesConvergeOnTheServerWithNothingDoubledOrLost() async throws {
        let server = try await DRFServer.start(lifetime: 3_600)
        defer { server.stop() }
        try server.graph("users", "create", fields: ["id": 1, "user_name": "ada"])
        var tally = Tally()
        for seed in Self.firstSeed..<Self.firstSeed + UInt64(Self.runs) {
            try await run(seed: seed, on: server, into: &tally)
            print(tally.line)
        }
        #expect(tally.duplicates == 0)
        #expect(tally.lost == 0)
        #expect(tally.lostEdits == 0)
        #expect(tally.lostDeletions == 0)
        #expect(tally.editsChecked > 0)
        #expect(tally.orphans == 0)
        #expect(tally.unsent == 0)
        #expect(tally.diverged == 0)
    }

    /// One run on posts of its own, so that runs on one server do not meet.
    private func run(seed: UInt64, on server: DRFServer, into tally: inout Tally) async throws {
        var random = SeededRandomNumberGenerator(seed: seed)
        // This run's requests only: what reached the server, and the look-ups, are counted per run.
        _ = try server.clearLog()
        let postIDs = (Int64(1)...3).map { Int64(seed) * 10 + $0 + 100 }
        for id in postIDs {
            try server.graph("posts", "create", fields: ["id": id, "author_id": 1, "title": "post \(id)"])
        }
        // The server's token now (an earlier run may have seen it expire), which may expire during this
        // run; every device starts with it.
        var token = try server.currentToken()
        var devices = try (0..<3).map { _ in try Device(server, credentials: Credentials(token: token)) }
        // Each comment created on a device, with its post.
        var created: [(clientID: UUID, post: Int64)] = []
        // Each device's last edit of each comment (by client reference, or by id for the server's own),
        // which the server must have received unless the comment went first or a conflict was reported.
        var lastEdits: [Int: [String: (body: String, id: Int64)]] = [:]
        var editCount = 0
        // Each device's deletions, by client reference (or by id, for the server's own comments), with
        // the comment's id there (a provisional id is the device's own, and used again once its record
        // is gone), forgotten when the server won a conflict over that id.
        var deletions: [Int: [String: Int64]] = [:]
        for device in devices { try await device.store.sync() }
        // The server won these: the device's edit or deletion of them is reported, not lost.
        func noteConflicts(_ report: SyncStoreReport?, of index: Int) {
            for conflict in report?.for(Comment.self)?.conflicts ?? [] {
                tally.conflicts += 1
                lastEdits[index] = lastEdits[index]?.filter { $0.value.id != conflict.id }
                // A deletion conflicts only under a server id: one of a provisional id (a create never
                // sent, or one in doubt, looked up by its reference) is settled without one, and its id
                // may be another record's now.
                if conflict.id > 0 { deletions[index] = deletions[index]?.filter { $0.value != conflict.id } }
                Self.trace("device \(index) reports a conflict over \(conflict.id)")
            }
        }

        for round in 0..<5 {
            if round == 2 {
                // One device turns concurrency on for the cache it has: its queued changes stay.
                let old = devices[0]
                devices[0] = try Device(server, credentials: old.credentials, versioned: true, database: old.database)
                Self.trace("device 0 turns If-Match on")
            }
            if Int.random(in: 0..<3, using: &random) == 0 {
                try server.rotateToken()
                token = try server.currentToken()
                for device in devices { device.credentials.issue(token) }
                tally.tokensExpired += 1
                Self.trace("the token expires")
            }
            for (deviceIndex, device) in devices.enumerated() {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let cached = try await device.comments.fetch().filter { postIDs.contains($0.postID) }
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0, 1, 2:
                        // On a post this device still has (one deleted on the server and pulled is gone).
                        let here = try await device.database.read { db in
                            try db.fetch(sql: #"SELECT "id" FROM "posts""#).compactMap { row -> Int64? in
                                if case .integer(let id) = row[0] { id } else { nil }
                            }
                        }
                        guard let post = postIDs.filter(here.contains).randomElement(using: &random) else { continue }
                        let clientID = UUID()
                        let parent = cached.filter { $0.postID == post }.randomElement(using: &random)
                        let replyTo = Bool.random(using: &random) ? parent?.id : nil
                        _ = try await device.comments.create {
                            Comment(id: $0, postID: post, replyTo: replyTo, body: "new", clientID: clientID)
                        }
                        created.append((clientID, post))
                        Self.trace(
                            "device \(deviceIndex) creates \(clientID) on \(post) replying to \(replyTo.map(String.init) ?? "-")"
                        )
                    case 3, 4:
                        if var comment = cached.randomElement(using: &random) {
                            editCount += 1
                            comment.body = "edited \(seed)-\(editCount)"
                            try await device.comments.save(comment)
                            Self.trace(
                                "device \(deviceIndex) edits \(comment.id) (\(comment.clientID?.uuidString ?? "-")): \(comment.body)"
                            )
                            lastEdits[deviceIndex, default: [:]][
                                comment.clientID?.uuidString.lowercased() ?? "id \(comment.id)"] =
                                (comment.body, comment.id)
                        }
                    default:
                        if let comment = cached.randomElement(using: &random) {
                            try await device.comments.delete(id: comment.id)
                            Self.trace(
                                "device \(deviceIndex) deletes \(comment.id) (\(comment.clientID?.uuidString ?? "-"))")
                            deletions[deviceIndex, default: [:]][
                                comment.clientID?.uuidString ?? "id \(comment.id)"] = comment.id
                        }
                    }
                }
            }
            // Another client: a comment of its own replying to one, edits, and now and then a soft
            // delete of a comment or of a whole post whose comments the server keeps.
            let live = try server.state().comments.filter { !$0.deleted && postIDs.contains($0.post_id) }
            if let target = live.randomElement(using: &random) {
                try server.graph(
                    "comments", "create",
                    fields: ["post_id": target.post_id, "reply_to_id": target.id, "body": "there"])
                try server.graph("comments", "update", id: target.id, fields: ["body": "edited there"])
                Self.trace("another client replies to \(target.id) and edits it")
            }
            if Int.random(in: 0..<4, using: &random) == 0, let target = live.randomElement(using: &random) {
                try server.graph("comments", "soft_delete", id: target.id)
                Self.trace("another client deletes \(target.id)")
            }
            if Int.random(in: 0..<10, using: &random) == 0 {
                try server.graph("posts", "soft_delete", id: postIDs.randomElement(using: &random)!)
            }
            // Syncs in random order, some killed at a random moment.
            for device in devices.shuffled(using: &random) {
                let index = devices.firstIndex { $0.database === device.database } ?? -1
                let task = Task {
                    let report = try await device.store.sync()
                    Self.trace("device \(index) synced: \(report)")
                    return report
                }
                if Int.random(in: 0..<3, using: &random) == 0 {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0..<40, using: &random)))
                    task.cancel()
                    Self.trace("device \(index): its sync is cancelled")
                    tally.killedSyncs += 1
                }
                var report: SyncStoreReport?
                do { report = try await task.value } catch is CancellationError {} catch {
                    tally.failedSyncs += 1
                    print("sync failed (seed \(seed)): \(error)")
                }
                // A killed sync's report says what it settled before it stopped.
                if report == nil { report = await device.store.lastReport }
                noteConflicts(report, of: index)
            }
        }

        // Every device syncs until nothing is left to send, twice over so that each sees the others.
        for round in 0..<3 {
            for (index, device) in devices.enumerated() {
                do { noteConflicts(try await device.store.sync(), of: index) } catch {
                    noteConflicts(await device.store.lastReport, of: index)
                    if round == 2 { print("last sync failed (seed \(seed)): \(error)") }
                }
            }
        }
        let state = try server.state()
        let deletedHere = Set(deletions.values.flatMap { $0.keys.compactMap(UUID.init(uuidString:)) })
        let deletedIDs = Set(deletions.values.flatMap { $0.values.filter { $0 > 0 } })
        let livePosts = Set(state.posts.filter { !$0.deleted }.map(\.id))
        let mine = state.comments.filter { postIDs.contains($0.post_id) }
        let byClient = Dictionary(grouping: mine.compactMap(\.client_id)) { $0.lowercased() }
        tally.duplicates += byClient.values.filter { $0.count > 1 }.count
        // A create of this run is lost when the server never got it, unless a device deleted it or its
        // post went before it was sent (the post's deletion, pulled, takes the unsent create with it, as
        // the reference's `.cascade` says, and the report counts it).
        let present = Set(byClient.keys)
        let lost = created.filter { create in
            !present.contains(create.clientID.uuidString.lowercased()) && !deletedHere.contains(create.clientID)
                && livePosts.contains(create.post)
        }
        tally.lost += lost.count
        for create in lost { print("create lost (seed \(seed)): \(create.clientID) on post \(create.post)") }
        // A device's last edit of a comment still live on the server reached it (in a create or an update),
        // whatever the server's copy says now: another client may have written after it.
        let sent = state.requests.filter { $0.method != "GET" && (200..<300).contains($0.status) }.compactMap(\.body)
        for (key, (comment, _)) in lastEdits.values.flatMap({ $0 }) {
            let server = mine.first { key == ($0.client_id?.lowercased() ?? "id \($0.id)") || key == "id \($0.id)" }
            guard let server, !server.deleted, livePosts.contains(server.post_id) else { continue }
            tally.editsChecked += 1
            if !sent.contains(where: { $0.contains("\"\(comment)\"") }) {
                tally.lostEdits += 1
                let writes = state.requests.filter {
                    $0.method != "GET"
                        && ($0.path.contains("/\(server.id)/") || $0.body?.lowercased().contains(key) == true)
                }.map { "\($0.method) \($0.path) \($0.status) \($0.body ?? "")" }
                print(
                    "edit lost (seed \(seed)): \(comment) of \(key), on the server: \(server), its writes:\n  "
                        + writes.joined(separator: "\n  "))
                for device in devices { try await printState(of: device, seed: seed) }
            }
        }
        // A comment deleted on a device is deleted on the server, whether the device knew its server id
        // or only its create (in doubt, maybe).
        let lostDeletions = mine.filter { comment in
            !comment.deleted
                && (deletedIDs.contains(comment.id)
                    || comment.client_id.map { id in
                        deletedHere.contains { $0.uuidString.lowercased() == id.lowercased() }
                    } == true)
        }
        tally.lostDeletions += lostDeletions.count
        for comment in lostDeletions { print("deletion lost (seed \(seed)): \(comment)") }
        // The server's live comments as devices keep them: those of a deleted post are gone, a reply
        // to a deleted comment is emptied.
        let live = mine.filter { !$0.deleted && livePosts.contains($0.post_id) }
        let liveIDs = Set(live.map(\.id))
        let expected = live.map { comment in
            "\(comment.id) \(comment.post_id) \(comment.reply_to.flatMap { liveIDs.contains($0) ? $0 : nil }.map(String.init) ?? "-") \(comment.body)"
        }.sorted()
        for device in devices {
            let cached = try await device.comments.fetch().filter { postIDs.contains($0.postID) }
            let lines = cached.map { "\($0.id) \($0.postID) \($0.replyTo.map(String.init) ?? "-") \($0.body)" }.sorted()
            if lines != expected {
                tally.diverged += 1
                print(
                    "diverged (seed \(seed)): only here \(Set(lines).subtracting(expected)), only there \(Set(expected).subtracting(lines))"
                )
                try await printState(of: device, seed: seed)
            }
            tally.orphans += try await device.database.read { try $0.fetch(sql: "PRAGMA foreign_key_check").count }
            let unsent = try await device.store.unsentChanges()
            if !unsent.isEmpty { print("unsent (seed \(seed)):", unsent) }
            tally.unsent += unsent.count
        }
        // A look-up asks for one create or for many (`client_id__in=`): each request counts once.
        tally.lookUps += state.requests.filter { $0.method == "GET" && $0.path.contains("client_id") }.count
        tally.refreshes += devices.map(\.credentials.refreshes).reduce(0, +)
        tally.runs += 1
    }

    /// What a diverged device holds besides its rows: its queue, its acknowledgements and its parked
    /// records, to tell which path left the stale copy.
    private func printState(of device: Device, seed: UInt64) async throws {
        let lines = try await device.database.read { db in
            var lines: [String] = []
            for (name, sql) in [
                (
                    "queued",
                    #"SELECT "table_name", "record_id", "operation", "sent", "base_cursor" FROM "variably_pending_changes""#
                ),
                ("acknowledged", #"SELECT "table_name", "record_id", "version" FROM "variably_acknowledged_changes""#),
                (
                    "parked",
                    #"SELECT "table_name", "record_id", "state", "parents", "emptied", CAST("record" AS TEXT) FROM "variably_parked_records""#
                ),
            ] {
                for row in try db.fetch(sql: sql) {
                    lines.append("  \(name): " + row.values.map { "\($0)" }.joined(separator: " | "))
                }
            }
            return lines
        }
        print("device state (seed \(seed)):\n" + lines.joined(separator: "\n"))
    }
}
