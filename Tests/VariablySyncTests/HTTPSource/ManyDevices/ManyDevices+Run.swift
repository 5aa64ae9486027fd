import Foundation
import VariablySync
import VariablySyncTesting

extension ManyDevices {
    /// One run's devices and what they did: on posts of its own, so that runs on one server do not meet.
    struct Run<Comment: DeviceComment> {
        let seed: UInt64
        /// The posts of this run.
        let postIDs: [Int64]
        var random: SeededRandomNumberGenerator
        var devices: [Device<Comment>]
        /// Each comment created on a device, with its post.
        var created: [(clientID: UUID, post: Int64)] = []
        /// Each device's last edit of each comment (by client reference, or by id for the server's own),
        /// which the server must have received unless the comment went first or a conflict was reported.
        var lastEdits: [Int: [String: (body: String, id: String)]] = [:]
        var editCount = 0
        /// Each device's deletions, by client reference (or by id, for the server's own comments), with
        /// the comment's id there (a provisional id is the device's own, and used again once its record
        /// is gone), forgotten when the server won a conflict over that id.
        var deletions: [Int: [String: String]] = [:]

        init(seed: UInt64, devices: [Device<Comment>]) {
            self.seed = seed
            postIDs = Self.postIDs(seed: seed)
            random = SeededRandomNumberGenerator(seed: seed)
            self.devices = devices
        }

        /// The posts of the run of `seed`.
        static func postIDs(seed: UInt64) -> [Int64] { (Int64(1)...3).map { Int64(seed) * 10 + $0 + 100 } }

        /// Whether `id` is one the server assigned: a provisional id is negative, or not a number.
        static func isServerID(_ id: String) -> Bool { Int64(id).map { $0 > 0 } ?? false }

        /// The key of a comment's edits: its client reference in lowercase, else its id.
        static func editKey(_ comment: Comment) -> String {
            comment.clientID?.uuidString.lowercased() ?? "id \(comment.id)"
        }

        /// The key of a comment's deletions: its client reference, else its id.
        static func deletionKey(_ comment: Comment) -> String { comment.clientID?.uuidString ?? "id \(comment.id)" }

        /// The server won a conflict over `id`: the device's edit or deletion of it is reported, not lost.
        mutating func forgetConflict(over id: String, of index: Int) {
            lastEdits[index] = lastEdits[index]?.filter { $0.value.id != id }
            // A deletion conflicts only under a server id: one of a provisional id (a create never sent,
            // or one in doubt, looked up by its reference) is settled without one, and its id may be
            // another record's now.
            if Self.isServerID(id) { deletions[index] = deletions[index]?.filter { $0.value != id } }
        }

        /// The index of the device whose database is `device`'s.
        func index(of device: Device<Comment>) -> Int {
            devices.firstIndex { $0.database === device.database } ?? -1
        }
    }
}
