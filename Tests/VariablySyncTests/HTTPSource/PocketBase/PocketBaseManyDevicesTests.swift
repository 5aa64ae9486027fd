import Foundation
import Testing
import VariablyHTTP
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// Several devices, one real PocketBase with relations (``PocketBaseServer``): each device creates (with
/// an id it makes), edits, deletes and replies to comments offline; another client creates replies, edits,
/// and deletes comments and now and then a whole post (PocketBase deletes for good: a post takes its
/// comments, a comment empties its replies' `reply_to`); syncs run in random order and a third of them
/// are cancelled at a random moment. A create the server refuses because its post or the comment it
/// replies to is gone waits as a failed change, which the app reverts. After the runs every device holds
/// the server's comments (deletions found through the id listing), the server holds each created comment
/// once, every single-writer edit arrived, and nothing is left unsent.
///
/// Creates in doubt are looked up by one filter of their ids (the recipe's `lookingUpChosenIDs`); each
/// device's look-ups are counted, and `VARIABLY_PB_SINGLE_LOOKUPS=1` looks them up one `GET` each instead,
/// for comparison. `VARIABLY_PB_DEVICE_TRACE=1` prints each device's creates and deletions, the other
/// client's deletions, the syncs and the refused creates.
///
/// The runs go twice: with comments deleted for good, as PocketBase deletes, and kept as tombstones by the
/// recipe's hook (``PocketBaseServer/CommentDeletions``). Only tombstones let a device whose create is in
/// doubt tell a create never applied from one another device deleted since: deleted for good, such a
/// deletion is undone, and counted apart.
///
/// `VARIABLY_PB_DEVICE_RUNS=300 swift test --filter PocketBaseManyDevicesTests` runs more seeds on one server;
/// `VARIABLY_PB_DEVICE_DELETIONS=tombstones` (or `forGood`) runs one way only.
@Suite(
    .serialized, .timeLimit(.minutes(60)),
    .enabled(if: PocketBaseServer.isAvailable, PocketBaseServer.unavailableReason))
struct PocketBaseManyDevicesTests {
    static let runs: Int = ProcessInfo.processInfo.environment["VARIABLY_PB_DEVICE_RUNS"].flatMap(Int.init) ?? 2
    /// Prints each refused create (`VARIABLY_PB_DEVICE_TRACE=1`).
    static let isTracing = ProcessInfo.processInfo.environment["VARIABLY_PB_DEVICE_TRACE"] == "1"
    static let firstSeed: UInt64 =
        ProcessInfo.processInfo.environment["VARIABLY_PB_DEVICE_FIRST_SEED"].flatMap(UInt64.init) ?? 0
    /// The ways comments are deleted that the runs go through.
    static let deletions: [PocketBaseServer.CommentDeletions] =
        switch ProcessInfo.processInfo.environment["VARIABLY_PB_DEVICE_DELETIONS"] {
        case "tombstones": [.keptAsTombstones]
        case "forGood": [.forGood]
        default: [.keptAsTombstones, .forGood]
        }

    /// One device: its own database and token, its comments and the store of the three tables.
    struct Device {
        let comments: Repository<PocketBaseComment>
        let store: SyncStore
        let database: SQLiteDatabase
        let credentials: Credentials
        /// The device's requests, to count its look-ups of creates in doubt.
        let requests = RequestTally()

        init(_ server: PocketBaseServer) throws {
            database = try SQLiteDatabase.inMemory()
            let credentials = Credentials(baseURL: server.baseURL, token: server.token)
            self.credentials = credentials
            let transport = TallyingTransport(base: HTTPTransports.platformDefault, tally: requests)
            (comments, store) = try server.graph(on: database, transport: transport) { request, attempt in
                if attempt.isRetryAfterUnauthorized {
                    try await credentials.refresh(ifStill: attempt.rejectedAuthorization)
                }
                request.setValue(await credentials.token, forHTTPHeaderField: "Authorization")
            }
        }
    }

    /// A device's member token, signed in again when PocketBase refuses it (its credentials check
    /// answers `401`), once however many requests meet the expired one.
    actor Credentials {
        let baseURL: URL
        private(set) var token: String
        private(set) var refreshes = 0

        init(baseURL: URL, token: String) { (self.baseURL, self.token) = (baseURL, token) }

        func refresh(ifStill rejected: String?) async throws {
            guard rejected == nil || rejected == token else { return }
            token = try await PocketBaseServer.signInMember(at: baseURL)
            refreshes += 1
        }
    }

    /// What the runs found.
    struct Tally {
        var runs = 0
        var creates = 0
        var duplicates = 0
        var lost = 0
        var refused = 0
        var editsChecked = 0
        var lostEdits = 0
        var lostDeletions = 0
        /// Deletions of another device's comment undone by that device's create in doubt, sent again.
        var undoneDeletions = 0
        /// Edits of a comment a conflict was reported over: the server won, and the device heard it.
        var conflictsHeard = 0
        var diverged = 0
        var unsent = 0
        var cancelledSyncs = 0
        var failedSyncs = 0
        var tokensExpired = 0
        var refreshes = 0
        /// Look-ups of comments created in doubt: by one filter of their ids, and one record each.
        var filterLookUps = 0
        var recordLookUps = 0

        var line: String {
            "[reliability] PocketBase devices: \(runs) run(s), \(cancelledSyncs) syncs cancelled, \(failedSyncs) failed, "
                + "\(creates) creates, \(duplicates) duplicates, \(lost) lost, \(refused) refused for a parent gone, "
                + "\(lostEdits) of \(editsChecked) edits lost (\(conflictsHeard) conflicts reported), \(lostDeletions) deletions lost "
                + "(\(undoneDeletions) undone by the creator's create in doubt), \(diverged) diverged, "
                + "\(unsent) left unsent; \(tokensExpired) tokens expired (\(refreshes) refreshes), "
                + "\(filterLookUps) look-ups by a filter of ids, \(recordLookUps) comments read one by one"
        }
    }

    @Test(arguments: deletions)
    func devicesConvergeOnTheServerWithNothingDoubledOrLost(deletions: PocketBaseServer.CommentDeletions)
        async throws
    {
        let server = try await PocketBaseServer.start(lifetime: 3_600, commentDeletions: deletions)
        defer { server.stop() }
        let author = try await server.create("users", fields: ["user_name": "ada"])
        var tally = Tally()
        // A few runs more (5 at most) while no edit has been checked yet: a short run's edits may all
        // meet another writer or a deletion, and a run that checks none proves nothing of them.
        var seed = Self.firstSeed
        while tally.runs < Self.runs || (tally.editsChecked + tally.conflictsHeard == 0 && tally.runs < Self.runs + 5) {
            try await run(seed: seed, on: server, author: author, into: &tally)
            print(tally.line + " (comments \(deletions.testDescription))")
            seed += 1
        }
        #expect(tally.duplicates == 0)
        #expect(tally.lost == 0)
        // An edit is lost when the server has another body and its device heard of no conflict over it. (An
        // adoption's update cut short once lost edits this way: PocketBaseSyncTests pins it.) A create in
        // doubt whose server copy no longer holds what it sent (changed on the server since) is a conflict
        // the policy settles, reported, not lost.
        #expect(tally.lostEdits == 0)
        #expect(tally.editsChecked + tally.conflictsHeard > 0)
        #expect(tally.lostDeletions == 0)
        // Deleted for good, a deletion of a create in doubt is undone: only tombstones tell them apart.
        #expect(tally.undoneDeletions == 0 || deletions == .forGood)
        #expect(tally.unsent == 0)
        #expect(tally.diverged == 0)
    }

    /// What one run did, to check against the server at its end.
    struct Intents {
        /// The bodies of the comments created on devices (each unique), by id.
        var created: [String: String] = [:]
        /// The post of each comment created on a device.
        var createdOn: [String: String] = [:]
        /// The comments deleted on a device.
        var deleted: Set<String> = []
        /// Each comment's last edit, when only one writer (a device) edited it in the run.
        var lastEdit: [String: String] = [:]
        /// Comments edited by more than one writer: last write wins, whichever it was.
        var contested: Set<String> = []
        /// Comments the other client deleted.
        var deletedOnServer: Set<String> = []
        /// Changes the server refused (a create whose post or parent comment was gone) that the app reverted.
        var reverted: Set<String> = []
        /// The devices that reported a conflict over each comment (the server won: the edit is heard of, not
        /// lost).
        var conflicts: [String: Set<Int>] = [:]
        /// The device that created each comment created on a device, and the devices that deleted each.
        var creator: [String: Int] = [:]
        var deleters: [String: Set<Int>] = [:]
    }

    /// Notes the conflicts over comments that `device`'s last sync (finished, failed or cancelled) reported.
    private static func noteConflicts(of device: Device, _ index: Int, seed: UInt64, into intents: inout Intents) async
    {
        for conflict in await device.store.lastReport?.for(PocketBaseComment.self)?.conflicts ?? [] {
            intents.conflicts[conflict.id, default: []].insert(index)
            if isTracing { print("trace \(seed): device \(index) reports a conflict over \(conflict.id)") }
        }
    }

    /// One run on posts of its own, so that runs on one server do not meet.
    private func run(seed: UInt64, on server: PocketBaseServer, author: String, into tally: inout Tally) async throws {
        var random = SeededRandomNumberGenerator(seed: seed)
        var posts: [String] = []
        for index in 0..<3 {
            posts.append(try await server.create("posts", fields: ["author": author, "title": "\(seed)-\(index)"]))
        }
        let devices = try (0..<3).map { _ in try Device(server) }
        var intents = Intents()
        var writers: [String: Set<Int>] = [:]
        for device in devices { try await device.store.sync() }

        for round in 0..<5 {
            if Int.random(in: 0..<3, using: &random) == 0 {
                // Every device's token stops being accepted; each signs in again on the check's 401.
                try await server.expireMemberTokens()
                tally.tokensExpired += 1
            }
            for (deviceIndex, device) in devices.enumerated() {
                for step in 0..<Int.random(in: 1...3, using: &random) {
                    let cached = try await device.comments.fetch().filter { posts.contains($0.postID) }
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0, 1, 2:
                        let here = Set(
                            try await device.database.read { db in
                                try db.fetch(sql: #"SELECT "id" FROM "pocketbase_posts""#).compactMap {
                                    row -> String? in
                                    if case .text(let id) = row[0] { id } else { nil }
                                }
                            })
                        guard let post = posts.filter(here.contains).randomElement(using: &random) else { continue }
                        let parent = cached.filter { $0.postID == post }.randomElement(using: &random)
                        let body = "\(seed)-\(round)-\(deviceIndex)-\(step)"
                        let replyTo = Bool.random(using: &random) ? parent?.id : nil
                        let comment = try await device.comments.create {
                            PocketBaseComment(id: $0, postID: post, replyTo: replyTo, body: body)
                        }
                        intents.created[comment.id] = body
                        intents.creator[comment.id] = deviceIndex
                        intents.createdOn[comment.id] = post
                        if Self.isTracing {
                            print("trace \(seed): device \(deviceIndex) creates \(comment.id) \(body)")
                        }
                    case 3, 4:
                        guard var comment = cached.randomElement(using: &random) else { continue }
                        comment.body = "edited \(seed)-\(round)-\(deviceIndex)-\(step)"
                        try await device.comments.save(comment)
                        writers[comment.id, default: []].insert(deviceIndex)
                        if Self.isTracing { print("trace \(seed): device \(deviceIndex) edits \(comment.id)") }
                        intents.lastEdit[comment.id] = comment.body
                    default:
                        guard let comment = cached.randomElement(using: &random) else { continue }
                        try await device.comments.delete(id: comment.id)
                        intents.deleted.insert(comment.id)
                        intents.deleters[comment.id, default: []].insert(deviceIndex)
                        if Self.isTracing { print("trace \(seed): device \(deviceIndex) deletes \(comment.id)") }
                    }
                }
            }
            intents.deletedOnServer.formUnion(
                try await otherClient(
                    seed: seed, round: round, posts: posts, server: server, random: &random, writers: &writers))
            for index in devices.indices.shuffled(using: &random) {
                let device = devices[index]
                if Self.isTracing { print("trace \(seed): round \(round) device \(index) syncs") }
                let task = Task { try await device.store.sync() }
                if Int.random(in: 0..<3, using: &random) == 0 {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0..<40, using: &random)))
                    task.cancel()
                    tally.cancelledSyncs += 1
                    if Self.isTracing { print("trace \(seed): round \(round) a sync cancelled") }
                }
                do { _ = try await task.value } catch is CancellationError {} catch {
                    tally.failedSyncs += 1
                    print("sync failed (seed \(seed)): \(error)")
                }
                await Self.noteConflicts(of: device, index, seed: seed, into: &intents)
            }
        }
        intents.contested = Set(writers.filter { $0.value.count > 1 }.keys)
        intents.reverted = try await settle(devices, seed: seed, into: &tally, intents: &intents)
        for device in devices {
            tally.refreshes += await device.credentials.refreshes
            let requests = await device.requests.withQueries.filter { $0.hasPrefix("GET /api/collections/comments/") }
            tally.filterLookUps += requests.filter { $0.contains("id='") }.count
            tally.recordLookUps += requests.filter { !$0.contains("?") && !$0.hasSuffix("/records") }.count
        }
        try await check(devices, against: server, posts: posts, intents: intents, seed: seed, into: &tally)
    }

    /// Another client: a reply of its own and an edit, now and then a comment deleted (its replies
    /// emptied) or a whole post (its comments with it). Returns the comments it deleted.
    private func otherClient(
        seed: UInt64, round: Int, posts: [String], server: PocketBaseServer,
        random: inout SeededRandomNumberGenerator, writers: inout [String: Set<Int>]
    ) async throws -> Set<String> {
        let live = try await Self.liveComments(on: server).filter { posts.contains($0.post) }
        if let target = live.randomElement(using: &random) {
            try await server.create(
                "comments", fields: ["post": target.post, "reply_to": target.id, "body": "there \(seed)-\(round)"])
            try await server.update("comments", id: target.id, fields: ["body": "edited there \(seed)-\(round)"])
            writers[target.id, default: []].insert(-1)
        }
        var deleted: Set<String> = []
        if Int.random(in: 0..<4, using: &random) == 0, let target = live.randomElement(using: &random) {
            try await server.delete("comments", id: target.id)
            deleted.insert(target.id)
            if Self.isTracing { print("trace \(seed): the other client deletes \(target.id)") }
        }
        let livePosts = try await server.records("posts", as: ServerPost.self).map(\.id).filter(posts.contains)
        if Int.random(in: 0..<10, using: &random) == 0, let post = livePosts.randomElement(using: &random) {
            try await server.delete("posts", id: post)
            if Self.isTracing { print("trace \(seed): the other client deletes post \(post)") }
        }
        return deleted
    }

    /// Every device syncs until nothing is left to send, reverting the creates the server refused for a
    /// parent it no longer has, then removes what the server deleted. Returns the reverted records.
    private func settle(
        _ devices: [Device], seed: UInt64, into tally: inout Tally, intents: inout Intents
    ) async throws -> Set<String> {
        var reverted: Set<String> = []
        for round in 0..<3 {
            for (index, device) in devices.enumerated() {
                do { try await device.store.sync() } catch {
                    if round == 2 { print("last sync failed (seed \(seed)): \(error)") }
                }
                await Self.noteConflicts(of: device, index, seed: seed, into: &intents)
                for failed in try await device.comments.failedChanges() {
                    tally.refused += 1
                    reverted.insert(failed.id)
                    if Self.isTracing { print("refused (seed \(seed)): \(failed)") }
                    try await device.comments.revert(failedChangeOf: failed.id)
                }
            }
        }
        for device in devices {
            try await device.store.removeDeletedRecords()
            try await device.store.sync()
        }
        return reverted
    }

    private func check(
        _ devices: [Device], against server: PocketBaseServer, posts: [String], intents: Intents, seed: UInt64,
        into tally: inout Tally
    ) async throws {
        let onServer = try await Self.liveComments(on: server).filter { posts.contains($0.post) }
        let livePosts = Set(try await server.records("posts", as: ServerPost.self).map(\.id))
        let byID = Dictionary(uniqueKeysWithValues: onServer.map { ($0.id, $0) })
        let bodies = Dictionary(grouping: onServer.map(\.body)) { $0 }
        tally.creates += intents.created.count
        tally.duplicates += intents.created.values.filter { (bodies[$0]?.count ?? 0) > 1 }.count
        // A create is lost when the server does not have it, unless a device or the other client deleted it,
        // its post went (and it with it), or the server refused it and the app reverted it.
        let lost = intents.created.keys.filter { id in
            byID[id] == nil && !intents.deleted.contains(id) && !intents.deletedOnServer.contains(id)
                && !intents.reverted.contains(id) && livePosts.contains(intents.createdOn[id] ?? "")
        }
        tally.lost += lost.count
        for id in lost { print("create lost (seed \(seed)): \(id) \(intents.created[id] ?? "")") }
        for (id, body) in intents.lastEdit where !intents.contested.contains(id) {
            guard let comment = byID[id], livePosts.contains(comment.post) else { continue }
            // A conflict the server won over it was reported to its writer: heard of, not lost.
            if !(intents.conflicts[id] ?? []).isEmpty {
                tally.conflictsHeard += 1
                continue
            }
            tally.editsChecked += 1
            if comment.body != body {
                tally.lostEdits += 1
                print("edit lost (seed \(seed)): \(id) is \"\(comment.body)\", not \"\(body)\"")
            }
        }
        let undeleted = intents.deleted.filter { byID[$0] != nil }
        // PocketBase keeps no trace of a deletion: a device whose create was in doubt (sent, its answer
        // lost) cannot tell "never applied" from "applied, then deleted by another device", and sends it
        // again; the deletion is undone (docs/http.md, "Deletions"). Counted apart; any other is lost.
        let undone = undeleted.filter { id in
            intents.creator[id].map { !(intents.deleters[id] ?? []).contains($0) } ?? false
        }
        tally.undoneDeletions += undone.count
        tally.lostDeletions += undeleted.count - undone.count
        for id in undeleted {
            // The server's body tells who wrote the record last: a device's create or edit, or the other client.
            print("deletion lost (seed \(seed)): \(id) is \"\(byID[id]?.body ?? "")\" on the server")
        }
        let expected = onServer.map { "\($0.id) \($0.post) \($0.reply_to.isEmpty ? "-" : $0.reply_to) \($0.body)" }
            .sorted()
        for device in devices {
            let cached = try await device.comments.fetch().filter { posts.contains($0.postID) }
            let lines = cached.map { "\($0.id) \($0.postID) \($0.replyTo ?? "-") \($0.body)" }.sorted()
            if lines != expected {
                tally.diverged += 1
                print(
                    "diverged (seed \(seed)): only here \(Set(lines).subtracting(expected)), only there "
                        + "\(Set(expected).subtracting(lines))")
            }
            let unsent = try await device.store.unsentChanges()
            if !unsent.isEmpty { print("unsent (seed \(seed)):", unsent) }
            tally.unsent += unsent.count
        }
        tally.runs += 1
    }
}
