public import VariablyCodable

/// How an ``HTTPAPI`` is pulled: `GET {base}/{path}` with the paging parameters, answering records
/// (and maybe deletions, a next cursor and "has more") at declared places.
///
/// ```swift
/// // GET /items?cursor=…&limit=500 → {"data": [...], "meta": {"next_cursor": "…", "has_more": true}}
/// HTTPPullShape(
///     path: "items", records: "data", paging: .token(parameter: "cursor", next: "meta.next_cursor"),
///     hasMore: "meta.has_more", deletions: .tombstones(flag: "deleted"))
///
/// // GET /users?updated_since=…&per_page=500, then the `Link: <…>; rel="next"` pages
/// HTTPPullShape(
///     path: "users", paging: .nextLink, changedSince: .updatedSince(parameter: "updated_since", field: "updated_at"),
///     limitParameter: "per_page")
///
/// // Django REST Framework, page numbers: GET /notes/?ordering=updated_at,id&updated_since=…&page=2&page_size=500
/// HTTPPullShape(
///     path: "notes/", records: "results", paging: .page(parameter: "page"), deletions: .tombstones(flag: "deleted"),
///     changedSince: .updatedSince(parameter: "updated_since", field: "updated_at", lookBack: .seconds(5)),
///     limitParameter: "page_size", idKey: "id", query: ["ordering": "updated_at,id"], endsOnNotFound: true)
/// ```
public struct HTTPPullShape: Sendable {
    /// How the next page of one pull is asked for.
    public enum Paging: Sendable {
        /// An opaque token from the body (at `next`), sent back as the query parameter `parameter`. The
        /// token of the last page is the cursor of the next sync.
        case token(parameter: String, next: DataPath)
        /// A page number, from `first` up, sent as `parameter`.
        case page(parameter: String, first: Int = 1)
        /// The number of records already received, sent as `parameter`.
        case offset(parameter: String)
        /// The URL of the `Link: <…>; rel="next"` header (RFC 8288). With ``ChangedSince``, `links` says
        /// whether it may be requested as it is (``NextLinks/keyset``) or is replaced by a request from
        /// the last value received (``NextLinks/pageNumbers``, the default); without it, it is requested
        /// as it is.
        ///
        /// ```swift
        /// HTTPPullShape(paging: .nextLink(links: .keyset), changedSince: .updatedSince(parameter: "since", field: "updated_at"))
        /// ```
        case nextLink(links: NextLinks = .pageNumbers)
        /// A URL in the body (at the path), as for ``nextLink(links:)``.
        ///
        /// ```swift
        /// // Django REST Framework's CursorPagination: {"next": "https://…/users/?cursor=cD0yMDI2…", "results": [...]}
        /// HTTPPullShape(records: "results", paging: .nextURL(at: "next", links: .keyset))
        /// ```
        case nextURL(at: DataPath, links: NextLinks = .pageNumbers)

        /// The `Link: <…>; rel="next"` header's URL, its links taken as ``NextLinks/pageNumbers``: the
        /// same as `.nextLink(links: .pageNumbers)`.
        ///
        /// ```swift
        /// HTTPPullShape(path: "users", paging: .nextLink)
        /// ```
        public static var nextLink: Paging { .nextLink(links: .pageNumbers) }
    }

    /// What the next links of ``Paging/nextLink(links:)`` and ``Paging/nextURL(at:links:)`` point at,
    /// which decides whether a pull with ``ChangedSince`` may follow them.
    ///
    /// A link that counts positions (`?page=3`, `?offset=1000`) sees a moving table: a record that
    /// another client edits during the pull moves to the end, every record after it shifts one place
    /// towards the start, and the one that shifts onto a page already fetched is skipped, for good with
    /// `changedSince` (its value is behind the boundary). A keyset link (`?cursor=…` naming the last
    /// record received) does not shift.
    ///
    /// ```swift
    /// // kaminari, api-pagination, DRF's PageNumberPagination: Link: <…/users?page=2>; rel="next"
    /// HTTPPullShape(path: "users", paging: .nextLink(links: .pageNumbers), changedSince: .updatedSince(parameter: "since", field: "updated_at"))
    /// // DRF's CursorPagination: {"next": "…/users/?cursor=cD0yMDI2…"}
    /// HTTPPullShape(path: "users/", records: "results", paging: .nextURL(at: "next", links: .keyset))
    /// ```
    public enum NextLinks: Sendable {
        /// Page numbers or offsets, or links of a kind not declared: with ``ChangedSince``, a next link is
        /// replaced by a request for what changed at or after the last value received, from its first
        /// page (as ``Paging/page(parameter:first:)`` and ``Paging/offset(parameter:)`` are), so that no
        /// record is lost to a table that changes during the pull; the link is followed only when every
        /// record of the page has the value asked for. Safe for any link, at the cost of requests that
        /// ask again for the records at the boundary.
        case pageNumbers
        /// Keyset links: the link names the last record received (an opaque cursor, as Django REST
        /// Framework's CursorPagination writes), and a record written during the pull sorts after it, as
        /// it does when the ordering field moves with every write (a timestamp that two writes never
        /// share, or a sequence). Followed as given, but for the first page of a first sync: asked without
        /// a `changedSince` value, its links carry none either, and many servers list deleted records only
        /// to a request that carries one, so the request after it asks from the last value received.
        case keyset
    }

    /// How a sync asks only for what changed since the last one.
    public enum ChangedSince: Sendable {
        /// `parameter` carries the largest value of the records' `field` (a timestamp as ISO 8601 text
        /// in one format, or a number) seen by the last pull; the server answers the records whose
        /// `field` is greater **or equal**. Records at exactly that value that the last pull already
        /// received (the same id with the same bytes) are skipped: records sharing a timestamp are
        /// neither missed nor pulled again and again, and a record written again within the same
        /// timestamp (a clock of coarse resolution) is pulled.
        ///
        /// `field` is a path in each record, written as in key sets: `"updated_at"` at the top, or
        /// `"attributes.updated_at"` in the record's `attributes` object (JSON:API).
        ///
        /// `lookBack` asks from that far before the value instead (a number is taken as seconds), so
        /// that a write stamped before the last pull's boundary but committed after it (a long
        /// transaction) is still pulled; the records of that window the last pull already received,
        /// unchanged, are skipped. The value sent is written as the server writes its own (the same
        /// separator, fraction digits and zone), so a server that compares text reads it right. A write
        /// that commits more than `lookBack` late is missed until a ``Repository/resync(allowingDeletionOf:)``: see
        /// docs/http.md, "Late commits".
        case updatedSince(parameter: String, field: String, lookBack: Duration = .zero)
        /// As ``updatedSince(parameter:field:lookBack:)``, for APIs that filter by an expression:
        /// `parameter` carries `expression` with `{value}` replaced by the value, quoted as `quoting`
        /// says. A value the quoting cannot carry is an error, never spliced into the expression.
        /// `field` is a path in each record, as for ``updatedSince(parameter:field:lookBack:)``.
        ///
        /// ```swift
        /// // PocketBase: ?filter=(updated>='2026-11-27 12:55:36.000Z')
        /// .filter(parameter: "filter", expression: "(updated>={value})", quoting: .singleQuotes, field: "updated")
        /// // PostgREST, Supabase: ?updated_at=gte.2026-11-27T12:55:36.123456Z
        /// .filter(parameter: "updated_at", expression: "gte.{value}", field: "updated_at")
        /// // OData: ?$filter=updated gt '2026-11-27T12:55:36Z'
        /// .filter(parameter: "$filter", expression: "updated ge {value}", quoting: .doubledSingleQuotes, field: "updated")
        /// ```
        case filter(
            parameter: String, expression: String, quoting: FilterQuoting = .none, field: String,
            lookBack: Duration = .zero)
    }

    /// How a value is written into a filter expression (``ChangedSince/filter(parameter:expression:quoting:field:lookBack:)``).
    public enum FilterQuoting: Sendable {
        /// As it is: only letters, digits, spaces and `-+:._` are accepted (timestamps and numbers).
        case none
        /// Between `'`, a `'` or `\` inside escaped with `\` (PocketBase, JavaScript-like filters).
        case singleQuotes
        /// Between `'`, a `'` inside doubled (SQL, OData).
        case doubledSingleQuotes
    }

    /// Where deleted records are listed.
    public enum Deletions: Sendable {
        /// Nowhere: only ``Repository/resync(allowingDeletionOf:)`` removes records the server no longer has.
        case none
        /// An array of ids at a path of the body.
        case ids(at: DataPath)
        /// Among the records: objects whose `flag` key is `true` are deletions of the record their
        /// `idKey` names (`false`, `null` or no key: live). A pull in which no record carries the key
        /// stops with ``RemoteSourceError/declaredFieldMissing(field:role:endpoint:record:fix:)`` (the
        /// records mark deletions some other way), unless `absentMeansLive` says the server writes the
        /// key on deleted records only.
        ///
        /// `flag`, like every name of the shape, is a path in the record written as in key sets:
        /// `.tombstones(flag: "attributes.deleted")` reads the `deleted` of the record's `attributes`.
        case tombstones(flag: String, absentMeansLive: Bool = false)
        /// Among the records: objects whose `timestamp` key holds a value are deletions, as soft-delete
        /// libraries mark them: `deleted_at`, `null` (or no key) while live, as Rails' paranoia and
        /// Django's safedelete write it. `timestamp` is a path in the record (`"attributes.deleted_at"`).
        ///
        /// A pull in which no record carries the key is an error, as for ``tombstones(flag:absentMeansLive:)``.
        ///
        /// ```swift
        /// HTTPPullShape(paging: .page(parameter: "page"), deletions: .softDeleted(at: "deleted_at"))
        /// ```
        case softDeleted(at: String, absentMeansLive: Bool = false)
        /// Among the records: objects whose `field` key holds the text `value` are deletions
        /// (`"status": "deleted"`). `field` is a path in the record (`"attributes.status"`).
        ///
        /// ```swift
        /// HTTPPullShape(paging: .page(parameter: "page"), deletions: .status(field: "status", deleted: "deleted"))
        /// ```
        case status(field: String, deleted: String)
    }

    /// The path under the base URL; `""` for the base URL itself.
    package var path: String
    /// Where the records array is; `DataPath.root` when the body is the array.
    package var records: DataPath
    /// How the pages of one pull follow each other.
    package var paging: Paging
    /// How a page says whether more follow; `nil` to infer it: a next token, URL or link is present,
    /// or, for page and offset paging, the page was full (a shorter page is checked by asking once more).
    package var hasMore: HasMore?
    /// Where deleted records are listed.
    package var deletions: Deletions
    /// How a sync asks for changes only; `nil` when the paging cursor itself resumes (a token) or when
    /// the API has no such filter (each sync then pulls everything).
    package var changedSince: ChangedSince?
    /// The query parameter for the page size; `nil` when the API takes none.
    package var limitParameter: String?
    /// The path of a record's id in its JSON (dotted as in key sets), for tombstones and the
    /// `changedSince` tie-breaker.
    package var idKey: String
    /// ``idKey`` as a path in each record (`"id"`, or `"attributes.uuid"` for an id nested in it).
    var idPath: DataPath { DataPath(dotted: idKey) }
    /// Query parameters every page request carries, e.g. an ordering.
    package var query: [String: String]
    /// Whether a `404` for a page after the first ends the pull.
    package var endsOnNotFound: Bool
    /// Whether a page without records at ``records`` has none (a feed's table with deletions only, or
    /// none at all), rather than being an error.
    var recordsMayBeAbsent = false

    /// A pull shape; only the paging is required; the records are the whole body (`DataPath.root`) unless placed.
    ///
    /// ```swift
    /// HTTPPullShape(records: "data", paging: .page(parameter: "page"))
    /// ```
    ///
    /// - Parameters:
    ///   - path: The path under the base URL; `""` for the base URL itself.
    ///   - records: Where the records array is; `DataPath.root` when the body is the array.
    ///   - paging: How the pages of one pull follow each other.
    ///   - hasMore: How a page says whether more follow: a Boolean at a path (a string literal), or the
    ///     totals the server declares (``HasMore/totalPages(at:)``, ``HasMore/totalItems(at:)``); `nil` to
    ///     infer it: a next token, URL or link is present, or, for page and offset paging, the page was
    ///     full. A page shorter than asked is then checked by asking once more, since many servers cap
    ///     the page size without saying so.
    ///   - deletions: Where deleted records are listed; a marker among the records is named by its path
    ///     in the record (`"attributes.deleted"`).
    ///   - changedSince: How a sync asks for changes only, its field named by its path in the record
    ///     (`"attributes.updated_at"`); `nil` when the paging cursor itself resumes (a token) or
    ///     when the API has no such filter (each sync then pulls everything).
    ///   - limitParameter: The query parameter for the page size; `nil` when the API takes none.
    ///   - idKey: The path of a record's id in its JSON, for tombstones and the `changedSince`
    ///     tie-breaker: `"id"`, or a dotted path as in key sets for an id nested in the record.
    ///   - query: Query parameters every page request carries (`["ordering": "updated_at,id"]`), sorted by
    ///     name, before the paging parameters.
    ///   - endsOnNotFound: Whether a `404` for a page after the first ends the pull, as Django REST
    ///     Framework's page numbers answer the page after the last (`{"detail": "Invalid page."}`), when
    ///     the last page was full. A `404` for the first page stays an error.
    public init(
        path: String = "", records: DataPath = .root, paging: Paging, hasMore: HasMore? = nil,
        deletions: Deletions = .none, changedSince: ChangedSince? = nil, limitParameter: String? = "limit",
        idKey: String = "id", query: [String: String] = [:], endsOnNotFound: Bool = false
    ) {
        self.path = path
        self.records = records
        self.paging = paging
        self.hasMore = hasMore
        self.deletions = deletions
        self.changedSince = changedSince
        self.limitParameter = limitParameter
        self.idKey = idKey
        self.query = query
        self.endsOnNotFound = endsOnNotFound
    }
}
