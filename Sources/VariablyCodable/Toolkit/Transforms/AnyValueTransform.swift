/// A ``ValueTransform`` with its types erased, as stored in ``KeyOptions/transform`` so that any backend
/// can apply it.
///
/// ```swift
/// if let transform = entry.options.transform {
///     let value = try transform.decode(from: backend, entry: index)
/// }
/// ```
///
/// `@unchecked Sendable`: the metatypes are immutable, and the box is `Sendable`.
package struct AnyValueTransform: @unchecked Sendable {
    /// The property's type.
    package let valueType: Any.Type
    /// The type stored in the source.
    package let encodedType: any Codable.Type
    private let box: any TransformBox

    /// Erases `transform`.
    ///
    /// ```swift
    /// let erased = AnyValueTransform(ValueTransform.commaSeparated)
    /// ```
    package init<Value, Encoded: Codable>(_ transform: ValueTransform<Value, Encoded>) {
        valueType = Value.self
        encodedType = Encoded.self
        box = ConcreteTransformBox(transform: transform)
    }

    /// Reads entry `index` as the encoded type and converts it.
    ///
    /// ```swift
    /// let tags = try transform.decode(from: backend, entry: 3) as! [String]
    /// ```
    ///
    /// - Throws: What the backend or the transform throws.
    package func decode(from backend: any KeySetDecodingBackend, entry index: Int) throws -> Any {
        try box.decode(from: backend, entry: index)
    }

    /// Converts a stored value already read (of ``encodedType``), e.g. one lenient decoding converted.
    func decode(stored: Any) throws -> Any {
        try box.decode(stored: stored)
    }

    /// Converts a property value (of ``valueType``) to the value to store.
    ///
    /// ```swift
    /// try sink.encode(transform.encode(["a", "b"]), at: 3)
    /// ```
    ///
    /// - Throws: What the transform throws.
    package func encode(_ value: Any) throws -> any Encodable {
        try box.encode(value)
    }
}

private protocol TransformBox: Sendable {
    func decode(from backend: any KeySetDecodingBackend, entry index: Int) throws -> Any
    func decode(stored: Any) throws -> Any
    func encode(_ value: Any) throws -> any Encodable
}

private struct ConcreteTransformBox<Value, Encoded: Codable>: TransformBox {
    let transform: ValueTransform<Value, Encoded>

    func decode(from backend: any KeySetDecodingBackend, entry index: Int) throws -> Any {
        try transform.decode(backend.decode(Encoded.self, entry: index))
    }

    func decode(stored: Any) throws -> Any {
        guard let encoded = stored as? Encoded else {
            throw DecodingError.typeMismatch(
                Encoded.self,
                DecodingError.Context(codingPath: [], debugDescription: "\(stored) is not a \(Encoded.self)."))
        }
        return try transform.decode(encoded)
    }

    func encode(_ value: Any) throws -> any Encodable {
        try transform.encode(value as! Value)
    }
}
