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
        var copy = self
        guard coder.storedType == Date.self || coder.storedType == [Date].self else {
            copy.problems.append(
                .optionDoesNotFit(
                    "dates(_:) applies to Date, Date? and [Date] properties; \(keyPath) is a \(coder.valueType)",
                    fix: "remove dates(_:) from this key, or give it a transform to a Date"))
            return copy
        }
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
    /// A value that cannot be converted exactly to the property's type is left out and reported by the
    /// key set (``KeySetProblem/Kind/optionDoesNotFit(_:fix:)``), which `migrate` throws.
    public func `default`<Value: Sendable>(ifMissing: Value? = nil, ifNull: Value? = nil, ifInvalid: Value? = nil)
        -> Key
    {
        var copy = self
        var box: SendableValue?
        if let ifMissing {
            box = copy.storedValue(ifMissing, for: "ifMissing")
            copy.options.defaultIfMissingBox = box
        }
        if let ifNull {
            box = copy.storedValue(ifNull, for: "ifNull")
            copy.options.defaultIfNullBox = box
        }
        if let ifInvalid {
            box = copy.storedValue(ifInvalid, for: "ifInvalid")
            copy.options.defaultIfInvalidBox = box
        }
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
        var copy = self
        guard let collection = coder.elementPolicyCollection else {
            copy.problems.append(
                .optionDoesNotFit(
                    "elements(_:) applies to arrays and dictionaries; \(keyPath) is a \(coder.valueType)",
                    fix: "remove elements(_:) from this key"))
            return copy
        }
        if case .fallback(let value) = policy, !collection.acceptsElement(value) {
            copy.problems.append(
                .optionDoesNotFit(
                    "the fallback \(value) (\(type(of: value))) is not an element of \(coder.storedType)",
                    fix: "give elements(.fallback(_:)) a value of the element type"))
            return copy
        }
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
        let box = copy.storedValue(fallback, for: "fallback")
        copy.options.unknownCaseFallbackBox = box
        return copy
    }

    /// Converts between the property's value and the value stored in this source, both ways.
    ///
    /// ```swift
    /// Key(\.tags, "tags").transform(.commaSeparated)          // "a,b" <-> ["a", "b"]
    /// ```
    public func transform<Value, Encoded: Codable>(_ transform: ValueTransform<Value, Encoded>) -> Key {
        var copy = self
        guard coder.storedType == Value.self else {
            copy.problems.append(
                .optionDoesNotFit(
                    "the transform converts \(Value.self), but \(keyPath) stores \(coder.storedType)",
                    fix: "give the key a ValueTransform<\(coder.storedType), ...>"))
            return copy
        }
        copy.options.transform = AnyValueTransform(transform)
        return copy
    }

    /// `value` converted exactly to the stored type, boxed; `nil`, with a problem recorded, when it
    /// cannot be.
    private mutating func storedValue(_ value: Any, for label: String) -> SendableValue? {
        guard let converted = coder.convertToStored(value) else {
            problems.append(
                .optionDoesNotFit(
                    "\(label): \(value) (\(type(of: value))) is not a \(coder.storedType), the type of \(keyPath)",
                    fix: "give \(label) a value of type \(coder.storedType)"))
            return nil
        }
        return SendableValue(value: converted)
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
