import Foundation
import Testing
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// Several devices, one real Django REST Framework with foreign keys: each device creates (with a
/// client reference), edits, deletes and replies to comments offline; another client edits and
/// soft-deletes comments and whole posts (keeping their comments); syncs run in random order and
/// are killed at random moments (their task cancelled mid-push or mid-pull). After the runs every
/// device holds the server's live comments, the server holds each created comment once, nothing is
/// left unsent and no reference is broken.
///
/// `VARIABLY_DRF_DEVICE_RUNS=500 swift test --filter DRFManyDevicesTests` runs more seeds on one server.
// One test at a time: it starts its own Django, which takes a core for a second or more.
@Suite(.serialized, .timeLimit(.minutes(60)), .enabled(if: DRFServer.isAvailable, DRFServer.unavailableReason))
struct DRFManyDevicesTests {
    static let runs: Int = ProcessInfo.processInfo.environment["VARIABLY_DRF_DEVICE_RUNS"].flatMap(Int.init) ?? 2

    /// One device: its own database, the three repositories and their store.
    struct Device {
        let comments: Repository<DRFComment>
        let store: SyncStore
        let database: SQLiteDatabase

        init(_ server: DRFServer) throws {
            database = try SQLiteDatabase.inMemory()
            (comments, store) = try DRFExactlyOnceTests.comments(server, on: database, clientReference: true)
        }
    }

    /// What the runs found.
    struct Tally {
        var runs = 0
        var duplicates = 0
        var lost = 0
        var orphans = 0
        var diverged = 0
        var unsent = 0
        var killedSyncs = 0
        var failedSyncs = 0

        var line: String {
            "[reliability] DRF devices: \(runs) run(s), \(killedSyncs) syncs killed, \(failedSyncs) failed, "
                + "\(duplicates) duplicates, \(lost) lost, \(orphans) orphans, \(diverged) diverged, \(unsent) left unsent"
        }
    }

    @Test func devicesConvergeOnTheServerWithNothingDoubledOrLost() async throws {
        let server = try await DRFServer.start(lifetime: 3_600)
        defer { server.stop() }
        try server.graph("users", "create", fields: ["id": 1, "name": "ada"])
        var tally = Tally()
        for seed in 0..<UInt64(Self.runs) {
            try await run(seed: seed, on: server, into: &tally)
            print(tally.line)
        }
        #expect(tally.duplicates == 0)
        #expect(tally.lost == 0)
        #expect(tally.orphans == 0)
        #expect(tally.unsent == 0)
        // Open: now and then (1 run in about 15 after the adoption fix) one device keeps a stale copy of a
        // server-side comment and a reply's emptied reference to it; see docs/reliability.md.
        withKnownIssue("a device may keep a stale copy of a comment after killed syncs", isIntermittent: true) {
            #expect(tally.diverged == 0)
        }
    }

    /// One run on posts of its own, so that runs on one server do not meet.
    private func run(seed: UInt64, on server: DRFServer, into tally: inout Tally) async throws {
        var random = SeededRandomNumberGenerator(seed: seed)
        let postIDs = (Int64(1)...3).map { Int64(seed) * 10 + $0 + 100 }
        for id in postIDs { try server.graph("posts", "create", fields: ["id": id, "author_id": 1, "title": "post \(id)"]) }
        let devices = try (0..<3).map { _ in try Device(server) }
        var created: [UUID] = []
        var deletedHere: Set<UUID> = []
        for device in devices { try await device.store.sync() }

        for _ in 0..<5 {
            for device in devices {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let cached = try await device.comments.fetch().filter { postIDs.contains($0.postID) }
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0, 1, 2:
                        // On a post this device still has (one deleted on the server and pulled is gone).
                        let here = try await device.database.read { db in
                            try db.fetch(sql: #"SELECT "id" FROM "drf_posts""#).compactMap { row -> Int64? in
                                if case .integer(let id) = row[0] { id } else { nil }
                            }
                        }
                        guard let post = postIDs.filter(here.contains).randomElement(using: &random) else { continue }
                        let clientID = UUID()
                        let parent = cached.filter { $0.postID == post }.randomElement(using: &random)
                        let replyTo = Bool.random(using: &random) ? parent?.id : nil
                        _ = try await device.comments.create {
                            DRFComment(id: $0, postID: post, replyTo: replyTo, text: "new", clientID: clientID)
                        }
                        created.append(clientID)
                    case 3, 4:
                        if var comment = cached.randomElement(using: &random) {
                            comment.text = "edited \(Int.random(in: 0..<1_000, using: &random))"
                            try await device.comments.save(comment)
                        }
                    default:
                        if let comment = cached.randomElement(using: &random) {
                            try await device.comments.delete(id: comment.id)
                            if let clientID = comment.clientID { deletedHere.insert(clientID) }
                        }
                    }
                }
            }
            // Another client: a comment of its own replying to one, edits, and now and then a soft
            // delete of a comment or of a whole post whose comments the server keeps.
            let live = try server.state().comments.filter { !$0.deleted && postIDs.contains($0.post) }
            if let target = live.randomElement(using: &random) {
                try server.graph(
                    "comments", "create", fields: ["post_id": target.post, "reply_to_id": target.id, "text": "there"])
                try server.graph("comments", "update", id: target.id, fields: ["text": "edited there"])
            }
            if Int.random(in: 0..<4, using: &random) == 0, let target = live.randomElement(using: &random) {
                try server.graph("comments", "soft_delete", id: target.id)
            }
            if Int.random(in: 0..<10, using: &random) == 0 {
                try server.graph("posts", "soft_delete", id: postIDs.randomElement(using: &random)!)
            }
            // Syncs in random order, some killed at a random moment.
            for device in devices.shuffled(using: &random) {
                let task = Task { try await device.store.sync() }
                if Int.random(in: 0..<3, using: &random) == 0 {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0..<40, using: &random)))
                    task.cancel()
                    tally.killedSyncs += 1
                }
                do { _ = try await task.value } catch is CancellationError {} catch {
                    tally.failedSyncs += 1
                    print("sync failed (seed \(seed)): \(error)")
                }
            }
        }

        // Every device syncs until nothing is left to send, twice over so that each sees the others.
        for round in 0..<3 {
            for device in devices {
                do { try await device.store.sync() } catch { if round == 2 { print("last sync failed (seed \(seed)): \(error)") } }
            }
        }
        let state = try server.state()
        let livePosts = Set(state.posts.filter { !$0.deleted }.map(\.id))
        let mine = state.comments.filter { postIDs.contains($0.post) }
        let byClient = Dictionary(grouping: mine.compactMap(\.client_id)) { $0.lowercased() }
        tally.duplicates += byClient.values.filter { $0.count > 1 }.count
        // A create of this run is lost when the server never got it, unless a device deleted it or its
        // post went before it was sent.
        let present = Set(byClient.keys)
        tally.lost += created.filter { clientID in
            !present.contains(clientID.uuidString.lowercased()) && !deletedHere.contains(clientID)
        }.count
        // The server's live comments as devices keep them: those of a deleted post are gone, a reply
        // to a deleted comment is emptied.
        let live = mine.filter { !$0.deleted && livePosts.contains($0.post) }
        let liveIDs = Set(live.map(\.id))
        let expected = live.map { comment in
            "\(comment.id) \(comment.post) \(comment.reply_to.flatMap { liveIDs.contains($0) ? $0 : nil }.map(String.init) ?? "-") \(comment.text)"
        }.sorted()
        for device in devices {
            let cached = try await device.comments.fetch().filter { postIDs.contains($0.postID) }
            let lines = cached.map { "\($0.id) \($0.postID) \($0.replyTo.map(String.init) ?? "-") \($0.text)" }.sorted()
            if lines != expected {
                tally.diverged += 1
                print("diverged (seed \(seed)): only here \(Set(lines).subtracting(expected)), only there \(Set(expected).subtracting(lines))")
            }
            tally.orphans += try await device.database.read { try $0.fetch(sql: "PRAGMA foreign_key_check").count }
            let unsent = try await device.store.unsentChanges()
            if !unsent.isEmpty { print("unsent (seed \(seed)):", unsent) }
            tally.unsent += unsent.count
        }
        tally.runs += 1
    }
}
