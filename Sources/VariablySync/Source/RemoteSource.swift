public import Foundation
public import VariablyCodable

/// A server that a ``Repository`` synchronizes with: it hands out pages of changes after a cursor and
/// accepts local changes. Nothing in it is tied to HTTP: `SimulatedServer` runs in-process,
/// ``HTTPRemoteSource`` speaks JSON over HTTP, and you can adapt any other transport.
///
/// Records travel as the server's JSON, in the model's `CodingSource.remote` key set; the repository
/// decodes them page by page through the core.
///
/// ```swift
/// let server = try SimulatedServer(records: users, seed: 42)
/// let page = try await server.pull(after: nil, limit: 1_000)
/// print(page.deletedIDs.count, page.nextCursor, page.hasMore)
/// ```
public protocol RemoteSource<Model>: Sendable {
    /// The model the server stores.
    associatedtype Model: VariablyCodable & Identifiable & Sendable where Model.ID: Codable & Sendable

    /// Returns the changes made after `cursor`, oldest first, at most `limit` of them (records and
    /// deletions together).
    ///
    /// ```swift
    /// var cursor: SyncCursor? = nil
    /// repeat {
    ///     let page = try await remote.pull(after: cursor, limit: 500)
    ///     cursor = page.nextCursor
    /// } while page.hasMore
    /// ```
    ///
    /// - Parameters:
    ///   - cursor: The ``RemotePage/nextCursor`` of the last page applied, or `nil` for everything.
    ///   - limit: The largest number of changes wanted.
    /// - Throws: ``RemoteSourceError`` (transient ones are retried by the repository) or any transport error.
    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Model.ID>

    /// Applies local changes and reports the outcome of each, in the same order.
    ///
    /// A change whose ``RemoteChange/idempotencyKey`` the server has already applied must return the
    /// first outcome again rather than apply it twice: that makes a push safe to retry.
    ///
    /// ```swift
    /// let change = RemoteChange(
    ///     idempotencyKey: UUID().uuidString, id: user.id,
    ///     operation: .upsert(try JSONEncoder().encode(user, source: .remote)), baseVersion: version)
    /// let results = try await remote.push([change])
    /// if case .conflict(let serverRecord, let version) = results[0].outcome { ... }
    /// ```
    ///
    /// - Parameter changes: The changes, each with its idempotency key.
    /// - Returns: One ``PushResult`` per change, in order.
    /// - Throws: ``RemoteSourceError`` or any transport error; then nothing is known about which
    ///   changes were applied, and the caller retries with the same idempotency keys.
    func push(_ changes: [RemoteChange<Model.ID>]) async throws -> [PushResult<Model.ID>]

    /// Whether the source takes pushes; `false` for a read-only source, whose repository then pulls
    /// without pushing and keeps local changes queued. `true` unless a source says otherwise.
    var acceptsPushes: Bool { get }

    /// A stable name for the feed of changes this source serves, such as its base URL. The repository
    /// keeps its cursor per table and feed: when a cache that was synced with one feed is synced with
    /// another (a staging server, then production), the old cursor means nothing there, so the sync
    /// starts over as ``Repository/resync(allowingDeletionOf:)`` does, and keeps the queued local changes. The type's name
    /// unless a source says otherwise.
    ///
    /// ```swift
    /// struct ProfileFeed: RemoteSource {
    ///     let region: String
    ///     var feedIdentifier: String { "profiles-\(region)" }
    ///     // pull(after:limit:) and push(_:) ...
    /// }
    /// ```
    var feedIdentifier: String { get }

    /// The record with `id` as the server has it now (its JSON, remote keys), or `nil` when the server
    /// has none: what ``Repository/revert(failedChangeOf:)`` puts back in the cache. Sources that
    /// cannot read one record throw ``RemoteSourceError/unavailable(_:)``, the default.
    ///
    /// ```swift
    /// if let json = try await remote.currentRecord(id: 42) {
    ///     let user = try KeySetJSONDecoder(source: .remote).decode(User.self, from: json)
    /// }
    /// ```
    ///
    /// - Throws: ``RemoteSourceError`` or any transport error.
    func currentRecord(id: Model.ID) async throws -> Data?

    /// The page of the ids the server holds now after `cursor`, at most `limit` of them: what
    /// ``Repository/removeDeletedRecords(allowingDeletionOf:)`` reads, page by page, to remove the
    /// cached records the server deleted without saying so. Sources that cannot list their ids throw
    /// ``RemoteSourceError/unavailable(_:)``, the default.
    ///
    /// ```swift
    /// let first = try await remote.serverIDs(after: nil, limit: 1_000)
    /// ```
    ///
    /// - Parameters:
    ///   - cursor: The ``RemoteIDPage/nextCursor`` of the last page, or `nil` for the first.
    ///   - limit: The largest number of ids wanted.
    /// - Throws: ``RemoteSourceError`` or any transport error.
    func serverIDs(after cursor: SyncCursor?, limit: Int) async throws -> RemoteIDPage<Model.ID>

    /// How ``Repository/create(_:)-((String)->Model)`` makes the ids of records created on the device, where the
    /// server keeps the id a create sends. ``NewRecordIDs/uuid`` unless a source says otherwise.
    ///
    /// ```swift
    /// struct PocketBaseUsers: RemoteSource {
    ///     var newRecordIDs: NewRecordIDs { .pocketBase }
    ///     // pull(after:limit:) and push(_:) ...
    /// }
    /// ```
    var newRecordIDs: NewRecordIDs { get }
}

extension RemoteSource {
    /// Throws ``RemoteSourceError/unavailable(_:)``: a source reads single records only if it says so.
    public func currentRecord(id: Model.ID) async throws -> Data? {
        throw RemoteSourceError.unavailable("\(Self.self) cannot read a single record (\(id))")
    }

    /// Throws ``RemoteSourceError/unavailable(_:)``: a source lists its ids only if it says so.
    public func serverIDs(after cursor: SyncCursor?, limit: Int) async throws -> RemoteIDPage<Model.ID> {
        throw RemoteSourceError.unavailable(
            "\(Self.self) cannot list the ids it holds: give it a listing (HTTPAPI's idListing)")
    }

    /// ``NewRecordIDs/uuid``: ids made on the device are UUIDs unless the source says otherwise.
    public var newRecordIDs: NewRecordIDs { .uuid }

    /// `true`: a source takes pushes unless it says otherwise.
    public var acceptsPushes: Bool { true }

    /// The source's type name, such as `MyApp.ProfileFeed`: every instance serves the same feed unless
    /// the source says otherwise.
    public var feedIdentifier: String { String(reflecting: Self.self) }
}
