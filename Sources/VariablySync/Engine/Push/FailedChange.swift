import Foundation
public import VariablyCodable

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
    /// The fields the server named as the cause, as paths of the model's remote key set: a JSON:API
    /// error's `source.pointer` `/data/attributes/name` is `attributes.name` for a record at `data`.
    /// Empty when the answer named none that the model has.
    ///
    /// ```swift
    /// if failure.fields.contains("attributes.name") { showNameError() }
    /// ```
    public var fields: [DataPath] = []
    /// The model's properties at ``fields``, in the same order (a field whose property is unknown is
    /// left out): `\Person.name` for `attributes.name`.
    ///
    /// ```swift
    /// if failure.keyPaths.contains(where: { $0 == \Person.name }) { showNameError() }
    /// ```
    public var keyPaths: [any AnyKeyPath & Sendable] = []

    /// `42: save refused: HTTP 400: …`.
    public var description: String {
        "\(id): \(operation == .save ? (isNew ? "create" : "save") : "delete") refused: \(reason)"
    }
}

// MARK: - The fields a refusal names, kept with its reason

extension FailedChange {
    /// Separates a refusal's text from the fields it names in the queue's `failure` text (a JSON text
    /// never holds the control character).
    private static var fieldsSeparator: String { "\u{1E}" }

    /// A refusal's text with `fields` (paths in the model's remote key set) kept after it, as the
    /// queue stores it: ``unpacked(_:)`` reads both back.
    package static func reason(_ text: String, naming fields: [DataPath]) -> String {
        guard !fields.isEmpty, let data = try? JSONEncoder().encode(fields.map(\.keys)) else { return text }
        return text + fieldsSeparator + String(decoding: data, as: UTF8.self)
    }

    /// The text of a stored refusal and the fields it names.
    package static func unpacked(_ stored: String) -> (reason: String, fields: [DataPath]) {
        guard let separator = stored.range(of: fieldsSeparator, options: .backwards),
            let keys = try? JSONDecoder().decode([[String]].self, from: Data(stored[separator.upperBound...].utf8))
        else { return (stored, []) }
        return (String(stored[..<separator.lowerBound]), keys.map(DataPath.init))
    }
}
