/// One thing lenient decoding did instead of failing, with where it happened.
///
/// ```swift
/// if case .defaultUsed(.missing) = event.kind { print(event.keyPath ?? "") }
/// ```
public struct DecodeEvent: Sendable, CustomStringConvertible {
    /// Why a default was used.
    ///
    /// ```swift
    /// report.events.filter { $0.kind == .defaultUsed(.null) }
    /// ```
    public enum DefaultTrigger: String, Sendable, Equatable {
        /// No key of the property was present.
        case missing
        /// The value was `null`.
        case null
        /// The value could not be decoded.
        case invalid
    }

    /// What happened.
    ///
    /// ```swift
    /// let removed = report.events.filter { $0.kind == .elementRemoved }.count
    /// ```
    public enum Kind: Sendable, Equatable {
        /// A declared default replaced a missing, null or invalid value.
        case defaultUsed(DefaultTrigger)
        /// An element of an array or dictionary failed and was left out.
        case elementRemoved
        /// An element of an array or dictionary failed and was replaced by the fallback.
        case elementReplaced
        /// A value of another kind was converted, e.g. `from: "string \"42\"", to: "Int"`.
        case coerced(from: String, to: String)
        /// An enum raw value no case has; the declared fallback case was used.
        case unknownEnumCase(rawValue: String)
    }

    /// What happened.
    public let kind: Kind
    /// The source being decoded, for key-set models.
    public let source: CodingSource?
    /// The model's type name, for key-set models.
    public let modelType: String?
    /// The property's key path, e.g. `"\User.age"`, for key-set models.
    public let keyPath: String?
    /// The property's name, e.g. `"age"`.
    public let propertyName: String?
    /// Where in the document it happened.
    public let codingPath: [AnyCodingKey]
    /// The error that was recovered from, as text (e.g. the failing element's error).
    public let detail: String?

    /// Creates an event; key-set decoding fills in the source and key path.
    package init(
        kind: Kind, source: CodingSource? = nil, modelType: String? = nil, keyPath: String? = nil,
        propertyName: String? = nil, codingPath: [any CodingKey], detail: String? = nil
    ) {
        self.kind = kind
        self.source = source
        self.modelType = modelType
        self.keyPath = keyPath
        self.propertyName = propertyName
        self.codingPath = codingPath.map { AnyCodingKey($0) }
        self.detail = detail
    }

    /// `User.age (remote): used the default for a missing value at age`
    public var description: String {
        var subject = modelType ?? "value"
        if let name = propertyName ?? keyPath { subject += ".\(name)" }
        if let source { subject += " (\(source))" }
        let what: String
        switch kind {
        case .defaultUsed(let trigger): what = "used the default for a \(trigger.rawValue) value"
        case .elementRemoved: what = "removed an element that failed to decode"
        case .elementReplaced: what = "replaced an element that failed to decode with the fallback"
        case .coerced(let from, let to): what = "coerced \(from) to \(to)"
        case .unknownEnumCase(let rawValue): what = "used the fallback case for unknown raw value \(rawValue)"
        }
        var text = "\(subject): \(what) at \(VariablyCodingError.render(codingPath))"
        if let detail { text += " (\(detail))" }
        return text
    }
}
