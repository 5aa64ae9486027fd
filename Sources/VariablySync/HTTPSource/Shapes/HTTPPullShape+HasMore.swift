public import VariablyCodable

extension HTTPPullShape {
    /// How a page says whether more follow: a Boolean, or the totals the server declares. Totals are
    /// checked on every page, so a server that serves fewer records a page than asked (a cap it applies
    /// without saying so) is paged to the end.
    ///
    /// ```swift
    /// HTTPPullShape(records: "data", paging: .token(parameter: "cursor", next: "next"), hasMore: "meta.has_more")
    /// // PocketBase: {"page": 1, "perPage": 500, "totalPages": 4, "totalItems": 1712, "items": [...]}
    /// HTTPPullShape(records: "items", paging: .page(parameter: "page"), hasMore: .totalPages(at: "totalPages"))
    /// // Django REST Framework: {"count": 1712, "next": ..., "results": [...]}
    /// HTTPPullShape(records: "results", paging: .offset(parameter: "offset"), hasMore: .totalItems(at: "count"))
    /// ```
    public struct HasMore: Sendable, ExpressibleByStringLiteral {
        enum Kind: Sendable {
            case flag(DataPath)
            case totalPages(DataPath)
            case totalItems(DataPath)
        }

        let kind: Kind

        /// A Boolean at `path`: `true` while more pages follow.
        ///
        /// ```swift
        /// HTTPPullShape.HasMore.flag(at: "meta.has_more")
        /// ```
        public static func flag(at path: DataPath) -> HasMore { HasMore(kind: .flag(path)) }

        /// The number of pages of the request, at `path`: more follow while the page number asked is
        /// below it. Needs ``Paging/page(parameter:first:)`` paging.
        ///
        /// ```swift
        /// HTTPPullShape.HasMore.totalPages(at: "totalPages")
        /// ```
        public static func totalPages(at path: DataPath) -> HasMore { HasMore(kind: .totalPages(path)) }

        /// The number of records the request matches, at `path`: more follow while fewer were received
        /// since the request's first page.
        ///
        /// ```swift
        /// HTTPPullShape.HasMore.totalItems(at: "count")
        /// ```
        public static func totalItems(at path: DataPath) -> HasMore { HasMore(kind: .totalItems(path)) }

        /// A Boolean at the dotted path: `"meta.has_more"`.
        public init(stringLiteral path: String) {
            kind = .flag(DataPath(dotted: path))
        }

        private init(kind: Kind) {
            self.kind = kind
        }

        /// Whether more pages follow this one, read from `body`.
        ///
        /// - Parameters:
        ///   - page: The page number this page was asked as (page paging), else `nil`.
        ///   - received: The records received since the request's first page, this page's included.
        func more(in body: JSONBody, page: Int?, received: Int) throws -> Bool {
            switch kind {
            case .flag(let path):
                guard let range = try body.range(at: path), case .bool(let flag) = try body.value(range) else {
                    throw RemoteSourceError.invalidResponse("the pull response has no Boolean at \(path)")
                }
                return flag
            case .totalPages(let path):
                guard let page else {
                    throw RemoteSourceError.invalidResponse(
                        "hasMore: .totalPages(at: \"\(path)\") needs page paging (.page(parameter:)); use .totalItems")
                }
                return page < (try count(at: path, in: body))
            case .totalItems(let path):
                return received < (try count(at: path, in: body))
            }
        }

        private func count(at path: DataPath, in body: JSONBody) throws -> Int {
            guard let range = try body.range(at: path), case .int(let number) = try body.value(range), number >= 0
            else {
                throw RemoteSourceError.invalidResponse("the pull response has no count (a whole number) at \(path)")
            }
            return Int(clamping: number)
        }
    }
}
