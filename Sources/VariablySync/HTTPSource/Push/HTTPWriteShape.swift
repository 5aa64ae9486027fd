public import VariablyCodable

/// How the per-record endpoints write a record and read the server's answer: the media type of each
/// method, where the record sits in the body, the envelope's constants, and where the answer holds the
/// record the server stored.
///
/// Every name is a path written as in key sets (`"data.attributes.name"`). The body is the record
/// encoded through the model's remote key set (nested paths write nested objects), placed at
/// ``recordPath``, with ``constants`` written beside it. A constant goes into an object the body has;
/// when every member of that object is `null` (a to-one relationship with no target), the object is
/// written as `null` and the constant left out.
///
/// ```swift
/// // A plain JSON API, PATCH bodies as JSON Merge Patch:
/// let mergePatch = HTTPWriteShape(mediaType: .init(patch: "application/merge-patch+json"))
/// // JSON:API: {"data": {"type": "people", "id": "7", "attributes": {...}}} both ways.
/// let people = HTTPWriteShape(
///     mediaType: "application/vnd.api+json", recordPath: "data", constants: ["data.type": "people"],
///     answerRecordPath: "data", updatesCarryID: true)
/// ```
public struct HTTPWriteShape: Sendable, Equatable {
    /// The media type of each method's body (its `Content-Type`) and of the answer it accepts (its
    /// `Accept`, unless the source's `headers` set one).
    ///
    /// ```swift
    /// let jsonAPI: HTTPWriteShape.MediaTypes = "application/vnd.api+json"   // every method
    /// let mergePatch = HTTPWriteShape.MediaTypes(patch: "application/merge-patch+json")
    /// ```
    public struct MediaTypes: Sendable, Equatable, ExpressibleByStringLiteral {
        /// Creates: `POST {path}`.
        public var post: String
        /// Replaces, and creates with an id the client makes: `PUT {path}/{id}`.
        public var put: String
        /// Amends: `PATCH {path}/{id}`.
        public var patch: String
        /// Deletes: `DELETE {path}/{id}` (no body; the type the answer may come in).
        public var delete: String
        /// Reads: `GET {path}/{id}` for a conflict's server record, a revert, the look-up of a create in
        /// doubt, and the pull's pages (no body; the type the answer comes in).
        public var get: String

        /// One media type per method; `application/json` for every method not named.
        ///
        /// ```swift
        /// HTTPWriteShape.MediaTypes(patch: "application/merge-patch+json")
        /// ```
        ///
        /// - Parameters:
        ///   - post: The media type of creates.
        ///   - put: The media type of `PUT`.
        ///   - patch: The media type of `PATCH`.
        ///   - delete: The media type a deletion's answer may come in.
        ///   - get: The media type a record read's answer comes in.
        public init(
            post: String = "application/json", put: String = "application/json", patch: String = "application/json",
            delete: String = "application/json", get: String = "application/json"
        ) {
            self.post = post
            self.put = put
            self.patch = patch
            self.delete = delete
            self.get = get
        }

        /// The same media type for every method.
        ///
        /// ```swift
        /// let jsonAPI: HTTPWriteShape.MediaTypes = "application/vnd.api+json"
        /// ```
        public init(stringLiteral value: String) {
            self.init(post: value, put: value, patch: value, delete: value, get: value)
        }

        /// The media type of `method` (`"POST"`, `"PATCH"`, …); `application/json` for another.
        package func of(_ method: String) -> String {
            switch method {
            case "POST": post
            case "PUT": put
            case "PATCH": patch
            case "DELETE": delete
            case "GET": get
            default: "application/json"
            }
        }
    }

    /// The media type of each method.
    public var mediaType: MediaTypes
    /// Where the record goes in a body: `DataPath.root` for the body itself, `"data"` for JSON:API.
    public var recordPath: DataPath
    /// Values written into every body at their paths from the body's root, such as JSON:API's
    /// `data.type`.
    public var constants: [DataPath: JSONValue]
    /// Where an answer holds the record the server stored (and a conflict's server record, the id it
    /// assigned, the version): `DataPath.root` for the body itself, `"data"` for JSON:API.
    public var answerRecordPath: DataPath
    /// Whether an update's body carries the record's id (the pull shape's `idKey`) even when it is a
    /// read-only field or unchanged, as JSON:API requires of `PATCH`.
    public var updatesCarryID: Bool

    /// A write shape.
    ///
    /// ```swift
    /// HTTPWriteShape(
    ///     mediaType: "application/vnd.api+json", recordPath: "data", constants: ["data.type": "people"],
    ///     answerRecordPath: "data", updatesCarryID: true)
    /// ```
    ///
    /// - Parameters:
    ///   - mediaType: The media type of each method: one string for all, or ``MediaTypes/init(post:put:patch:delete:get:)``.
    ///   - recordPath: Where the record goes in a body; the body itself by default.
    ///   - constants: Values written into every body at their paths from the body's root.
    ///   - answerRecordPath: Where an answer holds the record; the body itself by default.
    ///   - updatesCarryID: Whether an update's body always carries the record's id.
    public init(
        mediaType: MediaTypes = "application/json", recordPath: DataPath = .root,
        constants: [DataPath: JSONValue] = [:], answerRecordPath: DataPath = .root, updatesCarryID: Bool = false
    ) {
        self.mediaType = mediaType
        self.recordPath = recordPath
        self.constants = constants
        self.answerRecordPath = answerRecordPath
        self.updatesCarryID = updatesCarryID
    }

    /// The record as the body, in `application/json` both ways: what most REST frameworks take.
    ///
    /// ```swift
    /// HTTPRecordEndpoints(path: "notes", writes: .json)
    /// ```
    public static let json = HTTPWriteShape()

    /// JSON:API (<https://jsonapi.org/format/#crud>): `application/vnd.api+json` both ways, the record
    /// under `data` with `data.type`, the type of each relationship's target at
    /// `data.relationships.<name>.data.type`, the id in every update, and the answer's record at
    /// `data`. The model's remote key set declares the resource object's members as paths:
    /// `Key(\.name, "attributes.name")`, `Key(\.authorID, "relationships.author.data.id")`.
    ///
    /// ```swift
    /// HTTPRecordEndpoints(
    ///     path: "articles", update: .patch, body: .changedFields, readOnlyFields: ["id"],
    ///     writes: .jsonAPI(type: "articles", relationships: ["author": "people"]))
    /// ```
    ///
    /// - Parameters:
    ///   - type: The resource type of the collection's records, e.g. `"articles"`.
    ///   - relationships: The type of each relationship's target by the relationship's name, e.g.
    ///     `["author": "people"]`.
    public static func jsonAPI(type: String, relationships: [String: String] = [:]) -> HTTPWriteShape {
        var constants: [DataPath: JSONValue] = [DataPath(["data", "type"]): .string(type)]
        for (name, target) in relationships {
            constants[DataPath(["data", "relationships", name, "data", "type"])] = .string(target)
        }
        return HTTPWriteShape(
            mediaType: "application/vnd.api+json", recordPath: "data", constants: constants, answerRecordPath: "data",
            updatesCarryID: true)
    }
}

extension HTTPPushShape {
    /// The per-record endpoints, if the API writes record by record.
    var perRecordEndpoints: HTTPRecordEndpoints? {
        if case .perRecord(let endpoints) = self { return endpoints }
        return nil
    }
}
