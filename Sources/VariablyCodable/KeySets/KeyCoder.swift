import Foundation

/// The typed operations behind one ``Key``: encoding a property's value and assigning a decoded one.
///
/// A `KeyCoder` is created by ``Key`` and keeps the property's value type, so that coders that need
/// it (a SQLite schema, a column binder) can use it without knowing the model.
///
/// `@unchecked Sendable`: subclasses are private, final and hold only `let`s: metatypes and key paths
/// that arrived as `Sendable` (key path objects are immutable once created).
package class KeyCoder<Model>: @unchecked Sendable {
    /// The property's declared type (`String?` for an optional string).
    package let valueType: Any.Type
    /// The type stored when present: the wrapped type for an optional, else ``valueType``.
    package let storedType: Any.Type
    /// Whether the property is an `Optional`, also when a transform of the whole optional
    /// (`ValueTransform<String?, String>`) makes it the stored type. Stored: the conformance check
    /// behind it costs a runtime look-up, and decoding asks for every value.
    package let isOptional: Bool
    /// Whether the key path can be written to, so that decoding can assign through it.
    package var isWritable: Bool { false }

    /// Options applied when encoding (transform, date strategy); empty for a coder made by ``Key``.
    let options: KeyOptions
    /// Whether ``options`` changes how values are written; checked first so plain keys stay fast.
    let encodesWithOptions: Bool

    init(valueType: Any.Type, storedType: Any.Type, options: KeyOptions) {
        self.valueType = valueType
        self.storedType = storedType
        self.isOptional = valueType != storedType || valueType is any OptionalProperty.Type
        self.options = options
        self.encodesWithOptions = options.affectsEncoding
    }

    /// The same coder, applying `options` when encoding.
    func withOptions(_ options: KeyOptions) -> KeyCoder<Model> {
        preconditionFailure("KeyCoder is abstract")
    }

    /// Whether values pass only through a transform: the property's type is not `Codable`.
    var needsTransform: Bool { false }

    /// The coder of the same property in a source whose style derives its key: the property's own
    /// coder, without the form another source's transform gave it (see ``ValueKeyCoder``).
    var derived: KeyCoder<Model> { self }

    /// The same coder without its date strategy: for a store whose column encoding already writes
    /// the strategy's form (SQLite), so that the value reaches the store as a `Date`.
    package func withoutDateStrategy() -> KeyCoder<Model> {
        guard options.dates != nil else { return self }
        var plain = options
        plain.dates = nil
        return withOptions(plain)
    }

    /// `value` converted exactly to ``storedType`` (an integer literal to `Int64`, ...), or `nil`.
    func convertToStored(_ value: Any) -> Any? {
        preconditionFailure("KeyCoder is abstract")
    }

    /// The stored type as a collection whose elements an ``ElementPolicy`` can filter, if it is one.
    var elementPolicyCollection: (any ElementPolicyDecodable.Type)? {
        storedType as? any ElementPolicyDecodable.Type
    }

    /// Whether the property stores one `Date` (optional or not).
    var storesDate: Bool { storedType == Date.self }

    /// Writes `value` after the transform or date strategy of ``options``.
    func encodeApplyingOptions<Value: Encodable>(_ value: Value, to sink: any KeySetEncodingSink, at index: Int) throws
    {
        if let transform = options.transform {
            try sink.encode(transform.encode(value), at: index)
        } else if let dates = options.dates, let date = value as? Date {
            let server = options.datesFollowServer ? sink.serverDateFormat(at: index) : nil
            let encoded =
                server?.value(for: date, defaultTimeZone: dates.defaultTimeZone) ?? dates.encodedValue(for: date)
            switch encoded {
            case .int(let number): try sink.encode(number, at: index)
            case .double(let number): try sink.encode(number, at: index)
            case .string(let text): try sink.encode(text, at: index)
            default: try sink.encode(value, at: index)
            }
        } else if let dates = options.dates, let list = value as? [Date] {
            try sink.encode(list.map { dates.encodedValue(for: $0) }, at: index)
        } else {
            try sink.encode(value, at: index)
        }
    }

    static func make<Value: Codable>(_ keyPath: any KeyPath<Model, Value> & Sendable) -> KeyCoder<Model> {
        ValueKeyCoder(keyPath)
    }

    static func make<Wrapped: Codable>(optional keyPath: any KeyPath<Model, Wrapped?> & Sendable) -> KeyCoder<Model> {
        OptionalKeyCoder(keyPath)
    }

    /// Reads the property from `model` and hands it to `sink` as entry `index`.
    ///
    /// - Throws: What the sink throws.
    package func encode(_ model: Model, to sink: any KeySetEncodingSink, at index: Int) throws {
        preconditionFailure("KeyCoder is abstract")
    }

    /// Decodes the property from `container` and assigns it to `model`.
    ///
    /// Traps if the key path is read-only: such a model decodes in its own `init(from:)`.
    ///
    /// - Throws: ``VariablyCodingError`` when the value is missing or invalid.
    package func decode(into model: inout Model, from container: DecodingContainer<Model>) throws {
        preconditionFailure("KeyCoder is abstract")
    }

    /// Decodes the property, entry `index` of the container's key set, and assigns it to `model`;
    /// skips the key-path lookup when the caller already knows the entry.
    ///
    /// - Throws: ``VariablyCodingError`` when the value is missing or invalid.
    package func decode(into model: inout Model, from container: DecodingContainer<Model>, entry index: Int) throws {
        preconditionFailure("KeyCoder is abstract")
    }

    func readOnly(_ keyPath: AnyKeyPath) -> Never {
        preconditionFailure(
            "\(keyPath) is read-only (a `let` or a computed property), so \(Model.self) cannot be decoded by "
                + "assigning key paths: make it a `var`, or implement `init(from container: DecodingContainer<\(Model.self)>)`."
        )
    }
}

private final class ValueKeyCoder<Model, Value: Codable>: KeyCoder<Model>, @unchecked Sendable {
    let keyPath: any KeyPath<Model, Value> & Sendable
    // Same object as `keyPath`, cast once: the runtime class of a key path tells whether it is writable.
    nonisolated(unsafe) let writable: WritableKeyPath<Model, Value>?
    /// Where a stored property of a struct lives (see ``StoredPropertyOffset``), or `nil`.
    let offset: Int?

    init(_ keyPath: any KeyPath<Model, Value> & Sendable, options: KeyOptions = KeyOptions()) {
        self.keyPath = keyPath
        self.writable = keyPath as? WritableKeyPath<Model, Value>
        self.offset = StoredPropertyOffset.of(keyPath)
        super.init(valueType: Value.self, storedType: Value.self, options: options)
    }

    override var isWritable: Bool { writable != nil }

    override func withOptions(_ options: KeyOptions) -> KeyCoder<Model> {
        ValueKeyCoder(keyPath, options: options)
    }

    /// An optional property keyed for a transform of the whole optional has this coder, whose stored
    /// type is the optional; elsewhere it is a plain optional: `nil` is `null`, a column is nullable.
    override var derived: KeyCoder<Model> {
        (Value.self as? any OptionalCodable.Type)?.makeOptionalKeyCoder(keyPath) ?? self
    }

    override func convertToStored(_ value: Any) -> Any? {
        DeclaredValue.convert(value, to: Value.self)
    }

    override func encode(_ model: Model, to sink: any KeySetEncodingSink, at index: Int) throws {
        let value = offset.map { StoredPropertyOffset.read(Value.self, at: $0, in: model) } ?? model[keyPath: keyPath]
        if encodesWithOptions {
            try encodeApplyingOptions(value, to: sink, at: index)
            return
        }
        try sink.encode(value, at: index)
    }

    override func decode(into model: inout Model, from container: DecodingContainer<Model>) throws {
        guard let writable else { readOnly(keyPath) }
        model[keyPath: writable] = try container.decode(keyPath)
    }

    override func decode(into model: inout Model, from container: DecodingContainer<Model>, entry index: Int) throws {
        guard let writable else { readOnly(keyPath) }
        let value = try container.decode(Value.self, entry: index)
        if let offset {
            StoredPropertyOffset.write(value, at: offset, in: &model)
        } else {
            model[keyPath: writable] = value
        }
    }
}

/// An `Optional` of a `Codable` value, which can make the plain coder of an optional property.
private protocol OptionalCodable {
    static func makeOptionalKeyCoder<Model, Value>(_ keyPath: any KeyPath<Model, Value> & Sendable) -> KeyCoder<Model>
}

extension Optional: OptionalCodable where Wrapped: Codable {
    static func makeOptionalKeyCoder<Model, Value>(_ keyPath: any KeyPath<Model, Value> & Sendable) -> KeyCoder<Model> {
        precondition(Value.self == Wrapped?.self, "\(keyPath) does not lead to a \(Wrapped?.self)")
        // `Value` is `Wrapped?`: the same key path, typed as what it is.
        return OptionalKeyCoder(unsafeBitCast(keyPath, to: (any KeyPath<Model, Wrapped?> & Sendable).self))
    }
}

private final class OptionalKeyCoder<Model, Wrapped: Codable>: KeyCoder<Model>, @unchecked Sendable {
    let keyPath: any KeyPath<Model, Wrapped?> & Sendable
    // Same object as `keyPath`, cast once (see ValueKeyCoder).
    nonisolated(unsafe) let writable: WritableKeyPath<Model, Wrapped?>?

    /// Where a stored property of a struct lives (see ``StoredPropertyOffset``), or `nil`.
    let offset: Int?

    init(_ keyPath: any KeyPath<Model, Wrapped?> & Sendable, options: KeyOptions = KeyOptions()) {
        self.keyPath = keyPath
        self.writable = keyPath as? WritableKeyPath<Model, Wrapped?>
        self.offset = StoredPropertyOffset.of(keyPath)
        super.init(valueType: Wrapped?.self, storedType: Wrapped.self, options: options)
    }

    override var isWritable: Bool { writable != nil }

    override func withOptions(_ options: KeyOptions) -> KeyCoder<Model> {
        OptionalKeyCoder(keyPath, options: options)
    }

    override func convertToStored(_ value: Any) -> Any? {
        DeclaredValue.convert(value, to: Wrapped.self)
    }

    override func encode(_ model: Model, to sink: any KeySetEncodingSink, at index: Int) throws {
        if let value = offset.map({ StoredPropertyOffset.read(Wrapped?.self, at: $0, in: model) })
            ?? model[keyPath: keyPath]
        {
            if encodesWithOptions {
                try encodeApplyingOptions(value, to: sink, at: index)
                return
            }
            try sink.encode(value, at: index)
        } else {
            try sink.encodeNil(at: index)
        }
    }

    override func decode(into model: inout Model, from container: DecodingContainer<Model>) throws {
        guard let writable else { readOnly(keyPath) }
        model[keyPath: writable] = try container.decode(keyPath)
    }

    override func decode(into model: inout Model, from container: DecodingContainer<Model>, entry index: Int) throws {
        guard let writable else { readOnly(keyPath) }
        let value = try container.decodeIfPresent(Wrapped.self, entry: index)
        if let offset {
            StoredPropertyOffset.write(value, at: offset, in: &model)
        } else {
            model[keyPath: writable] = value
        }
    }
}
