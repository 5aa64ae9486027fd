/// A local change the server refused, kept in the queue and held there until the app decides: it is
/// not pushed again until ``Repository/retry(failedChangeOf:)`` or a new edit of the record, and it
/// leaves the queue only through ``Repository/revert(failedChangeOf:)`` or
/// ``Repository/discard(failedChangeOf:)``.
///
/// ```swift
/// for failure in try await repository.failedChanges() {
///     print(failure)   // 42: save refused: HTTP 400: {"title": ["This field may not be blank."]}
///     try await repository.revert(failedChangeOf: failure.id)
/// }
/// ```
public struct FailedChange<ID: Hashable & Sendable>: Sendable, CustomStringConvertible {
    /// What the refused change does.
    public enum Operation: Sendable, Equatable {
        /// Creates or updates the record.
        case save
        /// Deletes the record.
        case delete
    }

    /// The record's id.
    public let id: ID
    /// What the change does.
    public let operation: Operation
    /// Whether the server has never had the record: it was created on this device.
    public let isNew: Bool
    /// The server's answer (status and the start of its body) or why the answer could not be used.
    public let reason: String

    /// `42: save refused: HTTP 400: …`.
    public var description: String {
        "\(id): \(operation == .save ? (isNew ? "create" : "save") : "delete") refused: \(reason)"
    }
}
