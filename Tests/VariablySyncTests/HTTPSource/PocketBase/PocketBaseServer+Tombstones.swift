import Foundation
import Testing

// MARK: - Deleted comments kept as tombstones, by a hook of PocketBase's own

extension PocketBaseServer {
    /// What a `DELETE` of a comment does.
    enum CommentDeletions: Sendable, CustomTestStringConvertible {
        /// The record is gone, as PocketBase deletes: its replies' `reply_to` emptied, no trace left.
        case forGood
        /// ``tombstoneHook`` answers the `DELETE` as PocketBase does (`204`) but sets the comment's
        /// `deleted` instead, and empties its replies' `reply_to` as a deletion would. The rules keep a
        /// tombstone from being edited (`404`, as for a record gone) or replied to (`400`).
        case keptAsTombstones

        var testDescription: String { self == .forGood ? "deleted for good" : "kept as tombstones" }
    }

    /// The hook's file in `pb_hooks/`.
    static let tombstoneHookFile = "tombstones.pb.js"

    /// The JavaScript hook of docs/http.md's PocketBase recipe ("Deletions"), as written there.
    static let tombstoneHook = """
        onRecordDeleteRequest((e) => {
            e.app.runInTransaction((txApp) => {
                const replies = txApp.findRecordsByFilter("comments", "reply_to = {:id}", "", 0, 0, { id: e.record.id })
                for (const reply of replies) {
                    reply.set("reply_to", "")
                    txApp.save(reply)
                }
                e.record.set("deleted", true)
                txApp.save(e.record)
            })
            return e.noContent(204)
        }, "comments")
        """

    /// The rules of the comments: any signed-in account; with tombstones, no edit of a tombstone and no
    /// reply to one, as for a record gone.
    static func commentRules(_ deletions: CommentDeletions) -> [String: String] {
        guard deletions == .keptAsTombstones else { return [:] }
        return [
            "createRule": #"\#(signedIn) && (reply_to = "" || reply_to.deleted = false)"#,
            "updateRule": "\(signedIn) && deleted = false",
        ]
    }
}
