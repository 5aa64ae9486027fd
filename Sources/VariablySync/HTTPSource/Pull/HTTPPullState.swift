import Foundation

/// What a pull cursor carries for an ``HTTPPullShape`` whose cursor is not a bare token: where the
/// next page of the running pull is, and the boundary of `changedSince` between syncs. Stored as the
/// JSON text of the cursor, so that it survives restarts with the rest of the sync state.
struct HTTPPullState: Codable, Equatable, Sendable {
    /// The token of the next page (token paging).
    var token: String?
    /// The next page number (page paging).
    var page: Int?
    /// How many records the running pull has received (offset paging).
    var offset: Int?
    /// The next URL (link or body URL paging).
    var next: String?
    /// The `changedSince` value to send, as the JSON text the server wrote (`"2026-…Z"` or `1700000000`).
    var since: String?
    /// The records at exactly `since` that a pull already received: each its id (as JSON text), `#` and a
    /// digest of its bytes, so that the same id written again at `since` is told from a repeat.
    var seen: [String]?
    /// During a pull: the largest `changedSince` value met so far, as JSON text.
    var largest: String?
    /// With a look-back: the records pulled within the look-back window before the largest value,
    /// each as its value's seconds and its id and digest as in ``seen``, newest last; kept from one
    /// pull to the next, so that re-read records that did not change are skipped. At most
    /// ``maximumRecent`` are kept (older ones are applied again if re-read, which is harmless).
    var recent: [RecentRecord]?
    /// During a pull: the records at `largest`, as in ``seen``.
    var atLargest: [String]?
    /// During a pull: `since` was moved to the largest value of the pages received so far (page, offset
    /// and page-number link paging with `changedSince`), so the next request asks for what changed at or
    /// after it, without the look-back, from the first page.
    var isPagingBySince: Bool?
    /// During a pull: the page size the server turned out to serve, smaller than asked (a cap it applies
    /// without saying so), learned by checking a shorter page.
    var servedPageSize: Int?
    /// During a pull: the request checks whether the last page, of this many records, shorter than
    /// asked, ended the list.
    var checkedPageSize: Int?
    /// During a pull: a shorter page was checked (once a pull at most).
    var hasChecked: Bool?
    /// During a pull: the records received since the request's first page (for declared totals).
    var received: Int?
    /// During a pull: the records received, and the declared fields some of them carried.
    var pulled: Int?
    var carried: [String]?
    /// During a pull: the id of its first record (JSON text), to name in errors.
    var firstRecord: String?
    /// During a pull: a digest of the last page's records, to tell a page served again (a proxy's
    /// repeat) from records out of order.
    var lastPage: String?
    /// During a feed's pull: what each table's records showed so far, for the declared fields
    /// verified table by table at its end. (The paging fields above count the whole answer.)
    var feedTables: [String: FeedTable]?

    /// What a feed's pull learned of one table: the records received, the declared fields some of them
    /// carried, and the first one's id (JSON text), to name in errors.
    struct FeedTable: Codable, Equatable, Sendable {
        var pulled = 0
        var carried: [String]?
        var firstRecord: String?
    }

    /// The state a cursor holds; a fresh state for no cursor. A bare token (the package's envelope, or a
    /// token API without `changedSince`) is the cursor's text itself. A cursor `states` made is not
    /// decoded again: its state comes whole, with the look-back window the cursor leaves out.
    init(cursor: SyncCursor?, shape: HTTPPullShape, remembered states: HTTPPullStates? = nil) throws {
        guard let cursor else { return }
        if let state = states?.state(of: cursor) {
            self = state
            return
        }
        if Self.cursorIsToken(shape) {
            token = cursor.rawValue
            return
        }
        do {
            self = try JSONDecoder().decode(HTTPPullState.self, from: Data(cursor.rawValue.utf8))
        } catch {
            throw RemoteSourceError.invalidCursor(cursor)
        }
    }

    init() {}

    /// A record of the look-back window, stored in a cursor as one string, `"<seconds> <id>"`: a cursor
    /// carries up to ``maximumRecent`` of them and is written after every page, where an object per
    /// record cost more than reading the page itself. Cursors that stored objects
    /// (`{"seconds": …, "id": …}`) are still read.
    struct RecentRecord: Codable, Equatable, Sendable {
        /// The `changedSince` value, as seconds (since 1970 for a timestamp).
        var seconds: Double
        /// Its id and digest, as in ``HTTPPullState/seen``.
        var id: String

        init(seconds: Double, id: String) {
            self.seconds = seconds
            self.id = id
        }

        private enum CodingKeys: String, CodingKey {
            case seconds, id
        }

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                guard let space = text.firstIndex(of: " "), let seconds = Double(text[..<space]) else {
                    throw DecodingError.dataCorrupted(
                        DecodingError.Context(
                            codingPath: decoder.codingPath, debugDescription: "not \"<seconds> <id>\": \(text)"))
                }
                self.seconds = seconds
                id = String(text[text.index(after: space)...])
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            seconds = try container.decode(Double.self, forKey: .seconds)
            id = try container.decode(String.self, forKey: .id)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            // `Double`'s description is the shortest text that reads back as the same value.
            try container.encode("\(seconds) \(id)")
        }
    }

    /// The most records of the look-back window a cursor keeps.
    static var maximumRecent: Int { 10_000 }

    /// Whether the shape's cursor is the paging token alone.
    static func cursorIsToken(_ shape: HTTPPullShape) -> Bool {
        if case .token = shape.paging, shape.changedSince == nil { return true }
        return false
    }

    /// The cursor of this state; in the middle of a pull (`endsPull` false), without the look-back
    /// window's records, which `states` keeps with the state (see ``HTTPPullStates``).
    func cursor(shape: HTTPPullShape, endsPull: Bool = true, remembering states: HTTPPullStates? = nil)
        -> SyncCursor
    {
        if Self.cursorIsToken(shape) { return SyncCursor(rawValue: token ?? "") }
        var written = self
        if !endsPull { written.recent = nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(written)) ?? Data("{}".utf8)
        let cursor = SyncCursor(rawValue: String(decoding: data, as: UTF8.self))
        states?.remember(self, as: cursor)
        return cursor
    }
}
