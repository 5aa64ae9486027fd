import Foundation
import VariablyCodable

// MARK: - Requests and pages

extension HTTPPullShape {
    /// The URL of the page that `state` points at.
    func url(base: URL, state: HTTPPullState, limit: Int) throws -> URL {
        if let next = state.next {
            guard let url = URL(string: next, relativeTo: base)?.absoluteURL, url.scheme != nil else {
                throw RemoteSourceError.invalidResponse("the next page's URL \"\(next.prefix(200))\" is not a URL")
            }
            // The request hook and the headers (tokens, API keys) go with every request: a page link to
            // another origin would hand them to a host the app never named, and one from https to http
            // would send them in clear text.
            guard Self.origin(of: url) == Self.origin(of: base) else {
                throw RemoteSourceError.invalidResponse(
                    "the next page's URL \"\(next.prefix(200))\" is not on the origin of \(base.absoluteString.prefix(200)) "
                        + "(scheme, host and port): the source's credentials are sent only there")
            }
            return url
        }
        var parameters = query.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        switch paging {
        case .token(let parameter, _): if let token = state.token { parameters.append((parameter, token)) }
        case .page(let parameter, let first): parameters.append((parameter, String(state.page ?? first)))
        case .offset(let parameter): parameters.append((parameter, String(state.offset ?? 0)))
        case .nextLink, .nextURL: break
        }
        if case .updatedSince(let parameter, _, let lookBack) = changedSince, let since = state.since {
            let value = try JSONValue(parsing: since)
            let asked =
                lookBack > .zero && state.isPagingBySince != true ? try Self.value(value, lookingBack: lookBack) : value
            if let text = JSONBody.text(of: asked) { parameters.append((parameter, text)) }
        }
        if let limitParameter { parameters.append((limitParameter, String(limit))) }
        let collection = path.isEmpty ? base : base.appendingPathComponent(path)
        guard var components = URLComponents(url: collection, resolvingAgainstBaseURL: false) else {
            throw RemoteSourceError.invalidResponse("cannot build a URL from \(base)")
        }
        let encoded = parameters.map {
            HTTPRequestHead.percentEncodedQueryValue($0.0) + "=" + HTTPRequestHead.percentEncodedQueryValue($0.1)
        }
        let existing = components.percentEncodedQuery.map { [$0] } ?? []
        components.percentEncodedQuery =
            (existing + encoded).isEmpty ? nil : (existing + encoded).joined(separator: "&")
        guard let url = components.url else {
            throw RemoteSourceError.invalidResponse("cannot build a URL from \(base)")
        }
        return url
    }

    /// Reads one page: the records (tombstones and records already pulled at the `changedSince`
    /// boundary left out, as the server's bytes), the deletions, and the cursor of what comes next.
    ///
    /// - Parameters:
    ///   - link: The answer's `Link` header.
    ///   - url: The URL the page was asked at, which relative next-page URLs are resolved against.
    func page<ID: Decodable & Hashable & Sendable>(
        body data: Data, link: String?, from url: URL, state: HTTPPullState, limit: Int, idType: ID.Type
    ) throws -> RemotePage<ID> {
        let body: JSONBody
        do {
            body = try JSONBody(data)
        } catch {
            throw RemoteSourceError.invalidResponse("the pull response is not a page: \(error)")
        }
        return try page(parsed: body, link: link, from: url, state: state, limit: limit, idType: idType)
    }

    /// Reads one page from a body already walked, as ``page(body:link:from:state:limit:idType:)``
    /// does: a feed reads each table's part of one body.
    func page<ID: Decodable & Hashable & Sendable>(
        parsed body: JSONBody, link: String?, from url: URL, state: HTTPPullState, limit: Int, idType: ID.Type
    ) throws -> RemotePage<ID> {
        do {
            return try readPage(body: body, link: link, from: url, state: state, limit: limit)
        } catch let error as JSONBodyError {
            throw RemoteSourceError.invalidResponse("the pull response is not a page: \(error)")
        }
    }

    private func readPage<ID: Decodable & Hashable & Sendable>(
        body: JSONBody, link: String?, from pageURL: URL, state: HTTPPullState, limit: Int
    ) throws -> RemotePage<ID> {
        let elements: [Range<Int>]
        let recordsRange = try body.range(at: records)
        if let recordsRange, let found = try body.elements(of: recordsRange) {
            elements = found
        } else if recordsMayBeAbsent, recordsRange == nil {
            elements = []
        } else {
            throw RemoteSourceError.invalidResponse("the pull response has no records array at \(records)")
        }
        let decoder = KeySetJSONDecoder()
        var deleted: [ID] = []
        if case .ids(let path) = deletions, let range = try body.range(at: path) {
            do {
                deleted = try decoder.decode([ID?].self, from: body.data(range)).compactMap { $0 }
            } catch {
                throw RemoteSourceError.invalidResponse("the deletions at \(path) are not an array of ids: \(error)")
            }
        }
        var kept: [Range<Int>] = []
        kept.reserveCapacity(elements.count)
        var changed = false
        var largest = state.largest.map { try? JSONValue(parsing: $0) } ?? nil
        var atLargest = state.atLargest ?? []
        // Each id once: a page that comes again (a flaky proxy, a server stuck on one link) must leave the
        // cursor as it was, or the repository could not tell the repeat from progress.
        var isAtLargest = Set(atLargest)
        let since = state.since.map { try? JSONValue(parsing: $0) } ?? nil
        let seen = Set(state.seen ?? [])
        let lookBack: Duration = if case .updatedSince(_, _, let lookBack) = changedSince { lookBack } else { .zero }
        var recent = state.recent ?? []
        // The pages of a pull come in the declared order of `changedSince`: a record older than one
        // received before, or older than what the request asked for, means the server ignores the
        // ordering or the filter, and rows would be missed for good. (A pull with a look-back asks for
        // less than its boundary, so only the order within the pull is checked there.)
        let askedSince: JSONValue? =
            if let since, lookBack == .zero || state.isPagingBySince == true { since } else { nil }
        // A page served again as it was (a proxy's repeat, a next link that does not advance) is no
        // disorder: the cursor's own checks deal with it.
        let pageDigest = recordsRange.map { Self.digest(of: body.bytes[$0]) }
        let isRepeat = pageDigest != nil && pageDigest == state.lastPage
        for element in elements {
            var isTombstone = false
            if try isDeletion(element, in: body) {
                guard let idRange = try body.member(idKey, of: element),
                    let id = try? decoder.decode(ID.self, from: body.data(idRange))
                else { throw RemoteSourceError.invalidResponse("a tombstone without a valid \"\(idKey)\"") }
                deleted.append(id)
                isTombstone = true
            }
            // A record without a value (missing or `null`) cannot be placed: it leaves the boundary alone.
            if case .updatedSince(_, let field, _) = changedSince, let valueRange = try body.member(field, of: element),
                case let value = try body.value(valueRange), value != .null
            {
                // The id with a digest of the record's bytes: a record written again with the boundary's
                // timestamp (a server clock of coarse resolution, the client's own push) is a change.
                let id = try body.member(idKey, of: element).map {
                    String(decoding: body.data($0), as: UTF8.self) + "#" + Self.digest(of: body.bytes[element])
                }
                if lookBack > .zero, let id, let seconds = Self.seconds(of: value) {
                    recent.append(HTTPPullState.RecentRecord(seconds: seconds, id: id))
                }
                // Pulled at the boundary (or within the look-back window) by the last sync, unchanged: a
                // repeat, not a change.
                if let since, value == since || lookBack > .zero, let id, seen.contains(id) {
                    changed = true
                    continue
                }
                if !isRepeat, let current = largest, let order = Self.order(value, current), order < 0 {
                    throw outOfOrder(value, of: element, in: body, after: current, id: atLargest.first, url: pageURL)
                }
                if !isRepeat, let asked = askedSince, let order = Self.order(value, asked), order < 0 {
                    throw outOfOrder(value, of: element, in: body, after: asked, id: nil, url: pageURL)
                }
                if let current = largest, let order = Self.order(value, current) {
                    if order > 0 {
                        (largest, atLargest) = (value, id.map { [$0] } ?? [])
                        isAtLargest = Set(atLargest)
                    } else if order == 0, let id, isAtLargest.insert(id).inserted {
                        atLargest.append(id)
                    }
                } else if largest == nil {
                    (largest, atLargest) = (value, id.map { [$0] } ?? [])
                    isAtLargest = Set(atLargest)
                }
            }
            if isTombstone { changed = true } else { kept.append(element) }
        }

        var next = state
        var more: Bool
        switch paging {
        case .token(_, let path):
            let token = try body.text(at: path)
            more = token != nil && !elements.isEmpty
            next.token = token ?? state.token
        case .page(_, let first):
            more = elements.count >= limit
            next.page = (state.page ?? first) + 1
        case .offset:
            more = elements.count >= limit
            next.offset = (state.offset ?? 0) + elements.count
        case .nextLink:
            let url = link.flatMap(HTTPLinkHeader.next(in:)).map { Self.resolve($0, against: pageURL) }
            more = url != nil
            next.next = url
        case .nextURL(let path):
            let url = try body.text(at: path).map { Self.resolve($0, against: pageURL) }
            more = url != nil
            next.next = url
        }
        if let hasMore {
            guard let range = try body.range(at: hasMore), case .bool(let flag) = try body.value(range) else {
                throw RemoteSourceError.invalidResponse("the pull response has no Boolean at \(hasMore)")
            }
            more = flag
        }
        if more, let largest, case .updatedSince = changedSince, Self.pagesBySince(paging) {
            // Page numbers and offsets shift under a table that changes during the pull: a row moved
            // to an earlier page by another client's write would be skipped. The next request asks for
            // what changed at or after the largest value received instead, from its first page, the
            // records already received at that value skipped; only a page whose records all share the
            // asked value turns the page.
            if let since, Self.order(largest, since) ?? 1 <= 0 {
                next.seen = Array(Set(state.seen ?? []).union(atLargest)).sorted()
            } else {
                next.since = try Self.text(of: largest)
                next.seen = atLargest
                next.page = nil
                next.offset = nil
            }
            next.isPagingBySince = true
        }
        if lookBack > .zero {
            recent = Self.window(recent, after: largest, lookBack: lookBack)
        }
        if more {
            next.lastPage = pageDigest
            next.largest = try largest.map(Self.text(of:))
            next.atLargest = atLargest.isEmpty ? nil : atLargest
            next.recent = recent.isEmpty ? nil : recent
        } else {
            next = try caughtUp(after: state, token: next.token, largest: largest, atLargest: atLargest, recent: recent)
        }
        let recordsData = changed ? body.array(of: kept) : recordsRange.map { body.data($0) } ?? body.array(of: kept)
        return RemotePage(
            records: recordsData, deletedIDs: deleted, nextCursor: next.cursor(shape: self), hasMore: more)
    }

    /// The state of the next sync once a pull caught up: it starts a new pull from the boundary of this
    /// one (`largest`, the records at it and, with a look-back, those of the window).
    private func caughtUp(
        after state: HTTPPullState, token: String?, largest: JSONValue?, atLargest: [String],
        recent: [HTTPPullState.RecentRecord]
    ) throws -> HTTPPullState {
        var caughtUp = HTTPPullState()
        if case .token = paging { caughtUp.token = token }
        guard case .updatedSince(_, _, let lookBack) = changedSince else { return caughtUp }
        let since = state.since.map { try? JSONValue(parsing: $0) } ?? nil
        let seen = Set(state.seen ?? [])
        caughtUp.since = try largest.map(Self.text(of:)) ?? state.since
        caughtUp.seen =
            largest == nil ? state.seen : (largest == since ? Array(seen.union(atLargest)).sorted() : atLargest)
        if lookBack > .zero {
            // Every record of the window, the boundary's among them, is skipped when re-read unchanged.
            caughtUp.recent = recent.isEmpty ? nil : recent
            caughtUp.seen = Array(Set(recent.map(\.id)).union(caughtUp.seen ?? [])).sorted()
        }
        return caughtUp
    }

    /// The end of a pull that a `404` for a page after the first ended (``endsOnNotFound``); `nil` when
    /// the pull is on its first page, where a `404` is an error.
    func endOfPull<ID: Hashable & Sendable>(after state: HTTPPullState, idType: ID.Type) throws -> RemotePage<ID>? {
        let isPastFirstPage: Bool
        switch paging {
        case .page: isPastFirstPage = state.page != nil
        case .offset: isPastFirstPage = (state.offset ?? 0) > 0
        case .nextLink, .nextURL: isPastFirstPage = state.next != nil
        case .token: isPastFirstPage = false
        }
        guard endsOnNotFound, isPastFirstPage else { return nil }
        let largest = state.largest.map { try? JSONValue(parsing: $0) } ?? nil
        let next = try caughtUp(
            after: state, token: state.token, largest: largest, atLargest: state.atLargest ?? [],
            recent: state.recent ?? [])
        return RemotePage(
            records: Data("[]".utf8), deletedIDs: [], nextCursor: next.cursor(shape: self), hasMore: false)
    }

    /// A next-page URL as an absolute URL: a relative one (`?page=2`, `/users?page=2`) is relative to the
    /// page it came with (https://www.rfc-editor.org/rfc/rfc8288#section-3.2,
    /// https://www.rfc-editor.org/rfc/rfc3986#section-5), not to the base URL. Text that is no URL stays
    /// as it is, for ``url(base:state:limit:)`` to reject.
    private static func resolve(_ target: String, against pageURL: URL) -> String {
        URL(string: target, relativeTo: pageURL)?.absoluteString ?? target
    }

    /// The origin of `url` (https://www.rfc-editor.org/rfc/rfc6454#section-4): its scheme and host,
    /// lowercased, and its port, the scheme's default when none is written.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }

    /// A digest of a record's bytes, stored in the cursor: the same on every run.
    static func digest(of bytes: ArraySlice<UInt8>) -> String {
        bytes.withUnsafeBytes(StableDigest.hex(of:))
    }

    /// `value` as compact JSON text.
    static func text(of value: JSONValue) throws -> String { value.jsonString() }

    /// Whether a pull with `changedSince` pages by it rather than by page numbers or offsets.
    static func pagesBySince(_ paging: Paging) -> Bool {
        switch paging {
        case .page, .offset: true
        case .token, .nextLink, .nextURL: false
        }
    }

    /// The error for a record whose `changedSince` value comes before one the pull has passed: it names
    /// the endpoint, both records and the fix.
    func outOfOrder(
        _ value: JSONValue, of element: Range<Int>, in body: JSONBody, after earlier: JSONValue, id: String?, url: URL
    )
        -> RemoteSourceError
    {
        let field: String = if case .updatedSince(_, let field, _) = changedSince { field } else { "?" }
        let recordID = (try? body.member(idKey, of: element)).flatMap { $0 }.map {
            String(decoding: body.data($0), as: UTF8.self)
        }
        let earlierRecord =
            id.map { "record \($0.split(separator: "#").first.map(String.init) ?? $0) " } ?? "the value asked for, "
        return RemoteSourceError.invalidResponse(
            "\(url.path) serves records out of the declared order of \"\(field)\": record \(recordID ?? "?") "
                + "(\(value.jsonString().prefix(40))) came after \(earlierRecord)(\(earlier.jsonString().prefix(40))). The server "
                + "ignores the ordering or the \(field) filter the pull asks for, and writes made during a pull would be "
                + "missed. Make it sort by \(field), then id (Django REST Framework: OrderingFilter in filter_backends "
                + "with ordering_fields = [\"\(field)\", \"id\"]); see docs/http.md, \"Servers you do not control\"")
    }

    /// The order of two `changedSince` values: numbers by value, strings by their text (ISO 8601 in one
    /// format sorts as text); `nil` for values that do not compare.
    static func order(_ a: JSONValue, _ b: JSONValue) -> Int? {
        switch (a, b) {
        case (.string(let x), .string(let y)):
            // Timestamps by their instant: `…:37:02Z` is before `…:37:02.5Z`, though not as text.
            if x != y, let first = timestamp(x), let second = timestamp(y) {
                return first == second ? 0 : (first < second ? -1 : 1)
            }
            return x == y ? 0 : (x < y ? -1 : 1)
        default:
            guard let x = number(a), let y = number(b) else { return nil }
            return x == y ? 0 : (x < y ? -1 : 1)
        }
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        case .bigNumber(let text): Double(text)
        default: nil
        }
    }
}
