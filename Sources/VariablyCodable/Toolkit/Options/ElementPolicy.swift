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
        if raw.isNull {
            return .failure(
                DecodingError.valueNotFound(
                    Element.self,
                    DecodingError.Context(codingPath: codingPath, debugDescription: "The element is null.")))
        }
        let converted: (value: Any, isCoerced: Bool)?
        do {
            converted = try LenientValue.convert(raw, to: Element.self, codingPath: codingPath)
        } catch let error as DecodingError {
            return .failure(error)
        }
        guard let (value, isCoerced) = converted, let element = value as? Element else {
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
        return .success(element)
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
                // A key's own fallback is checked when its key set is built; one that a `custom`
                // policy returns is only known now, and a wrong one must not stop the process.
                guard let element = value as? Element else {
                    throw DecodingError.typeMismatch(
                        Element.self,
                        DecodingError.Context(
                            codingPath: error.contextCodingPath,
                            debugDescription:
                                "The element policy's fallback \(value) (\(type(of: value))) is not a \(Element.self).",
                            underlyingError: error))
                }
                append(element)
                try onEvent(ElementEvent(kind: .elementReplaced, error: error))
            }
        }
    }
}
