import Foundation

/// The coder of a property whose type need not be `Codable` (a tuple, a plain struct): its key's
/// transform does the coding, both ways.
///
/// `@unchecked Sendable`: as the other coders, only `let`s: a key path that arrived as `Sendable`.
final class TransformedKeyCoder<Model, Value>: KeyCoder<Model>, @unchecked Sendable {
    let keyPath: any KeyPath<Model, Value> & Sendable
    // Same object as `keyPath`, cast once (see ValueKeyCoder).
    nonisolated(unsafe) let writable: WritableKeyPath<Model, Value>?

    init(_ keyPath: any KeyPath<Model, Value> & Sendable, options: KeyOptions = KeyOptions()) {
        self.keyPath = keyPath
        self.writable = keyPath as? WritableKeyPath<Model, Value>
        super.init(valueType: Value.self, storedType: Value.self, options: options)
    }

    override var isWritable: Bool { writable != nil }

    override var needsTransform: Bool { true }

    override func withOptions(_ options: KeyOptions) -> KeyCoder<Model> {
        TransformedKeyCoder(keyPath, options: options)
    }

    override func convertToStored(_ value: Any) -> Any? {
        value as? Value
    }

    override func encode(_ model: Model, to sink: any KeySetEncodingSink, at index: Int) throws {
        let value = model[keyPath: keyPath]
        guard let transform = options.transform else { throw missingTransform(value, keyPath) }
        try sink.encode(transform.encode(value), at: index)
    }

    override func decode(into model: inout Model, from container: DecodingContainer<Model>) throws {
        guard let writable else { readOnly(keyPath) }
        model[keyPath: writable] = try container.decode(keyPath)
    }

    override func decode(into model: inout Model, from container: DecodingContainer<Model>, entry index: Int) throws {
        guard let writable else { readOnly(keyPath) }
        model[keyPath: writable] = try container.decodeTransformed(Value.self, entry: index, isRequired: true)!
    }
}

/// ``TransformedKeyCoder`` for an optional property: `nil` is written as `null`.
///
/// `@unchecked Sendable`: as ``TransformedKeyCoder``.
final class OptionalTransformedKeyCoder<Model, Wrapped>: KeyCoder<Model>, @unchecked Sendable {
    let keyPath: any KeyPath<Model, Wrapped?> & Sendable
    // Same object as `keyPath`, cast once (see ValueKeyCoder).
    nonisolated(unsafe) let writable: WritableKeyPath<Model, Wrapped?>?

    init(_ keyPath: any KeyPath<Model, Wrapped?> & Sendable, options: KeyOptions = KeyOptions()) {
        self.keyPath = keyPath
        self.writable = keyPath as? WritableKeyPath<Model, Wrapped?>
        super.init(valueType: Wrapped?.self, storedType: Wrapped.self, options: options)
    }

    override var isWritable: Bool { writable != nil }

    override var needsTransform: Bool { true }

    override func withOptions(_ options: KeyOptions) -> KeyCoder<Model> {
        OptionalTransformedKeyCoder(keyPath, options: options)
    }

    override func convertToStored(_ value: Any) -> Any? {
        value as? Wrapped
    }

    override func encode(_ model: Model, to sink: any KeySetEncodingSink, at index: Int) throws {
        guard let value = model[keyPath: keyPath] else {
            try sink.encodeNil(at: index)
            return
        }
        guard let transform = options.transform else { throw missingTransform(value, keyPath) }
        try sink.encode(transform.encode(value), at: index)
    }

    override func decode(into model: inout Model, from container: DecodingContainer<Model>) throws {
        guard let writable else { readOnly(keyPath) }
        model[keyPath: writable] = try container.decode(keyPath)
    }

    override func decode(into model: inout Model, from container: DecodingContainer<Model>, entry index: Int) throws {
        guard let writable else { readOnly(keyPath) }
        model[keyPath: writable] = try container.decodeTransformed(Wrapped.self, entry: index, isRequired: false)
    }
}

/// The error of encoding a value whose type is not `Encodable` through a key without a transform
/// (a key another source's style derived).
private func missingTransform<Value>(_ value: Value, _ keyPath: AnyKeyPath) -> EncodingError {
    EncodingError.invalidValue(
        value,
        EncodingError.Context(
            codingPath: [],
            debugDescription: "\(Value.self) is not Encodable and this source's key of \(keyPath) has no transform."))
}
