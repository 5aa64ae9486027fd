import Foundation
import VariablySQLite
import VariablySync
import VariablySyncTesting

extension ManyDevices {
    /// The runs of one server's test: each seed plays five rounds of offline changes, another client's
    /// writes and syncs (some killed), then lets every device sync until nothing is left to send, and
    /// checks the server and the caches (``check(_:into:)``).
    struct Scenario<Server: Backend> {
        let server: Server
        let settings: Settings

        /// A run of this server's comments.
        typealias Run = ManyDevices.Run<Server.Comment>

        /// Plays the runs of ``settings`` one after the other on the one server, printing the tally after each.
        func runAll() async throws -> Tally {
            var tally = Tally(name: server.name)
            // A few runs more (5 at most) while no edit has been checked yet: a short run's edits may all
            // meet a conflict or a deletion, and a run that checks none proves nothing of them.
            var seed = settings.firstSeed
            while tally.runs < settings.runs || (tally.editsChecked == 0 && tally.runs < settings.runs + 5) {
                try await run(seed: seed, into: &tally)
                print(tally.line)
                seed += 1
            }
            return tally
        }

        /// One run on posts of its own, so that runs on one server do not meet.
        func run(seed: UInt64, into tally: inout Tally) async throws {
            // This run's requests only: what reached the server, and the look-ups, are counted per run.
            try server.clearLog()
            let postIDs = Run.postIDs(seed: seed)
            for id in postIDs { try server.createPost(id: id) }
            // The server's token now (an earlier run may have seen it expire), which may expire during this
            // run; every device starts with it.
            let token = try server.currentToken()
            let devices = try (0..<3).map { _ in
                try server.makeDevice(credentials: Credentials(token: token), versioned: false, database: nil)
            }
            var run = Run(seed: seed, devices: devices)
            for device in devices { try await device.store.sync() }
            for round in 0..<5 {
                try await play(round: round, &run, into: &tally)
            }
            // Every device syncs until nothing is left to send, twice over so that each sees the others.
            for round in 0..<3 {
                for (index, device) in run.devices.enumerated() {
                    do { noteConflicts(try await device.store.sync(), of: index, &run, into: &tally) } catch {
                        noteConflicts(await device.store.lastReport, of: index, &run, into: &tally)
                        if round == 2 { print("last sync failed (seed \(seed)): \(error)") }
                    }
                }
            }
            try await check(run, into: &tally)
        }

        /// One round: maybe a turn to concurrency (round 2) or an expired token, each device's changes,
        /// another client's, and the syncs in random order.
        private func play(round: Int, _ run: inout Run, into tally: inout Tally) async throws {
            if round == 2 {
                // One device turns concurrency on for the cache it has: its queued changes stay.
                let old = run.devices[0]
                run.devices[0] = try server.makeDevice(
                    credentials: old.credentials, versioned: true, database: old.database)
                settings.trace("device 0 turns If-Match on")
            }
            if Int.random(in: 0..<3, using: &run.random) == 0 {
                try server.rotateToken()
                let token = try server.currentToken()
                for device in run.devices { device.credentials.issue(token) }
                tally.tokensExpired += 1
                settings.trace("the token expires")
            }
            for deviceIndex in run.devices.indices {
                for _ in 0..<Int.random(in: 1...3, using: &run.random) {
                    try await change(on: deviceIndex, &run)
                }
            }
            try writeAsAnotherClient(&run)
            try await syncInRandomOrder(&run, into: &tally)
        }

        /// One change of device `index`, offline: a create (maybe a reply), an edit or a deletion.
        private func change(on index: Int, _ run: inout Run) async throws {
            let device = run.devices[index]
            let postIDs = run.postIDs
            let cached = try await device.comments.fetch().filter { postIDs.contains($0.post) }
            switch Int.random(in: 0..<6, using: &run.random) {
            case 0, 1, 2:
                // On a post this device still has (one deleted on the server and pulled is gone).
                let here = try await postsHeld(by: device)
                guard let post = postIDs.filter(here.contains).randomElement(using: &run.random) else { return }
                let clientID = UUID()
                let parent = cached.filter { $0.post == post }.randomElement(using: &run.random)
                let replyTo = Bool.random(using: &run.random) ? parent?.id : nil
                try await Server.Comment.create(in: device.comments, post: post, replyTo: replyTo, clientID: clientID)
                run.created.append((clientID, post))
                settings.trace(
                    "device \(index) creates \(clientID) on \(post) replying to \(replyTo.map { "\($0)" } ?? "-")")
            case 3, 4:
                if var comment = cached.randomElement(using: &run.random) {
                    run.editCount += 1
                    comment.body = "edited \(run.seed)-\(run.editCount)"
                    try await device.comments.save(comment)
                    settings.trace(
                        "device \(index) edits \(comment.id) (\(comment.clientID?.uuidString ?? "-")): \(comment.body)")
                    run.lastEdits[index, default: [:]][Run.editKey(comment)] = (comment.body, "\(comment.id)")
                }
            default:
                if let comment = cached.randomElement(using: &run.random) {
                    try await device.comments.delete(id: comment.id)
                    settings.trace("device \(index) deletes \(comment.id) (\(comment.clientID?.uuidString ?? "-"))")
                    run.deletions[index, default: [:]][Run.deletionKey(comment)] = "\(comment.id)"
                }
            }
        }

        /// The ids of the posts in `device`'s cache.
        private func postsHeld(by device: Device<Server.Comment>) async throws -> [Int64] {
            let table = server.postsTable
            return try await device.database.read { db in
                try db.fetch(sql: #"SELECT "id" FROM "\#(table)""#).compactMap { row -> Int64? in
                    switch row[0] {
                    case .integer(let id): id
                    case .text(let id): Int64(id)
                    default: nil
                    }
                }
            }
        }

        /// Another client: a comment of its own replying to one, edits, and now and then a soft delete
        /// of a comment or of a whole post whose comments the server keeps.
        private func writeAsAnotherClient(_ run: inout Run) throws {
            let postIDs = run.postIDs
            let live = try server.snapshot().comments.filter { !$0.deleted && postIDs.contains($0.post) }
            if let target = live.randomElement(using: &run.random) {
                try server.replyAndEdit(target)
                settings.trace("another client replies to \(target.id) and edits it")
            }
            if Int.random(in: 0..<4, using: &run.random) == 0, let target = live.randomElement(using: &run.random) {
                try server.softDeleteComment(id: target.id)
                settings.trace("another client deletes \(target.id)")
            }
            if Int.random(in: 0..<10, using: &run.random) == 0 {
                try server.softDeletePost(id: postIDs.randomElement(using: &run.random)!)
            }
        }

        /// Syncs in random order, some killed at a random moment.
        private func syncInRandomOrder(_ run: inout Run, into tally: inout Tally) async throws {
            let settings = settings
            for device in run.devices.shuffled(using: &run.random) {
                let index = run.index(of: device)
                let task = Task {
                    let report = try await device.store.sync()
                    settings.trace("device \(index) synced: \(report)")
                    return report
                }
                if Int.random(in: 0..<3, using: &run.random) == 0 {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0..<40, using: &run.random)))
                    task.cancel()
                    settings.trace("device \(index): its sync is cancelled")
                    tally.killedSyncs += 1
                }
                var report: SyncStoreReport?
                do { report = try await task.value } catch is CancellationError {} catch {
                    tally.failedSyncs += 1
                    print("sync failed (seed \(run.seed)): \(error)")
                }
                // A killed sync's report says what it settled before it stopped.
                if report == nil { report = await device.store.lastReport }
                noteConflicts(report, of: index, &run, into: &tally)
            }
        }

        /// The server won these: the device's edit or deletion of them is reported, not lost.
        private func noteConflicts(
            _ report: SyncStoreReport?, of index: Int, _ run: inout Run, into tally: inout Tally
        ) {
            for conflict in report?.for(Server.Comment.self)?.conflicts ?? [] {
                tally.conflicts += 1
                run.forgetConflict(over: "\(conflict.id)", of: index)
                settings.trace("device \(index) reports a conflict over \(conflict.id)")
            }
        }
    }
}
