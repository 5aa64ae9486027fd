/// A REST collection written one record at a time: `POST {base}/{path}` for a record created on the
/// device, `PUT` or `PATCH {base}/{path}/{id}` for one the server has, and `DELETE {base}/{path}/{id}`.
///
/// Which records are new is known from the queue of local changes: a record inserted here and not yet
/// accepted by the server is created; every other record is updated. When the server answers a create
/// with the record it stored, an id it assigned replaces the provisional local one (see
/// `Repository.create(_:)`).
///
/// With no `concurrency`, the last write wins: the server applies each change whatever happened since.
/// For optimistic concurrency, the record's version is sent exactly as the server last sent it (its
/// `ETag`, or the bytes of `versionField` in the record's JSON), as `If-Match`
/// (``Concurrency/ifMatch``) or left in the body for the server to compare (``Concurrency/versionInBody``).
/// A `409` or `412` answer is a conflict: the server's record is read from the answer's body when it
/// holds one (a JSON object that decodes as the model, not an error object), else with
/// `GET {base}/{path}/{id}` (`404`: deleted). An update answered `404` or `410` is a conflict with the
/// server's deletion; a policy that keeps the local record creates it again.
///
/// Every field is named by its path, written as in key sets (`"attributes.updated_at"`), and
/// ``HTTPWriteShape`` declares the media types, where the record goes in a body and where an answer
/// holds it (JSON:API: ``HTTPWriteShape/jsonAPI(type:relationships:)``).
///
/// No local change leaves the queue unless the server accepted it or the app decided: an answer the
/// library cannot classify (a redirect it may not follow, `400`, `403`, `415`, `422`, a create answered
/// `404`) keeps the change, failed, with the server's answer (see `Repository.failedChanges()`, whose
/// `fields` name the fields a JSON:API error's `source.pointer` points at). `401`,
/// `408`, `429` and `5xx` are retried. Every request carries the change's `Idempotency-Key` header, so
/// that a server can recognize a retried `POST`.
///
/// ```swift
/// // Django REST Framework: trailing slashes, PATCH with the changed fields, ids and stamps read-only.
/// let endpoints = HTTPRecordEndpoints(
///     path: "notes", trailingSlash: true, update: .patch, body: .changedFields,
///     readOnlyFields: ["id", "updated_at"], versionField: "updated_at", concurrency: .ifMatch)
/// ```
public struct HTTPRecordEndpoints: Sendable {
    /// The method that replaces or amends a record.
    public enum UpdateMethod: String, Sendable {
        /// `PUT`: the whole record.
        case put = "PUT"
        /// `PATCH`: the record's JSON, or its changed members (see ``Body/changedFields``).
        case patch = "PATCH"
    }

    /// What an update's body holds.
    public enum Body: Sendable {
        /// The whole record (less the read-only fields).
        case wholeRecord
        /// With `PATCH`: only the fields whose properties changed since the server last accepted the
        /// record, each at its path inside the objects around it (`{"profile": {"age": 31}}` for a
        /// change of `profile.age`, not the rest of `profile`); a changed property the record leaves
        /// out (`nil`) goes as `null`. The whole record for a new one; `PUT` always sends the whole
        /// record.
        case changedFields
    }

    /// How a change says which version it was based on.
    public enum Concurrency: Sendable {
        /// No check: the last write wins.
        case none
        /// `If-Match: "<version>"`; the server answers `412` when the record changed.
        case ifMatch
        /// The version stays in the record's JSON; the server answers `409` when it is not current.
        case versionInBody
    }

    /// The collection's path under the base URL; `""` for the base URL itself.
    package var path: String
    /// Whether the collection's and the records' URLs end with `/`.
    package var trailingSlash: Bool
    /// `PUT` or `PATCH` for records the server has.
    package var update: UpdateMethod
    /// The media type of each method, where the record sits in a body and in an answer.
    package var writes: HTTPWriteShape
    /// What an update's body holds.
    package var body: Body
    /// Paths (as in key sets) left out of every body: what the server computes (ids it assigns, stamps).
    package var readOnlyFields: Set<String>
    /// Whether new records are created with `POST {path}` (`true`) or `PUT {path}/{id}` with
    /// `If-None-Match: *` (`false`).
    package var createsWithPost: Bool
    /// The path (as in key sets) of the record's version in its JSON.
    package var versionField: String?
    /// How the version is checked.
    package var concurrency: Concurrency
    /// How many records are pushed at once.
    package var maximumConcurrentRequests: Int
    /// The record's client reference, for creates that are exactly once on a server that ignores
    /// `Idempotency-Key`; `nil` for none.
    package var clientReference: ClientReference?
    package var newIDs: NewRecordIDs
    /// Where writes go several at a time (``inBatches(_:)``); `nil`: one request each.
    package var batch: HTTPBatchEndpoint? = nil
    /// Where a delete sends the version with ``Concurrency/versionInBody``; `nil` for ``DeleteVersion/body``.
    package var deleteVersion: DeleteVersion?
    /// How creates in doubt whose ids the device chose are found many at a time
    /// (``lookingUpChosenIDs(_:)``); `nil`: one `GET {path}/{id}` each.
    package var chosenIDLookUp: HTTPLookUp? = nil

    /// A unique value the client gives each record it creates and the server stores with a unique
    /// constraint (a UUID property, the common pattern): a create whose answer was lost (a kill, a
    /// timeout, a dropped connection) is looked up by it before it is sent again, and adopted if the
    /// server has it, so that the record is created once.
    ///
    /// ```swift
    /// HTTPRecordEndpoints(path: "posts", trailingSlash: true, clientReference: .init(field: "client_id"))
    /// // a create in doubt: GET /posts/?client_id=6F9619FF-8B86-D011-B42D-00C04FC964FF first
    /// ```
    public struct ClientReference: Sendable, Equatable {
        /// The path of the reference in the record's JSON, written as in key sets (`"meta.client_id"`).
        public var field: String
        /// The query parameter that filters the collection by it.
        public var query: String
        /// How the collection is asked for records by it: one value a request (``HTTPLookUp/parameter(_:)``
        /// with ``query``), or the creates in doubt many at a time.
        public var lookUp: HTTPLookUp

        /// A client reference at `field`, looked up with the query parameter `query` (`field` when `nil`).
        ///
        /// - Parameters:
        ///   - field: The path of the reference in the record's JSON, written as in key sets, e.g.
        ///     `"client_id"` or `"attributes.client_id"`.
        ///   - query: The collection's filter parameter for it, e.g. `"client_id"`.
        public init(field: String, query: String? = nil) {
            self.field = field
            self.query = query ?? field
            self.lookUp = .parameter(query ?? field)
        }

        /// A client reference at `field`, the creates in doubt looked up as `lookUp` asks.
        ///
        /// ```swift
        /// // Django REST Framework with django-filter: GET /comments/?client_id__in=6f96...,1b4e...
        /// HTTPRecordEndpoints.ClientReference(field: "client_id", lookUp: .list(parameter: "client_id__in"))
        /// ```
        ///
        /// - Parameters:
        ///   - field: The path of the reference in the record's JSON, written as in key sets.
        ///   - lookUp: How the collection is asked for records by their references.
        public init(field: String, lookUp: HTTPLookUp) {
            self.field = field
            self.query = lookUp.parameterName
            self.lookUp = lookUp
        }
    }

    /// Endpoints for the collection at `path`.
    ///
    /// Every field is named by its path, written as in key sets: `"updated_at"`, or
    /// `"attributes.updated_at"` for a member of a nested object.
    ///
    /// ```swift
    /// HTTPRecordEndpoints(path: "users", update: .patch, versionField: "version", concurrency: .versionInBody)
    /// HTTPRecordEndpoints(path: "people", writes: .jsonAPI(type: "people", relationships: ["author": "people"]))
    /// ```
    ///
    /// - Parameters:
    ///   - path: The collection's path under the base URL; `""` for the base URL itself.
    ///   - trailingSlash: Whether the collection's and the records' URLs end with `/` (`/notes/`,
    ///     `/notes/42/`), as Django and Rails-style routers write them.
    ///   - update: `PUT` or `PATCH` for records the server has.
    ///   - body: The whole record, or only the changed fields with `PATCH`.
    ///   - readOnlyFields: Paths left out of every body: what the server computes (an id it assigns,
    ///     timestamps), e.g. `"id"`, `"attributes.updated_at"`. The version field stays in bodies with
    ///     ``Concurrency/versionInBody``.
    ///   - createsWithPost: Whether new records are created with `POST {path}` (`true`) or `PUT {path}/{id}`
    ///     with `If-None-Match: *` (`false`, for ids the client makes).
    ///   - versionField: The path of the record's version in its JSON (e.g. `"version"`,
    ///     `"attributes.updated_at"`); `nil` when records carry none.
    ///   - concurrency: How the version is checked; ``Concurrency/none``, the default, is last write wins.
    ///   - clientReference: The path of a unique value the client gives each record it creates, and the query
    ///     that finds a record by it: a create whose answer was lost is looked up before it is sent again.
    ///   - maximumConcurrentRequests: How many records are pushed at once (at least 1); each record's
    ///     changes stay in order.
    ///   - newIDs: How ``Repository/create(_:)-((String)->Model)`` makes the ids of records created on the device, for
    ///     a server that keeps the id a create sends: ``NewRecordIDs/uuid``, the default, or the server's
    ///     own form, such as ``NewRecordIDs/pocketBase``.
    ///   - deleteVersion: Where a delete sends the version with ``Concurrency/versionInBody``: a query
    ///     parameter (Rails: `.query("lock_version")`) or, the default, a JSON body (``DeleteVersion/body``).
    ///   - writes: The media type of each method, where the record sits in a body and in an answer:
    ///     ``HTTPWriteShape/json``, the default, or e.g. ``HTTPWriteShape/jsonAPI(type:relationships:)``.
    public init(
        path: String = "", trailingSlash: Bool = false, update: UpdateMethod = .put, body: Body = .wholeRecord,
        readOnlyFields: some Sequence<String> = [String](), createsWithPost: Bool = true, versionField: String? = nil,
        concurrency: Concurrency = .none, clientReference: ClientReference? = nil, maximumConcurrentRequests: Int = 4,
        newIDs: NewRecordIDs = .uuid, deleteVersion: DeleteVersion? = nil, writes: HTTPWriteShape = .json
    ) {
        self.path = path
        self.trailingSlash = trailingSlash
        self.update = update
        self.writes = writes
        self.body = body
        self.readOnlyFields = Set(readOnlyFields)
        self.clientReference = clientReference
        self.createsWithPost = createsWithPost
        self.versionField = versionField
        self.concurrency = concurrency
        self.maximumConcurrentRequests = maximumConcurrentRequests
        self.newIDs = newIDs
        self.deleteVersion = deleteVersion
    }

    /// Endpoints whose `PATCH` bodies have the media type `patchContentType`.
    ///
    /// ```swift
    /// // Instead: HTTPRecordEndpoints(path: "users", update: .patch,
    /// //     writes: HTTPWriteShape(mediaType: .init(patch: "application/merge-patch+json")))
    /// HTTPRecordEndpoints(path: "users", update: .patch, patchContentType: "application/merge-patch+json")
    /// ```
    @available(*, deprecated, message: "declare writes: HTTPWriteShape(mediaType: .init(patch: ...)) instead")
    public init(
        path: String = "", trailingSlash: Bool = false, update: UpdateMethod = .put, patchContentType: String,
        body: Body = .wholeRecord, readOnlyFields: some Sequence<String> = [String](), createsWithPost: Bool = true,
        versionField: String? = nil, concurrency: Concurrency = .none, clientReference: ClientReference? = nil,
        maximumConcurrentRequests: Int = 4, newIDs: NewRecordIDs = .uuid
    ) {
        self.init(
            path: path, trailingSlash: trailingSlash, update: update, body: body, readOnlyFields: readOnlyFields,
            createsWithPost: createsWithPost, versionField: versionField, concurrency: concurrency,
            clientReference: clientReference, maximumConcurrentRequests: maximumConcurrentRequests, newIDs: newIDs,
            writes: HTTPWriteShape(mediaType: .init(patch: patchContentType)))
    }
}
