import Foundation

// MARK: - Toolkit modifiers

extension Key {
    /// Decodes this property leniently: `"42"` as an `Int`, `1` as a `Bool`, ... (see ``LenientScalar``).
    ///
    /// ```swift
    /// Key(\.age, "age").lenient()
    /// ```
    public func lenient(_ isLenient: Bool = true) -> Key {
        var copy = self
        copy.options.isLenient = isLenient
        return copy
    }

    /// Reads and writes this `Date`, `Date?` or `[Date]` property with `strategy`.
    ///
    /// ```swift
    /// Key(\.createdAt, "created_at").dates(.flexible)
    /// ```
    public func dates(_ strategy: DateCodingStrategy) -> Key {
        precondition(
            coder.storedType == Date.self || coder.storedType == [Date].self,
            "dates(_:) applies to Date, Date? and [Date] properties; \(keyPath) is a \(coder.valueType)")
        var copy = self
        copy.options.dates = strategy
        return copy
    }

    /// Values to use when the key is missing, the value is `null`, or it does not decode. Each is of
    /// the property's type (its wrapped type for an optional); leave one out to keep failing there.
    ///
    /// ```swift
    /// Key(\.age, "age").default(ifMissing: 0, ifNull: 0, ifInvalid: -1)
    /// Key(\.role, "role").default(ifMissing: Role.guest)
    /// ```
    ///
    /// Traps if a value cannot be converted exactly to the property's type.
    public func `default`<Value: Sendable>(ifMissing: Value? = nil, ifNull: Value? = nil, ifInvalid: Value? = nil)
        -> Key
    {
        var copy = self
        copy.options.defaultIfMissingBox = ifMissing.map { SendableValue(value: storedValue($0, for: "ifMissing")) }
        copy.options.defaultIfNullBox = ifNull.map { SendableValue(value: storedValue($0, for: "ifNull")) }
        copy.options.defaultIfInvalidBox = ifInvalid.map { SendableValue(value: storedValue($0, for: "ifInvalid")) }
        return copy
    }

    /// The same value for a missing key, `null`, and a value that does not decode.
    ///
    /// ```swift
    /// Key(\.score, "score").default(0.0)
    /// ```
    public func `default`<Value: Sendable>(_ value: Value) -> Key {
        self.default(ifMissing: value, ifNull: value, ifInvalid: value)
    }

    /// What to do with elements of this array or dictionary property that fail to decode.
    ///
    /// ```swift
    /// Key(\.tags, "tags").elements(.remove)
    /// ```
    public func elements(_ policy: ElementPolicy) -> Key {
        guard let collection = coder.elementPolicyCollection else {
            preconditionFailure("elements(_:) applies to arrays and dictionaries; \(keyPath) is a \(coder.valueType)")
        }
        if case .fallback(let value) = policy {
            precondition(
                collection.acceptsElement(value), "The fallback \(value) is not an element of \(coder.storedType)")
        }
        var copy = self
        copy.options.elementPolicy = policy
        return copy
    }

    /// Decodes an enum raw value that no case has as `fallback`, and records it in the report.
    ///
    /// ```swift
    /// Key(\.status, "status").decodingUnknownCases(as: Status.unknown)
    /// ```
    public func decodingUnknownCases<Value: Sendable>(as fallback: Value) -> Key {
        var copy = self
        copy.options.unknownCaseFallbackBox = SendableValue(value: storedValue(fallback, for: "fallback"))
        return copy
    }

    /// Converts between the property's value and the value stored in this source, both ways.
    ///
    /// ```swift
    /// Key(\.tags, "tags").transform(.commaSeparated)          // "a,b" <-> ["a", "b"]
    /// ```
    public func transform<Value, Encoded: Codable>(_ transform: ValueTransform<Value, Encoded>) -> Key {
        precondition(
            coder.storedType == Value.self,
            "The transform converts \(Value.self), but \(keyPath) stores \(coder.storedType)")
        var copy = self
        copy.options.transform = AnyValueTransform(transform)
        return copy
    }

    private func storedValue(_ value: Any, for label: String) -> Any {
        guard let converted = coder.convertToStored(value) else {
            preconditionFailure(
                "\(label): \(value) (\(type(of: value))) is not a \(coder.storedType), the type of \(keyPath)")
        }
        return converted
    }
}

// MARK: - Typed transforms

extension Key {
    /// Maps a property to a key with a transform whose types are inferred from the key path, so that
    /// generic transforms such as ``ValueTransform/numericString`` need no type annotation.
    ///
    /// ```swift
    /// Key(\.price, "price", transform: .numericString)      // "12.5" <-> 12.5
    /// ```
    public init<Value: Codable, Encoded: Codable>(
        _ keyPath: any KeyPath<Model, Value> & Sendable, _ name: SourceKey? = nil,
        transform: ValueTransform<Value, Encoded>
    ) {
        self = Key(keyPath, name).transform(transform)
    }

    /// Maps an optional property to a key with a transform of its wrapped value, types inferred.
    ///
    /// ```swift
    /// Key(\.discount, "discount", transform: .numericString)   // Double?
    /// ```
    public init<Wrapped: Codable, Encoded: Codable>(
        _ keyPath: any KeyPath<Model, Wrapped?> & Sendable, _ name: SourceKey? = nil,
        transform: ValueTransform<Wrapped, Encoded>
    ) {
        self = Key(keyPath, name).transform(transform)
    }

    /// Maps a property whose type is not `Codable` (a tuple, a plain struct) to a key: the transform
    /// does the coding, both ways.
    ///
    /// ```swift
    /// Key(\.location, "loc", transform: ValueTransform<(Double, Double), [Double]>(
    ///     decode: { ($0[0], $0[1]) }, encode: { [$0.0, $0.1] }))
    /// ```
    public init<Value, Encoded: Codable>(
        _ keyPath: any KeyPath<Model, Value> & Sendable, _ name: SourceKey? = nil,
        transform: ValueTransform<Value, Encoded>
    ) {
        self = Key(keyPath: keyPath, name: name, coder: TransformedKeyCoder(keyPath)).transform(transform)
    }

    /// Maps an optional property whose wrapped type is not `Codable` to a key, through a transform of
    /// its wrapped value.
    ///
    /// ```swift
    /// Key(\.home, "home", transform: pair)      // (Double, Double)?
    /// ```
    public init<Wrapped, Encoded: Codable>(
        _ keyPath: any KeyPath<Model, Wrapped?> & Sendable, _ name: SourceKey? = nil,
        transform: ValueTransform<Wrapped, Encoded>
    ) {
        self = Key(keyPath: keyPath, name: name, coder: OptionalTransformedKeyCoder(keyPath)).transform(transform)
    }
}
