public import Foundation

/// A local change that has not reached the server yet, and why: one account of everything a screen may
/// want to show as "not synced", outside a sync.
///
/// ```swift
/// for change in try await repository.unsentChanges() {
///     print(change)   // posts 42: save waiting for its parent: it references users -3, which ...
/// }
/// ```
public struct UnsentChange: Sendable, Equatable, CustomStringConvertible {
    /// Where a change stands.
    public enum Status: Sendable, Equatable {
        /// Queued: the next sync sends it.
        case queued
        /// Sent, with no answer yet: in flight, or its answer was lost (a kill, a timeout). The next sync
        /// sends it again with the same idempotency key, or, for a create with a client reference, looks
        /// it up first.
        case awaitingAnswer
        /// Not sent: it references a record whose create the server has not accepted yet (the reason
        /// quotes the parent's refusal, if any). It goes once that create is accepted.
        case waitingForParent(String)
        /// The server refused it: it waits for the app (``Repository/failedChanges()``).
        case refused(String)
        /// The server kept failing it (`5xx` after every retry): a sync after `after` sends it again.
        case retrying(String, after: Date)
    }

    /// The record's table.
    public let table: String
    /// The record's id as JSON text (`42`, `"a1b2"`), as the queue keeps it.
    public let recordID: String
    /// Whether the change deletes the record (else it creates or updates it).
    public let isDeletion: Bool
    /// Whether the server has never had the record: it was created on this device.
    public let isNew: Bool
    /// Where the change stands.
    public let status: Status

    /// The record's id, decoded as `type`; `nil` if it is not one.
    ///
    /// ```swift
    /// let id = change.id(as: Int64.self)
    /// ```
    public func id<ID: Decodable>(as type: ID.Type) -> ID? {
        try? JSONDecoder().decode([ID].self, from: Data("[\(recordID)]".utf8)).first
    }

    /// `posts 42: save queued`.
    public var description: String {
        let operation = isDeletion ? "delete" : (isNew ? "create" : "save")
        let state: String
        switch status {
        case .queued: state = "queued"
        case .awaitingAnswer: state = "sent, awaiting an answer"
        case .waitingForParent(let reason): state = "waiting for its parent: \(reason)"
        case .refused(let reason): state = "refused: \(reason)"
        case .retrying(let error, let after): state = "retried after \(after): \(error)"
        }
        return "\(table) \(recordID): \(operation) \(state)"
    }
}
