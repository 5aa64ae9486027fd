import Foundation

/// Finds, inside a captured value, a collection whose JSON form follows its iteration order: a `Set`
/// (an array in iteration order, which differs between equal sets) or a dictionary whose keys are not
/// `String`, `Int` or `CodingKeyRepresentable` (an array of keys and values, in iteration order).
/// Compared as JSON text, two equal values holding one of them with two or more members can differ,
/// so `==` on such a value is not translated. A dictionary with string-like keys is an object, whose
/// keys a JSON column sorts.
///
/// It walks the value as an `Encoder` sees it, writing nothing.
enum UnorderedCollectionProbe {
    /// A description of the first order-dependent collection in `value` (`"a Set<String>"`), if any.
    static func firstUnorderedCollection(in value: any Encodable) -> String? {
        // Most captured values are scalars (every element of a captured `IN` list): no walk needed.
        guard !isScalar(value) else { return nil }
        let encoder = ProbeEncoder()
        try? encoder.visit(value)
        return encoder.found
    }

    /// Whether `value` is itself such a collection with at least two members.
    static func unorderedDescription(of value: Any) -> String? {
        if let dictionary = value as? any ArrayEncodedDictionary {
            return dictionary.isEncodedAsArray && dictionary.count > 1 ? "a \(type(of: value))" : nil
        }
        guard isStoredAsArrayInIterationOrder(type(of: value)), let collection = value as? any Collection else {
            return nil
        }
        return collection.count > 1 ? "a \(type(of: value))" : nil
    }

    /// Whether `value` is a scalar, which holds no collection.
    static func isScalar(_ value: Any) -> Bool {
        value is String || value is Bool || value is any BinaryInteger || value is any BinaryFloatingPoint
    }

    /// Whether `type` is a `Set` (or another `SetAlgebra`) kept as its members, not as a raw value like
    /// an `OptionSet`.
    static func isStoredAsArrayInIterationOrder(_ type: Any.Type) -> Bool {
        type is any SetAlgebra.Type && !(type is any RawRepresentable.Type)
    }
}

/// The dictionaries `JSONEncoder` writes as arrays of keys and values.
protocol ArrayEncodedDictionary {
    var count: Int { get }
    var isEncodedAsArray: Bool { get }
}

extension Dictionary: ArrayEncodedDictionary {
    var isEncodedAsArray: Bool {
        !(Key.self == String.self || Key.self == Int.self || Key.self is any CodingKeyRepresentable.Type)
    }
}

/// The walking encoder: every nested value goes through ``visit(_:)``.
private final class ProbeEncoder: Encoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    var found: String?

    func visit(_ value: any Encodable) throws {
        // Scalars end the walk (the containers' generic `encode` stands for their scalar overloads too,
        // so encoding a scalar again would come back here).
        guard found == nil, !UnorderedCollectionProbe.isScalar(value) else { return }
        if let description = UnorderedCollectionProbe.unorderedDescription(of: value) {
            found = description
            return
        }
        try value.encode(to: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedProbe<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { UnkeyedProbe(encoder: self) }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueProbe(encoder: self) }
}

private struct KeyedProbe<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ProbeEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encoder.visit(value) }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(KeyedProbe<NestedKey>(encoder: encoder))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        UnkeyedProbe(encoder: encoder)
    }
    mutating func superEncoder() -> any Encoder { encoder }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
}

private struct UnkeyedProbe: UnkeyedEncodingContainer {
    let encoder: ProbeEncoder
    var codingPath: [any CodingKey] { [] }
    var count = 0

    mutating func encodeNil() throws { count += 1 }
    mutating func encode<T: Encodable>(_ value: T) throws {
        count += 1
        try encoder.visit(value)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        count += 1
        return KeyedEncodingContainer(KeyedProbe<NestedKey>(encoder: encoder))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        count += 1
        return UnkeyedProbe(encoder: encoder)
    }
    mutating func superEncoder() -> any Encoder { encoder }
}

private struct SingleValueProbe: SingleValueEncodingContainer {
    let encoder: ProbeEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.visit(value) }
}
