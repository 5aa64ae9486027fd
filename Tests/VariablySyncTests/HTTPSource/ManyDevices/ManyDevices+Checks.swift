import Foundation
import VariablySQLite
import VariablySync

// MARK: - After a run

extension ManyDevices.Scenario {
    /// Counts what `run` doubled, lost, broke, left unsent or left diverged, and its look-ups.
    func check(_ run: Run, into tally: inout ManyDevices.Tally) async throws {
        let state = try server.snapshot()
        let livePosts = Set(state.posts.filter { !$0.deleted }.map(\.id))
        let mine = state.comments.filter { run.postIDs.contains($0.post) }
        let byClient = Dictionary(grouping: mine.compactMap(\.clientID)) { $0.lowercased() }
        tally.duplicates += byClient.values.filter { $0.count > 1 }.count
        countLostCreates(run, present: Set(byClient.keys), livePosts: livePosts, into: &tally)
        try await countLostEdits(run, state: state, mine: mine, livePosts: livePosts, into: &tally)
        countLostDeletions(run, mine: mine, into: &tally)
        try await compareDevices(run, mine: mine, livePosts: livePosts, into: &tally)
        // A look-up asks for one create or for many (`client_id__in=`): each request counts once.
        tally.lookUps += state.requests.filter { $0.method == "GET" && $0.path.contains("client_id") }.count
        tally.refreshes += run.devices.map(\.credentials.refreshes).reduce(0, +)
        tally.runs += 1
    }

    /// The creates of ``Run/deletions``' client references.
    private func deletedHere(_ run: Run) -> Set<UUID> {
        Set(run.deletions.values.flatMap { $0.keys.compactMap(UUID.init(uuidString:)) })
    }

    /// A create of this run is lost when the server never got it, unless a device deleted it or its
    /// post went before it was sent (the post's deletion, pulled, takes the unsent create with it, as
    /// the reference's `.cascade` says, and the report counts it).
    private func countLostCreates(
        _ run: Run, present: Set<String>, livePosts: Set<Int64>, into tally: inout ManyDevices.Tally
    ) {
        let deletedHere = deletedHere(run)
        let lost = run.created.filter { create in
            !present.contains(create.clientID.uuidString.lowercased()) && !deletedHere.contains(create.clientID)
                && livePosts.contains(create.post)
        }
        tally.lost += lost.count
        for create in lost { print("create lost (seed \(run.seed)): \(create.clientID) on post \(create.post)") }
    }

    /// A device's last edit of a comment still live on the server reached it (in a create or an update),
    /// whatever the server's copy says now: another client may have written after it.
    private func countLostEdits(
        _ run: Run, state: ManyDevices.Snapshot, mine: [ManyDevices.ServerComment], livePosts: Set<Int64>,
        into tally: inout ManyDevices.Tally
    ) async throws {
        let sent = state.requests.filter { $0.method != "GET" && (200..<300).contains($0.status) }.compactMap(\.body)
        for (key, (comment, _)) in run.lastEdits.values.flatMap({ $0 }) {
            let server = mine.first { key == ($0.clientID?.lowercased() ?? "id \($0.id)") || key == "id \($0.id)" }
            guard let server, !server.deleted, livePosts.contains(server.post) else { continue }
            tally.editsChecked += 1
            if !sent.contains(where: { $0.contains("\"\(comment)\"") }) {
                tally.lostEdits += 1
                let writes = state.requests.filter {
                    $0.method != "GET"
                        && (($0.path + "/").contains("/\(server.id)/") || $0.body?.lowercased().contains(key) == true)
                }.map { "\($0.method) \($0.path) \($0.status) \($0.body ?? "")" }
                print(
                    "edit lost (seed \(run.seed)): \(comment) of \(key), on the server: \(server), its writes:\n  "
                        + writes.joined(separator: "\n  "))
                for device in run.devices { try await printState(of: device, seed: run.seed) }
            }
        }
    }

    /// A comment deleted on a device is deleted on the server, whether the device knew its server id
    /// or only its create (in doubt, maybe).
    private func countLostDeletions(
        _ run: Run, mine: [ManyDevices.ServerComment], into tally: inout ManyDevices.Tally
    ) {
        let deletedHere = deletedHere(run)
        let deletedIDs = Set(run.deletions.values.flatMap { $0.values.filter(Run.isServerID) })
        let lostDeletions = mine.filter { comment in
            !comment.deleted
                && (deletedIDs.contains("\(comment.id)")
                    || comment.clientID.map { id in
                        deletedHere.contains { $0.uuidString.lowercased() == id.lowercased() }
                    } == true)
        }
        tally.lostDeletions += lostDeletions.count
        for comment in lostDeletions { print("deletion lost (seed \(run.seed)): \(comment)") }
    }

    /// The server's live comments as devices keep them: those of a deleted post are gone, a reply to a
    /// deleted comment is emptied. Every device holds them, no reference broken, nothing unsent.
    private func compareDevices(
        _ run: Run, mine: [ManyDevices.ServerComment], livePosts: Set<Int64>, into tally: inout ManyDevices.Tally
    ) async throws {
        let live = mine.filter { !$0.deleted && livePosts.contains($0.post) }
        let liveIDs = Set(live.map(\.id))
        let expected = live.map { comment in
            "\(comment.id) \(comment.post) \(comment.replyTo.flatMap { liveIDs.contains($0) ? $0 : nil }.map(String.init) ?? "-") \(comment.body)"
        }.sorted()
        for device in run.devices {
            let cached = try await device.comments.fetch().filter { run.postIDs.contains($0.post) }
            let lines = cached.map { "\($0.id) \($0.post) \($0.replyTo.map { "\($0)" } ?? "-") \($0.body)" }.sorted()
            if lines != expected {
                tally.diverged += 1
                print(
                    "diverged (seed \(run.seed)): only here \(Set(lines).subtracting(expected)), only there \(Set(expected).subtracting(lines))"
                )
                try await printState(of: device, seed: run.seed)
            }
            tally.orphans += try await device.database.read { try $0.fetch(sql: "PRAGMA foreign_key_check").count }
            let unsent = try await device.store.unsentChanges()
            if !unsent.isEmpty { print("unsent (seed \(run.seed)):", unsent) }
            tally.unsent += unsent.count
        }
    }

    /// What a diverged device holds besides its rows: its queue, its acknowledgements and its parked
    /// records, to tell which path left the stale copy.
    func printState(of device: ManyDevices.Device<Server.Comment>, seed: UInt64) async throws {
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
