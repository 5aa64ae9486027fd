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
