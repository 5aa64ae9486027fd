import Foundation
import VariablyCodable

/// What turning a page needs of it once its records are read: the state it was asked with, its body
/// (for tokens, next URLs and totals), and what reading learned. One table's page gives it through its
/// ``HTTPPageReader``; a feed's page adds up its tables' readers, so that the paging counts the whole
/// answer, not the last table's part of it.
struct HTTPPageOutline {
    /// The state the page was asked with.
    let state: HTTPPullState
    let body: JSONBody
    let pageURL: URL
    /// The records on the page (every table's, for a feed).
    var count: Int
    /// Records and deletions of the page that are not repeats of records the pull already had.
    var newRecords: Int
    /// A digest of the page's records, to tell a page served again from progress.
    var pageDigest: String?
    /// Whether the page is the last one served again as it was.
    var isRepeat: Bool
    /// The largest `changedSince` value met in the pull so far, the records at it and, with a
    /// look-back, the window (none for a feed, which declares no `changedSince`).
    var largest: JSONValue?
    var atLargest: [String] = []
    var recent: [HTTPPullState.RecentRecord] = []
    /// The declared fields met in the pull so far, and the pull's first record, to name in errors.
    var carried: Set<String> = []
    var firstRecord: String?
}

extension HTTPPageReader {
    /// The outline of the page this reader read, `count` records long.
    func outline(count: Int) -> HTTPPageOutline {
        HTTPPageOutline(
            state: state, body: body, pageURL: pageURL, count: count, newRecords: newRecords, pageDigest: pageDigest,
            isRepeat: isRepeat, largest: largest, atLargest: atLargest, recent: recent, carried: carried,
            firstRecord: firstRecord)
    }
}
