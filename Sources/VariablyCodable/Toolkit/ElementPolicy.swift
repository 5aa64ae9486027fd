/// What to do with an element of an array or dictionary that fails to decode.
///
/// A policy applies to the failing element only: the elements around it decode normally.
///
/// ```swift
/// Key(\.tags, "tags").elements(.remove)                         // drop bad elements
/// Key(\.scores, "scores").elements(.fallback(0))                // replace them
/// Key(\.ids, "ids").elements(.custom { error in                 // decide per error
///     if case .valueNotFound = error { return .remove }
///     return .fail
/// })
/// ```
public enum ElementPolicy: Sendable {
    /// Throw the element's error (the default).
    case fail
    /// Leave the element out.
    case remove
    /// Use this value instead; it must have the element's type.
    case fallback(any Sendable)
    /// Decide from the element's error; the closure runs once per failing element.
    case custom(@Sendable (DecodingError) -> ElementPolicy)

    /// The policy to apply for `error`, with `custom` resolved (a custom policy answering `custom`
    /// again counts as `fail`).
    func resolved(for error: DecodingError) -> ElementPolicy {
        guard case .custom(let decide) = self else { return self }
        let decided = decide(error)
        if case .custom = decided { return .fail }
        return decided
    }
}

/// The outcome of decoding one element, so that a failure does not stop the container from moving on
/// to the next element.
struct ElementResult<Element: Decodable>: Decodable {
    let result: Result<Element, DecodingError>

    init(from decoder: any Decoder) {
        do {
            result = .success(try decoder.singleValueContainer().decode(Element.self))
        } catch let error as DecodingError {
            result = .failure(error)
        } catch {
            result = .failure(
                DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: decoder.codingPath, debugDescription: "\(error)", underlyingError: error)))
        }
    }
}

/// A collection whose elements an ``ElementPolicy`` can filter: arrays, and dictionaries keyed by
/// strings or integers.
protocol ElementPolicyDecodable {
    /// Whether `value` can stand in for an element.
    static func acceptsElement(_ value: Any) -> Bool
    /// Whether the elements are ``LenientScalar``s, which lenient decoding converts one by one.
    static var hasLenientElements: Bool { get }
    /// Decodes the collection converting each element leniently, applying `policy` to elements that
    /// cannot be converted and telling `onEvent` about coercions too; `nil` if the elements are not
    /// lenient scalars.
    static func decodeLeniently(
        policy: ElementPolicy, codingPath: [any CodingKey], using decode: (any Decodable.Type) throws -> Any,
        onEvent: (ElementEvent) throws -> Void
    ) throws -> Self?
    /// Decodes the collection from `decode`'s result, applying `policy` to each failing element and
    /// telling `onEvent` about every element removed or replaced.
    static func decode(
        policy: ElementPolicy, using decode: (any Decodable.Type) throws -> Any,
        onEvent: (ElementEvent) throws -> Void
    ) throws -> Self
}

/// An element removed, replaced or coerced.
struct ElementEvent {
    let kind: DecodeEvent.Kind
    /// The element's error; for a coercion, the error strict mode throws.
    let error: DecodingError

    /// The recovered error, for the report (a coercion recovered from none).
    var detail: String? {
        if case .coerced = kind { return nil }
        return "\(error)"
    }
}

extension ElementPolicy {
    /// Converts one raw element leniently: the value, or the error a policy decides on; reports a coercion.
    static func convertLeniently<Element>(
        _ raw: JSONValue, to type: Element.Type, codingPath: [any CodingKey], onEvent: (ElementEvent) throws -> Void
    ) throws -> Result<Element, DecodingError> {
        guard let scalar = Element.self as? any LenientScalar.Type else {
            preconditionFailure("\(Element.self) is not a LenientScalar")
        }
        if raw.isNull {
            return .failure(
                DecodingError.valueNotFound(
                    Element.self, DecodingError.Context(codingPath: codingPath, debugDescription: "The element is null.")))
        }
        guard let (value, isCoerced) = scalar.lenientValue(from: raw) else {
            return .failure(
                DecodingError.typeMismatch(
                    Element.self,
                    DecodingError.Context(
                        codingPath: codingPath,
                        debugDescription: "Cannot convert \(raw.kindName) \(raw) to \(Element.self) without loss.")))
        }
        if isCoerced {
            let strictError = DecodingError.typeMismatch(
                Element.self,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "Strict mode: refused to coerce \(raw.kindName) \(raw) to \(Element.self)."))
            try onEvent(
                ElementEvent(kind: .coerced(from: "\(raw.kindName) \(raw)", to: "\(Element.self)"), error: strictError))
        }
        return .success(value as! Element)
    }

    /// Applies the policy to the elements of `results`, in order.
    static func apply<Element>(
        _ policy: ElementPolicy, to result: Result<Element, DecodingError>, append: (Element) -> Void,
        onEvent: (ElementEvent) throws -> Void
    ) throws {
        switch result {
        case .success(let element):
            append(element)
        case .failure(let error):
            switch policy.resolved(for: error) {
            case .fail, .custom:
                throw error
            case .remove:
                try onEvent(ElementEvent(kind: .elementRemoved, error: error))
            case .fallback(let value):
                guard let element = value as? Element else {
                    preconditionFailure("The fallback \(value) is not a \(Element.self)")
                }
                append(element)
                try onEvent(ElementEvent(kind: .elementReplaced, error: error))
            }
        }
    }
}

extension Array: ElementPolicyDecodable where Element: Decodable {
    static func acceptsElement(_ value: Any) -> Bool { value is Element }

    static var hasLenientElements: Bool { Element.self is any LenientScalar.Type }

    static func decodeLeniently(
        policy: ElementPolicy, codingPath: [any CodingKey], using decode: (any Decodable.Type) throws -> Any,
        onEvent: (ElementEvent) throws -> Void
    ) throws -> [Element]? {
        guard hasLenientElements else { return nil }
        let raws = try decode([JSONValue].self) as! [JSONValue]
        var elements: [Element] = []
        elements.reserveCapacity(raws.count)
        for (index, raw) in raws.enumerated() {
            let path = codingPath + [AnyCodingKey(intValue: index)]
            let result = try ElementPolicy.convertLeniently(raw, to: Element.self, codingPath: path, onEvent: onEvent)
            try ElementPolicy.apply(policy, to: result, append: { elements.append($0) }, onEvent: onEvent)
        }
        return elements
    }

    static func decode(
        policy: ElementPolicy, using decode: (any Decodable.Type) throws -> Any,
        onEvent: (ElementEvent) throws -> Void
    ) throws -> [Element] {
        let results = try decode([ElementResult<Element>].self) as! [ElementResult<Element>]
        var elements: [Element] = []
        elements.reserveCapacity(results.count)
        for element in results {
            try ElementPolicy.apply(policy, to: element.result, append: { elements.append($0) }, onEvent: onEvent)
        }
        return elements
    }
}

extension Dictionary: ElementPolicyDecodable where Key: Decodable & Hashable, Value: Decodable {
    static func acceptsElement(_ value: Any) -> Bool { value is Value }

    static var hasLenientElements: Bool { Value.self is any LenientScalar.Type }

    static func decodeLeniently(
        policy: ElementPolicy, codingPath: [any CodingKey], using decode: (any Decodable.Type) throws -> Any,
        onEvent: (ElementEvent) throws -> Void
    ) throws -> [Key: Value]? {
        guard hasLenientElements else { return nil }
        let raws = try decode([Key: JSONValue].self) as! [Key: JSONValue]
        var members: [Key: Value] = [:]
        members.reserveCapacity(raws.count)
        for (key, raw) in raws {
            let path = codingPath + [AnyCodingKey("\(key)")]
            let result = try ElementPolicy.convertLeniently(raw, to: Value.self, codingPath: path, onEvent: onEvent)
            try ElementPolicy.apply(policy, to: result, append: { members[key] = $0 }, onEvent: onEvent)
        }
        return members
    }

    static func decode(
        policy: ElementPolicy, using decode: (any Decodable.Type) throws -> Any,
        onEvent: (ElementEvent) throws -> Void
    ) throws -> [Key: Value] {
        let results = try decode([Key: ElementResult<Value>].self) as! [Key: ElementResult<Value>]
        var members: [Key: Value] = [:]
        members.reserveCapacity(results.count)
        for (key, member) in results {
            try ElementPolicy.apply(policy, to: member.result, append: { members[key] = $0 }, onEvent: onEvent)
        }
        return members
    }
}

extension DecodingError {
    /// The coding path of the error's context.
    var contextCodingPath: [any CodingKey] {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            return context.codingPath
        @unknown default:
            return []
        }
    }
}
