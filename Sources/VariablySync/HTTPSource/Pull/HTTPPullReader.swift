import Foundation
import VariablyCodable

/// Reads the pages of a pull as an ``HTTPPullShape`` declares them: each page's records and deletions
/// (record by record, through an ``HTTPPageReader``), and the state of the request after it — the
/// paging's next page, "has more" as declared or inferred, the check of a page shorter than asked, the
/// move to a new `changedSince` boundary; at the end of a pull, the declared fields verified and the
/// state the next sync starts from. ``HTTPRemoteSource`` reads its pulls and id listings with one,
/// ``HTTPRemoteFeed`` each table of its pages.
struct HTTPPullReader: Sendable {
    /// The shape of the pull.
    let shape: HTTPPullShape
    /// The states of the source's running pulls, by the cursors made from them; `nil` to keep none.
    var states: HTTPPullStates?

    /// Reads one page: the records (tombstones and records already pulled at the `changedSince`
    /// boundary left out, as the server's bytes), the deletions, and the cursor of what comes next.
    ///
    /// - Parameters:
    ///   - link: The answer's `Link` header.
    ///   - url: The URL the page was asked at, which relative next-page URLs are resolved against.
    ///   - decodeID: Reads an id that stands alone (a tombstone's, a listed deletion) as the model codes
    ///     it (``RecordIDDecoder``); `nil` to read it as `ID` is.
    func page<ID: Decodable & Hashable & Sendable>(
        body data: Data, link: String?, from url: URL, state: HTTPPullState, limit: Int, idType: ID.Type,
        decodeID: ((Data) throws -> ID)? = nil
    ) throws -> RemotePage<ID> {
        let body: JSONBody
        do {
            body = try JSONBody(data)
        } catch {
            throw RemoteSourceError.invalidResponse("the pull response is not a page: \(error)")
        }
        return try page(
            parsed: body, link: link, from: url, state: state, limit: limit, idType: idType, decodeID: decodeID)
    }

    /// Reads one page from a body already walked, as ``page(body:link:from:state:limit:idType:)``
    /// does: a feed reads each table's part of one body.
    func page<ID: Decodable & Hashable & Sendable>(
        parsed body: JSONBody, link: String?, from url: URL, state: HTTPPullState, limit: Int, idType: ID.Type,
        decodeID: ((Data) throws -> ID)? = nil
    ) throws -> RemotePage<ID> {
        do {
            return try readPage(
                body: body, link: link, from: url, state: state, limit: limit,
                decodeID: decodeID ?? { try KeySetJSONDecoder().decode(ID.self, from: $0) })
        } catch let error as JSONBodyError {
            throw RemoteSourceError.invalidResponse("the pull response is not a page: \(error)")
        }
    }

    private func readPage<ID: Decodable & Hashable & Sendable>(
        body: JSONBody, link: String?, from pageURL: URL, state: HTTPPullState, limit: Int,
        decodeID: @escaping (Data) throws -> ID
    ) throws -> RemotePage<ID> {
        let elements: [Range<Int>]
        let recordsRange = try body.range(at: shape.records)
        if let recordsRange, let found = try body.elements(of: recordsRange) {
            elements = found
        } else if shape.recordsMayBeAbsent, recordsRange == nil {
            elements = []
        } else {
            throw RemoteSourceError.invalidResponse("the pull response has no records array at \(shape.records)")
        }
        var reader = try HTTPPageReader<ID>(
            shape: shape, body: body, records: recordsRange, state: state, pageURL: pageURL, decodeID: decodeID)
        if case .ids(let path) = shape.deletions, let range = try body.range(at: path) {
            try reader.readDeletedIDs(in: range, at: path)
        }
        for element in elements { try reader.read(element) }
        let (next, more) = try nextState(after: reader.outline(count: elements.count), link: link, limit: limit)
        if !more {
            try verifyDeclaredFields(
                carried: reader.carried, pulled: (state.pulled ?? 0) + elements.count, example: reader.firstRecord)
        }
        let recordsData =
            reader.changed
            ? body.array(of: reader.kept) : recordsRange.map { body.data($0) } ?? body.array(of: reader.kept)
        var page = RemotePage(
            records: recordsData, deletedIDs: reader.deleted,
            nextCursor: next.cursor(shape: shape, endsPull: !more, remembering: states), hasMore: more)
        // The request that only confirmed the end after a shorter page.
        page.isCheck = state.checkedPageSize != nil && reader.newRecords == 0
        return page
    }

    /// The state of the request after a page, and whether there is one: the paging's next page, "has
    /// more" as declared or inferred, the check of a page shorter than asked, the move to a new boundary
    /// when paging by `changedSince`; at the end of the pull, the state of the next sync (the caller
    /// verifies the declared fields, per table for a feed).
    func nextState(after page: HTTPPageOutline, link: String?, limit: Int) throws -> (HTTPPullState, more: Bool) {
        let state = page.state
        let count = page.count
        var next = state
        var more: Bool
        // Whether `more` says only that the page was full: then a shorter page may be a cap, not the end.
        var inferredFromSize = false
        let served = state.servedPageSize ?? limit
        switch shape.paging {
        case .token(_, let path):
            let token = try page.body.text(at: path)
            more = token != nil && count > 0
            next.token = token ?? state.token
        case .page(_, let first):
            (more, inferredFromSize) = (count >= served, true)
            next.page = (state.page ?? first) + 1
        case .offset:
            (more, inferredFromSize) = (count >= served, true)
            next.offset = (state.offset ?? 0) + count
        case .nextLink:
            let url = link.flatMap(HTTPLinkHeader.next(in:)).map { Self.resolve($0, against: page.pageURL) }
            more = url != nil
            next.next = url
        case .nextURL(let path, _):
            let url = try page.body.text(at: path).map { Self.resolve($0, against: page.pageURL) }
            more = url != nil
            next.next = url
        }
        // A page served again as it was counts nothing new: its cursor stays the one it came with, for
        // the repository's check of a cursor that does not advance.
        let newCount = page.isRepeat ? 0 : count
        next.received = (state.received ?? 0) + newCount
        if let hasMore = shape.hasMore {
            let number: Int? = if case .page(_, let first) = shape.paging { state.page ?? first } else { nil }
            more = try hasMore.more(in: page.body, page: number, received: next.received ?? count)
            inferredFromSize = false
        }
        checkShortPage(&next, more: &more, newRecords: page.newRecords, count: count, isInferred: inferredFromSize)
        if more, let largest = page.largest, let changedSince = shape.changedSince,
            Self.pagesBySince(shape.paging, after: state)
        {
            // A next link is the server's own count of its pages: turning the page by it counts on no size.
            let turnsByLink = next.next != nil
            try moveBoundary(
                &next, to: largest, atLargest: page.atLargest, after: state, isFull: count >= limit || turnsByLink,
                changedSince)
        }
        var recent = page.recent
        if let lookBack = shape.changedSince?.lookBack, lookBack > .zero {
            recent = HTTPPullShape.window(recent, after: page.largest, lookBack: lookBack)
        }
        if more {
            next.lastPage = page.pageDigest
            next.largest = try page.largest.map(HTTPPullShape.text(of:))
            next.atLargest = page.atLargest.isEmpty ? nil : page.atLargest
            next.recent = recent.isEmpty ? nil : recent
            next.pulled = (state.pulled ?? 0) + newCount
            next.carried = page.carried.isEmpty ? nil : page.carried.sorted()
            next.firstRecord = page.firstRecord
            return (next, true)
        }
        let caughtUp = try caughtUp(
            after: state, token: next.token, largest: page.largest, atLargest: page.atLargest, recent: recent)
        return (caughtUp, false)
    }

    /// The check of a page shorter than asked: asks once more from where it ended, or reads the
    /// answer to that check (the end, or the size the server serves).
    private func checkShortPage(
        _ next: inout HTTPPullState, more: inout Bool, newRecords: Int, count: Int, isInferred: Bool
    ) {
        if let checked = next.checkedPageSize {
            // This page checked whether a shorter one had ended the list: nothing new, or fewer records,
            // it had; as many again, the server serves `checked` records a page whatever was asked, and
            // the pull goes on by that size; more, the server serves what was asked (`more` says).
            next.checkedPageSize = nil
            if newRecords > 0, count == checked {
                next.servedPageSize = checked
                more = true
            } else if newRecords == 0 || count < checked {
                more = false
            }
        } else if isInferred, !more, newRecords > 0, next.hasChecked != true {
            // A page shorter than asked ends the list only if the server serves what it is asked for;
            // many cap the page size without saying so. Ask once more, from where this page ended (paged
            // by `changedSince`: from the last value received). A page of records already received, at
            // a boundary asked again, brought nothing to check.
            more = true
            next.checkedPageSize = count
            next.hasChecked = true
        }
    }

    /// Page numbers and offsets shift under a table that changes during the pull: a row moved to an
    /// earlier page by another client's write would be skipped. So the next request asks for what
    /// changed at or after the largest value received instead, from its first page, the records already
    /// received at that value skipped: a next link that counts pages is dropped for that request. Only
    /// a page whose records all share the value asked for turns the page, of the same request (with its
    /// look-back, if it was asked with one): the next page number or offset, or the next link.
    private func moveBoundary(
        _ next: inout HTTPPullState, to largest: JSONValue, atLargest: [String], after state: HTTPPullState,
        isFull: Bool, _ changedSince: HTTPPullShape.ChangedSince
    ) throws {
        let since = state.since.map { try? JSONValue(parsing: $0) } ?? nil
        let lookedBack = changedSince.lookBack > .zero && state.isPagingBySince != true
        let asked = try since.map { lookedBack ? try HTTPPullShape.value($0, lookingBack: changedSince.lookBack) : $0 }
        if let asked, HTTPPullShape.order(largest, asked) ?? 1 <= 0 {
            next.seen = Array(Set(state.seen ?? []).union(atLargest)).sorted()
            if next.checkedPageSize != nil {
                // A shorter page, all at the value asked: the check asks the same page again, where a
                // write made since then lands (it sorts after the records received), not the next one.
                (next.page, next.offset) = (state.page, state.offset)
            } else if !isFull {
                // Full only by the size the server was seen to serve: turning the page would count on
                // that size, which one check cannot prove.
                throw RemoteSourceError.invalidResponse(
                    "more records share \(changedSince.field) = \(largest.jsonString().prefix(40)) than the server "
                        + "serves a page (\(next.servedPageSize ?? 0), fewer than asked): ask for at most that many a "
                        + "page (SyncConfiguration.pageSize), or declare the server's totals (hasMore: .totalPages(at:))"
                )
            }
            return
        }
        next.since = try HTTPPullShape.text(of: largest)
        next.seen = atLargest
        next.page = nil
        next.offset = nil
        next.next = nil
        next.received = nil
        next.isPagingBySince = true
    }

    /// Throws when no record of a whole non-empty pull carried a declared field; `table` names a
    /// feed's table in the error.
    func verifyDeclaredFields(carried: Set<String>, pulled: Int, example: String?, table: String? = nil) throws {
        guard pulled > 0 else { return }
        let path = shape.path.isEmpty ? "/" : shape.path
        for field in shape.declaredFields where !carried.contains(field.name) {
            throw RemoteSourceError.declaredFieldMissing(
                field: field.name, role: field.role, endpoint: table.map { "\(path) (table \($0))" } ?? path,
                record: example, fix: field.fix)
        }
    }

    /// The state of the next sync once a pull caught up: it starts a new pull from the boundary of this
    /// one (`largest`, the records at it and, with a look-back, those of the window).
    private func caughtUp(
        after state: HTTPPullState, token: String?, largest: JSONValue?, atLargest: [String],
        recent: [HTTPPullState.RecentRecord]
    ) throws -> HTTPPullState {
        var caughtUp = HTTPPullState()
        if case .token = shape.paging { caughtUp.token = token }
        guard let lookBack = shape.changedSince?.lookBack else { return caughtUp }
        let since = state.since.map { try? JSONValue(parsing: $0) } ?? nil
        let seen = Set(state.seen ?? [])
        caughtUp.since = try largest.map(HTTPPullShape.text(of:)) ?? state.since
        caughtUp.seen =
            largest == nil ? state.seen : (largest == since ? Array(seen.union(atLargest)).sorted() : atLargest)
        if lookBack > .zero {
            // Every record of the window, the boundary's among them, is skipped when re-read unchanged.
            caughtUp.recent = recent.isEmpty ? nil : recent
            caughtUp.seen = Array(Set(recent.map(\.id)).union(caughtUp.seen ?? [])).sorted()
        }
        return caughtUp
    }

    /// The end of a pull that a `404` for a page after the first ended (``HTTPPullShape/endsOnNotFound``); `nil` when
    /// the pull is on its first page, where a `404` is an error.
    func endOfPull<ID: Hashable & Sendable>(after state: HTTPPullState, idType: ID.Type) throws -> RemotePage<ID>? {
        let isPastFirstPage: Bool
        switch shape.paging {
        case .page: isPastFirstPage = state.page != nil
        case .offset: isPastFirstPage = (state.offset ?? 0) > 0
        case .nextLink, .nextURL: isPastFirstPage = state.next != nil
        case .token: isPastFirstPage = false
        }
        // A request made to check that a shorter page was the last is answered 404 by servers that number
        // their pages (Django REST Framework's "Invalid page."): the list had ended.
        guard (shape.endsOnNotFound && isPastFirstPage) || state.checkedPageSize != nil else { return nil }
        let largest = state.largest.map { try? JSONValue(parsing: $0) } ?? nil
        let next = try caughtUp(
            after: state, token: state.token, largest: largest, atLargest: state.atLargest ?? [],
            recent: state.recent ?? [])
        return RemotePage(
            records: Data("[]".utf8), deletedIDs: [], nextCursor: next.cursor(shape: shape), hasMore: false)
    }

    /// A next-page URL as an absolute URL: a relative one (`?page=2`, `/users?page=2`) is relative to the
    /// page it came with (https://www.rfc-editor.org/rfc/rfc8288#section-3.2,
    /// https://www.rfc-editor.org/rfc/rfc3986#section-5), not to the base URL. Text that is no URL stays
    /// as it is, for ``HTTPPullShape/url(base:state:limit:)`` to reject.
    private static func resolve(_ target: String, against pageURL: URL) -> String {
        URL(string: target, relativeTo: pageURL)?.absoluteString ?? target
    }

    /// Whether the request after `state`'s page, with `changedSince`, asks from the last value received
    /// rather than as the paging says: always for page numbers, offsets and next links that count them;
    /// for keyset links, only after a request that carried no value (a first sync's first page), whose
    /// links carry none either. Many servers list deleted records only to a request that asks for changes
    /// (Django REST Framework's recipe, PocketBase): followed, such links would miss a record deleted
    /// during the pull after it was received, its tombstone behind the boundary the pull ends with.
    /// Tokens are followed as given.
    static func pagesBySince(_ paging: HTTPPullShape.Paging, after state: HTTPPullState) -> Bool {
        switch paging {
        case .page, .offset, .nextLink(.pageNumbers), .nextURL(_, .pageNumbers): true
        case .nextLink(.keyset), .nextURL(_, .keyset): state.since == nil
        case .token: false
        }
    }
}
