/// A decoding or encoding failure, with everything needed to find its cause: the source, the model,
/// the property's key path, the keys tried and the coding path, and the underlying `DecodingError` or
/// `EncodingError` itself.
///
/// ```swift
/// do {
///     let user = try JSONDecoder().decode(User.self, from: data, source: .remote)
/// } catch let error as VariablyCodingError {
///     print(error)   // User.userName (remote, keys "user_name" | "username"): key not found at data[3]
/// }
/// ```
public struct VariablyCodingError: Error, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// No key of the property was present.
        case keyNotFound
        /// The key was present with `null` (or no value) where a value is required.
        case valueNotFound
        /// The value had another type than the property's.
        case typeMismatch
        /// The value was of the right type but not valid (a bad date, a bad enum raw value, ...).
        case dataCorrupted
        /// A value could not be encoded.
        case invalidValue
        /// No source was named and the model declares no default source.
        case noSource
        /// The model declares no key set for the source; `declared` lists those it has.
        case noKeySet(declared: [CodingSource])
        /// Another error, kept in ``VariablyCodingError/underlyingError``.
        case other
    }

    /// What went wrong.
    public let reason: Reason
    /// The source being decoded or encoded, if one was chosen.
    public let source: CodingSource?
    /// The model's type name, e.g. `"User"`.
    public let modelType: String
    /// The property's key path, e.g. `"\User.userName"`.
    public let keyPath: String?
    /// The property's name, e.g. `"userName"`.
    public let propertyName: String?
    /// The keys tried, in order.
    public let keys: SourceKey?
    /// Where in the document the failure happened.
    public let codingPath: [any CodingKey]
    /// The `DecodingError`, `EncodingError` or other error reported by the coder.
    public let underlyingError: (any Error)?

    init(
        reason: Reason, source: CodingSource?, modelType: Any.Type, entryKeyPath: String? = nil,
        propertyName: String? = nil, keys: SourceKey? = nil, codingPath: [any CodingKey],
        underlyingError: (any Error)? = nil
    ) {
        self.reason = reason
        self.source = source
        self.modelType = "\(modelType)"
        self.keyPath = entryKeyPath
        self.propertyName = propertyName
        self.keys = keys
        self.codingPath = codingPath
        self.underlyingError = underlyingError
    }

    /// Wraps an error thrown while coding `entry` (or the model as a whole when `entry` is `nil`):
    /// what a custom backend or sink uses to report failures the way the built-in coders do.
    ///
    /// ```swift
    /// throw VariablyCodingError(error, source: .sqlite, modelType: User.self, entry: entry, codingPath: [])
    /// ```
    ///
    /// - Parameters:
    ///   - error: The underlying error; a `DecodingError` or `EncodingError` sets ``reason`` and ``codingPath``.
    ///   - source: The source being coded.
    ///   - modelType: The model.
    ///   - entry: The property being coded, if any.
    ///   - fallbackPath: The coding path to report when `error` carries none.
    package init<Model>(
        _ error: any Error, source: CodingSource, modelType: Model.Type, entry: KeyEntry<Model>?,
        codingPath fallbackPath: [any CodingKey]
    ) {
        var reason = Reason.other
        var codingPath = fallbackPath
        switch error {
        case let error as DecodingError:
            switch error {
            case .keyNotFound(_, let context):
                reason = .keyNotFound
                codingPath = context.codingPath
            case .valueNotFound(_, let context):
                reason = .valueNotFound
                codingPath = context.codingPath
            case .typeMismatch(_, let context):
                reason = .typeMismatch
                codingPath = context.codingPath
            case .dataCorrupted(let context):
                reason = .dataCorrupted
                codingPath = context.codingPath
            @unknown default:
                break
            }
        case let error as EncodingError:
            if case .invalidValue(_, let context) = error {
                reason = .invalidValue
                codingPath = context.codingPath
            }
        default:
            break
        }
        self.init(
            reason: reason, source: source, modelType: modelType, entryKeyPath: entry.map { "\($0.keyPath)" },
            propertyName: entry?.propertyName, keys: entry?.key, codingPath: codingPath, underlyingError: error)
    }

    /// `User.userName (remote, keys "user_name" | "username"): key not found at data[3]`
    public var description: String {
        var subject = modelType
        if let name = propertyName ?? keyPath { subject += ".\(name)" }
        var context: [String] = []
        if let source { context.append("\(source)") }
        if let keys { context.append((keys.alternatives.count > 1 ? "keys " : "key ") + keys.description) }
        let head = context.isEmpty ? subject : "\(subject) (\(context.joined(separator: ", ")))"
        return "\(head): \(summary) at \(VariablyCodingError.render(codingPath))"
    }

    public var debugDescription: String {
        guard let underlyingError else { return description }
        return "\(description)\n  underlying: \(underlyingError)"
    }

    private var summary: String {
        switch reason {
        case .keyNotFound: return "key not found"
        case .valueNotFound: return "value is null or missing"
        case .typeMismatch, .dataCorrupted, .invalidValue, .other:
            return detail ?? "\(underlyingError.map { "\($0)" } ?? "failed")"
        case .noSource:
            return "no coding source chosen; set userInfo[.codingSource] or declare a default source in KeySets"
        case .noKeySet(let declared):
            return "no key set for this source (declared: \(declared.map(\.rawValue).joined(separator: ", ")))"
        }
    }

    private var detail: String? {
        switch underlyingError {
        case let error as DecodingError:
            switch error {
            case .typeMismatch(let type, let context):
                return "expected \(type): \(context.debugDescription)"
            case .dataCorrupted(let context), .keyNotFound(_, let context), .valueNotFound(_, let context):
                return context.debugDescription
            @unknown default:
                return nil
            }
        case let error as EncodingError:
            if case .invalidValue(_, let context) = error { return context.debugDescription }
            return nil
        default:
            return nil
        }
    }

    /// `data[3].user_name`; `top level` for an empty path.
    static func render(_ codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else { return "top level" }
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}
