import Foundation
import VariablyCodable

// MARK: - The server's ids, listed

extension HTTPRemoteSource {
    /// Asks for the page of the server's ids after `cursor` as the `api`'s `idListing` describes:
    /// its path, query and paging, with the pull's checks (a page shorter than asked is checked once,
    /// declared totals are read), so that a listing cut short by a silent page cap is never taken as
    /// the whole.
    ///
    /// ```swift
    /// // GET /users/?fields=id&page=1&page_size=1000 → {"results": [{"id": 1}, …], "next": …}
    /// let api = HTTPAPI(
    ///     pull: pull, push: push,
    ///     idListing: HTTPPullShape(
    ///         path: "users/", records: "results", paging: .page(parameter: "page"),
    ///         limitParameter: "page_size", query: ["fields": "id"]))
    /// let page = try await HTTPRemoteSource<User>(baseURL: base, api: api).serverIDs(after: nil, limit: 1_000)
    /// ```
    ///
    /// - Throws: ``RemoteSourceError/unavailable(_:)`` without a listing; `DeclarationError` for a
    ///   listing that declares `changedSince` (it would list only what changed); ``RemoteSourceError``
    ///   for failures, bad statuses and answers that are not the declared shape, or records without an id.
    public func serverIDs(after cursor: SyncCursor?, limit: Int) async throws -> RemoteIDPage<Model.ID> {
        guard let shape = api.idListing else {
            throw RemoteSourceError.unavailable(
                "this API lists no ids: declare HTTPAPI's idListing (e.g. the collection with ?fields=id)")
        }
        let page = try await page(of: shape, after: cursor, limit: limit)
        let ids = try Self.ids(in: page.records, idKey: shape.idKey) + page.deletedIDs
        // An empty listing may be a refusal of the credentials in disguise: it would remove every row.
        if cursor == nil, ids.isEmpty, !page.hasMore {
            try await exchange.verifyCredentials(before: "an empty id listing")
        }
        return RemoteIDPage(ids: ids, nextCursor: page.nextCursor, hasMore: page.hasMore)
    }

    /// The ids of `records` (a JSON array of objects): each object's `idKey` (a dotted path in the
    /// object), read through the model's id coding.
    static func ids(in records: Data, idKey: String) throws -> [Model.ID] {
        let body = try JSONBody(records)
        guard let elements = try body.elements(of: body.root) else {
            throw RemoteSourceError.invalidResponse("the id listing's records are not an array")
        }
        let decoder = RecordIDDecoder<Model>()
        let idPath = DataPath(dotted: idKey)
        return try elements.map { element in
            guard let range = try body.range(at: idPath, in: element), let id = try? decoder.id(from: body.data(range))
            else {
                throw RemoteSourceError.invalidResponse(
                    "a listed record without a valid \"\(idKey)\": "
                        + String(decoding: body.data(element).prefix(200), as: UTF8.self))
            }
            return id
        }
    }
}
