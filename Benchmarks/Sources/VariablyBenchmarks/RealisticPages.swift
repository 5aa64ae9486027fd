import Foundation
import VariablySync

/// The records of the realistic groups, written once as a Django REST Framework server writes them
/// (``RealisticUser/serverJSON(isDeleted:)``), cut into pages of `pageSize`, and laid out three ways:
/// DRF's envelope with next links, the package's envelope, and pages handed out in process.
struct RealisticPages {
    let pageSize: Int
    /// Each record's JSON, by index; with `deletesSome`, one in fifty is a tombstone (`"is_deleted": true`).
    let records: [String]
    /// Which records are tombstones.
    let isDeleted: [Bool]
    /// How many records are live: what a first sync inserts.
    let liveCount: Int

    /// The first `count` users, `pageSize` a page; with `deletesSome`, those that
    /// ``RealisticUser/isDeleted(_:)`` names are tombstones.
    init(count: Int, pageSize: Int, deletesSome: Bool = true) {
        self.pageSize = pageSize
        let deleted = (0..<count).map { deletesSome && RealisticUser.isDeleted($0) }
        isDeleted = deleted
        records = (0..<count).map { RealisticUser.make($0).serverJSON(isDeleted: deleted[$0]) }
        liveCount = deleted.filter { !$0 }.count
    }

    /// The indices of each page, in order.
    var pageRanges: [Range<Int>] {
        stride(from: 0, to: records.count, by: pageSize).map { $0..<min($0 + pageSize, records.count) }
    }

    /// The cursor that asks for page `number` ("" for the first).
    private static func cursor(_ number: Int) -> String { number == 0 ? "" : "c\(number)" }

    /// DRF's envelope by `cursor` ("" for the first page), as `CursorPagination` with a count writes
    /// it: `{"count": n, "next": "<origin>users/?cursor=c1&limit=1000", "previous": null, "results": [...]}`;
    /// and by `updated_at__gte`, the pages a pull asks from the last value it received (the records
    /// from that value on, the one at it first), as a first sync under `changedSince` asks them.
    func drfBodies(origin: URL) -> [String: Data] {
        var bodies = cursorBodies(origin: origin)
        let stamps = records.map { record -> String in
            guard let start = record.range(of: #""updated_at":""#)?.upperBound,
                let end = record[start...].firstIndex(of: "\"")
            else { return "" }
            return String(record[start..<end])
        }
        // Each request asks from the last record received: the pages overlap by that one record.
        var start = pageSize - 1
        while start < records.count {
            let range = start..<min(start + pageSize, records.count)
            let results = records[range].joined(separator: ",")
            // The next page is asked from this page's last record, as the link says.
            let next =
                range.upperBound == records.count
                ? "null"
                : "\"\(origin.absoluteString)users/?updated_at__gte="
                    + (stamps[range.upperBound - 1].addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                    + "&limit=\(pageSize)\""
            bodies[stamps[start]] = Data(
                "{\"count\":\(records.count),\"next\":\(next),\"previous\":null,\"results\":[\(results)]}".utf8)
            if range.upperBound == records.count { break }
            start = range.upperBound - 1
        }
        let last = records.count - 1
        bodies[stamps[last]] = Data(
            "{\"count\":\(records.count),\"next\":null,\"previous\":null,\"results\":[\(records[last])]}".utf8)
        return bodies
    }

    /// DRF's envelope by `cursor` ("" for the first page).
    private func cursorBodies(origin: URL) -> [String: Data] {
        let ranges = pageRanges
        var bodies: [String: Data] = [:]
        for (number, range) in ranges.enumerated() {
            func link(_ page: Int) -> String { "\"\(origin.absoluteString)users/?cursor=c\(page)&limit=\(pageSize)\"" }
            let next = number + 1 < ranges.count ? link(number + 1) : "null"
            let previous = number > 0 ? link(number - 1) : "null"
            let results = records[range].joined(separator: ",")
            bodies[Self.cursor(number)] = Data(
                "{\"count\":\(records.count),\"next\":\(next),\"previous\":\(previous),\"results\":[\(results)]}".utf8)
        }
        return bodies
    }

    /// The same records in the package's envelope, by `after` ("" for the first page): the live ones in
    /// `records`, the tombstones' ids in `deleted`.
    func envelopeBodies() -> [String: Data] {
        let pages = inProcessPages()
        return pages.mapValues { page in
            var body = Data(#"{"records":"#.utf8)
            body.append(page.records)
            body.append(
                contentsOf:
                    #","deleted":\#(page.deletedIDs),"next_cursor":"\#(page.nextCursor.rawValue)","has_more":\#(page.hasMore)}"#
                    .utf8)
            return body
        }
    }

    /// The same pages handed out in process, by cursor ("" for the first): the live records as one JSON
    /// array, the tombstones' ids apart.
    func inProcessPages() -> [String: RemotePage<Int64>] {
        let ranges = pageRanges
        var pages: [String: RemotePage<Int64>] = [:]
        for (number, range) in ranges.enumerated() {
            let live = range.filter { !isDeleted[$0] }
            let deleted = range.filter { isDeleted[$0] }.map { Int64($0 + 1) }
            let hasMore = number + 1 < ranges.count
            pages[Self.cursor(number)] = RemotePage(
                records: Data(("[" + live.map { records[$0] }.joined(separator: ",") + "]").utf8), deletedIDs: deleted,
                nextCursor: SyncCursor(rawValue: hasMore ? Self.cursor(number + 1) : "end"), hasMore: hasMore)
        }
        return pages
    }
}

/// A remote source in process for ``RealisticUser``: pulls hand out ``RealisticPages/inProcessPages()``
/// (after the last page, an empty one); pushes are answered as the loopback server answers a `PATCH`,
/// the record as the server writes it with a new `updated_at` (``RealisticUser/patchAnswer(target:body:)``),
/// so that the server's JSON work is in both variants and what differs is HTTP.
struct RealisticInProcessSource: RemoteSource {
    typealias Model = RealisticUser

    let pages: [String: RemotePage<Int64>]

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        if let page = pages[cursor?.rawValue ?? ""] { return page }
        return RemotePage(records: Data("[]".utf8), deletedIDs: [], nextCursor: cursor!, hasMore: false)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        changes.map { change in
            guard case .upsert(let record) = change.operation else {
                return PushResult(
                    idempotencyKey: change.idempotencyKey, id: change.id,
                    outcome: .rejected(reason: "this source takes updates only"))
            }
            let (answer, version) = RealisticUser.patchAnswer(target: "/users/\(change.id)/", body: record)
            return PushResult(
                idempotencyKey: change.idempotencyKey, id: change.id,
                outcome: .accepted(version: RecordVersion(rawValue: version)), serverRecord: answer)
        }
    }
}

extension RealisticUser {
    /// The API of a Django REST Framework server as an app declares it (docs/http.md's recipe): the
    /// list `users/` in `{"count", "next", "previous", "results"}` pages followed by their `next` URL
    /// (`CursorPagination`), `is_deleted` tombstones, changes since the last sync by `updated_at__gte`
    /// (which makes every pull check that records arrive in `updated_at` order), asked from `lookBack`
    /// before the last sync's boundary (the recipe's 5 seconds, for late commits); edits `PATCH`ed to
    /// `users/{id}/` with the changed fields only, `updated_at` (answered by the server) the version.
    static func drfAPI(lookBack: Duration = .seconds(5)) -> HTTPAPI {
        HTTPAPI(
            pull: HTTPPullShape(
                path: "users/", records: "results", paging: .nextURL(at: "next"),
                deletions: .tombstones(flag: "is_deleted"),
                changedSince: .updatedSince(parameter: "updated_at__gte", field: "updated_at", lookBack: lookBack),
                limitParameter: "limit"),
            push: .perRecord(
                HTTPRecordEndpoints(
                    path: "users", trailingSlash: true, update: .patch, body: .changedFields,
                    readOnlyFields: ["id", "created_at", "updated_at", "is_deleted"], versionField: "updated_at")))
    }

    /// What the server answers a `PATCH` of `target` (`/users/42/`) with `body`: the stored user with the
    /// sent `user_name`, `email` and `profile` members applied and `updated_at` now, as the server writes
    /// it; and that `updated_at` as JSON text (the record's version).
    static func patchAnswer(target: String, body: Data) -> (record: Data, version: String) {
        let id = target.split(separator: "/").last.flatMap { Int($0) } ?? 1
        var user = make(id - 1)
        let sent = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        if let name = sent["user_name"] as? String { user.userName = name }
        if let email = sent["email"] as? String { user.email = email }
        if let profile = sent["profile"] as? [String: Any] {
            if let city = profile["city"] as? String { user.city = city }
            if let bio = profile["bio"] as? String { user.bio = bio }
        }
        user.updatedAt = Date()
        return (Data(user.serverJSON(isDeleted: false).utf8), "\"\(drfTimestamp(user.updatedAt))\"")
    }
}
