// Foundation's coders answer `decode(String.self, forKey:)` directly, but route the generic
// `decode<T: Decodable>(_:forKey:)` through `T.init(from:)` and a single-value container, which costs
// several times more. Key-set backends are generic over the value type, so they dispatch scalars to
// the concrete overloads here. `Value.self == X.self` compares type metadata, and the bit casts are
// between a type and itself.

extension KeyedDecodingContainer {
    /// Decodes `Value`, calling the container's concrete overload for standard scalars.
    @inlinable @inline(__always)
    func decodeScalarAware<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        if Value.self == String.self { return unsafeBitCast(try decode(String.self, forKey: key), to: Value.self) }
        if Value.self == Int.self { return unsafeBitCast(try decode(Int.self, forKey: key), to: Value.self) }
        if Value.self == Int64.self { return unsafeBitCast(try decode(Int64.self, forKey: key), to: Value.self) }
        if Value.self == Double.self { return unsafeBitCast(try decode(Double.self, forKey: key), to: Value.self) }
        if Value.self == Bool.self { return unsafeBitCast(try decode(Bool.self, forKey: key), to: Value.self) }
        if Value.self == Int32.self { return unsafeBitCast(try decode(Int32.self, forKey: key), to: Value.self) }
        if Value.self == Float.self { return unsafeBitCast(try decode(Float.self, forKey: key), to: Value.self) }
        if Value.self == UInt64.self { return unsafeBitCast(try decode(UInt64.self, forKey: key), to: Value.self) }
        if Value.self == UInt.self { return unsafeBitCast(try decode(UInt.self, forKey: key), to: Value.self) }
        return try decode(Value.self, forKey: key)
    }

    /// Decodes `Value` if present and not null, calling the concrete overload for standard scalars.
    @inlinable @inline(__always)
    func decodeIfPresentScalarAware<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        if Value.self == String.self {
            return unsafeBitCast(try decodeIfPresent(String.self, forKey: key), to: Value?.self)
        }
        if Value.self == Int.self { return unsafeBitCast(try decodeIfPresent(Int.self, forKey: key), to: Value?.self) }
        if Value.self == Int64.self {
            return unsafeBitCast(try decodeIfPresent(Int64.self, forKey: key), to: Value?.self)
        }
        if Value.self == Double.self {
            return unsafeBitCast(try decodeIfPresent(Double.self, forKey: key), to: Value?.self)
        }
        if Value.self == Bool.self {
            return unsafeBitCast(try decodeIfPresent(Bool.self, forKey: key), to: Value?.self)
        }
        return try decodeIfPresent(Value.self, forKey: key)
    }
}

extension KeyedEncodingContainer {
    /// Encodes `value`, calling the container's concrete overload for standard scalars.
    @inline(__always)
    mutating func encodeScalarAware<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        if Value.self == String.self { return try encode(unsafeBitCast(value, to: String.self), forKey: key) }
        if Value.self == Int.self { return try encode(unsafeBitCast(value, to: Int.self), forKey: key) }
        if Value.self == Int64.self { return try encode(unsafeBitCast(value, to: Int64.self), forKey: key) }
        if Value.self == Double.self { return try encode(unsafeBitCast(value, to: Double.self), forKey: key) }
        if Value.self == Bool.self { return try encode(unsafeBitCast(value, to: Bool.self), forKey: key) }
        if Value.self == Int32.self { return try encode(unsafeBitCast(value, to: Int32.self), forKey: key) }
        if Value.self == Float.self { return try encode(unsafeBitCast(value, to: Float.self), forKey: key) }
        if Value.self == UInt64.self { return try encode(unsafeBitCast(value, to: UInt64.self), forKey: key) }
        if Value.self == UInt.self { return try encode(unsafeBitCast(value, to: UInt.self), forKey: key) }
        try encode(value, forKey: key)
    }
}
