import Foundation

/// A collection whose elements an ``ElementPolicy`` can filter: arrays, and dictionaries keyed by
/// strings or integers.
protocol ElementPolicyDecodable {
    /// Whether `value` can stand in for an element.
    static func acceptsElement(_ value: Any) -> Bool
    /// Whether the elements are ``LenientScalar``s (or enums stored by one), which lenient decoding
    /// converts one by one.
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

extension Array: ElementPolicyDecodable where Element: Decodable {
    static func acceptsElement(_ value: Any) -> Bool { value is Element }

    static var hasLenientElements: Bool { LenientValue.isScalar(Element.self) }

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

    static var hasLenientElements: Bool { LenientValue.isScalar(Value.self) }

    static func decodeLeniently(
        policy: ElementPolicy, codingPath: [any CodingKey], using decode: (any Decodable.Type) throws -> Any,
        onEvent: (ElementEvent) throws -> Void
    ) throws -> [Key: Value]? {
        guard hasLenientElements else { return nil }
        let raws = try decode([Key: JSONValue].self) as! [Key: JSONValue]
        var members: [Key: Value] = [:]
        members.reserveCapacity(raws.count)
        // In key order, not the dictionary's hash order: reports and strict-mode errors are the same on
        // every backend and every run.
        for (key, raw) in raws.sorted(by: { "\($0.key)" < "\($1.key)" }) {
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
        for (key, member) in results.sorted(by: { "\($0.key)" < "\($1.key)" }) {
            try ElementPolicy.apply(policy, to: member.result, append: { members[key] = $0 }, onEvent: onEvent)
        }
        return members
    }
}
