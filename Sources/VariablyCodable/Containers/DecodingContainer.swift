public import Foundation

/// Reads a model's properties by key path, through the key set of the source being decoded.
///
/// ```swift
/// init(from container: DecodingContainer<User>) throws {
///     id = try container.decode(\.id)
///     userName = try container.decode(\.userName)
///     nickname = try container.decode(\.nickname)                 // String?: nil if missing or null
///     age = try container.decode(\.age, default: 0)               // 0 if missing or null
/// }
/// ```
///
/// Every error is a ``VariablyCodingError`` naming the source, the key path, the keys tried and the
/// coding path. Asking for a key path that the source's key set does not list is a programming error
/// and traps with a message that says which key set to complete.
public struct DecodingContainer<Model> {
    /// The source being decoded.
    public let source: CodingSource
    /// The source's key set.
    @usableFromInline package let keySet: KeySet<Model>
    /// The storage the values come from.
    @usableFromInline package let backend: any KeySetDecodingBackend
    /// Whether some key has toolkit options; when `false`, decoding takes the plain path and costs
    /// what it cost before the toolkit existed (the decoder's options are only read after a failure).
    @usableFromInline let appliesOptions: Bool
    /// `backend` when it reads a Foundation decoder, whose reads are then inlined into the model's
    /// `init(from container:)` (no existential call, scalars through their concrete overloads).
    @usableFromInline let foundationBackend: FoundationDecodingBackend?
    /// For a reader of many rows: the key paths' entries, resolved on the first row (see
    /// ``KeyPathOrder``).
    @usableFromInline let keyPathOrder: KeyPathOrder?

    /// Creates a container over `backend`; coders call this, models receive the result.
    ///
    /// - Parameter keyPathOrder: Given by a reader of many rows, which calls its `startRow()` before
    ///   each row, so that each key path is looked up in the key set once.
    package init(
        source: CodingSource, keySet: KeySet<Model>, backend: any KeySetDecodingBackend,
        keyPathOrder: KeyPathOrder? = nil
    ) {
        self.source = source
        self.keySet = keySet
        self.backend = backend
        self.appliesOptions = keySet.hasEntryOptions
        self.foundationBackend = backend as? FoundationDecodingBackend
        self.keyPathOrder = keyPathOrder
    }

    /// The entry of `keyPath`; traps for a key path the key set does not map.
    @inlinable @inline(__always)
    func requiredEntry(of keyPath: AnyKeyPath) -> Int {
        guard let keyPathOrder else { return keySet.requireIndex(of: keyPath) }
        if let entry = keyPathOrder.recordedEntry(of: keyPath), entry >= 0 { return entry }
        let entry = keySet.requireIndex(of: keyPath)
        keyPathOrder.record(keyPath, entry: entry)
        return entry
    }

    /// The entry of `keyPath`, or `nil` for one the key set excludes; traps for a key path neither
    /// mapped nor excluded.
    @inlinable @inline(__always)
    func entryUnlessExcluded(of keyPath: AnyKeyPath) -> Int? {
        guard let keyPathOrder else { return keySet.indexUnlessExcluded(of: keyPath) }
        if let entry = keyPathOrder.recordedEntry(of: keyPath) { return entry >= 0 ? entry : nil }
        let entry = keySet.indexUnlessExcluded(of: keyPath)
        keyPathOrder.record(keyPath, entry: entry ?? -1)
        return entry
    }

    /// The decoder's toolkit options (`userInfo[.decodingOptions]`), if any.
    package var decodingOptions: DecodingOptions? {
        let userInfo = backend.userInfo
        return userInfo.isEmpty ? nil : userInfo[.decodingOptions] as? DecodingOptions
    }

    /// The coding path of the object being decoded.
    public var codingPath: [any CodingKey] { backend.codingPath }
    /// Context passed down from the coder.
    public var userInfo: [CodingUserInfoKey: Any] { backend.userInfo }

    /// Decodes a required property.
    ///
    /// - Throws: ``VariablyCodingError`` if no key is present, the value is `null` or has another type.
    @inlinable
    public func decode<Value: Decodable>(_ keyPath: KeyPath<Model, Value>) throws -> Value {
        try decode(Value.self, entry: requiredEntry(of: keyPath))
    }

    /// Decodes an optional property: `nil` when no key is present or the value is `null`.
    ///
    /// - Throws: ``VariablyCodingError`` if the value has another type.
    @inlinable
    public func decode<Wrapped: Decodable>(_ keyPath: KeyPath<Model, Wrapped?>) throws -> Wrapped? {
        try decodeIfPresent(keyPath)
    }

    /// Decodes a property if a key is present with a non-null value; `nil` for a property the source
    /// leaves out (`KeySet(_:excluding:)`).
    ///
    /// - Throws: ``VariablyCodingError`` if the value has another type.
    @inlinable
    public func decodeIfPresent<Value: Decodable>(_ keyPath: KeyPath<Model, Value>) throws -> Value? {
        guard let index = entryUnlessExcluded(of: keyPath) else { return nil }
        return try decodeIfPresent(Value.self, entry: index)
    }

    /// Decodes an optional property if a key is present with a non-null value.
    ///
    /// - Throws: ``VariablyCodingError`` if the value has another type.
    @inlinable
    public func decodeIfPresent<Wrapped: Decodable>(_ keyPath: KeyPath<Model, Wrapped?>) throws -> Wrapped? {
        guard let index = entryUnlessExcluded(of: keyPath) else { return nil }
        return try decodeIfPresent(Wrapped.self, entry: index)
    }

    /// Decodes a property, or returns `defaultValue` when no key is present, the value is `null`, or the
    /// source leaves the property out (`KeySet(_:excluding:)`).
    ///
    /// - Throws: ``VariablyCodingError`` if the value has another type.
    @inlinable
    public func decode<Value: Decodable>(
        _ keyPath: KeyPath<Model, Value>, default defaultValue: @autoclosure () -> Value
    ) throws -> Value {
        try decodeIfPresent(keyPath) ?? defaultValue()
    }

    /// Whether any key of the property is present in the data (even with `null`); `false` for a
    /// property the source leaves out (`KeySet(_:excluding:)`).
    public func contains(_ keyPath: KeyPath<Model, some Any>) -> Bool {
        guard let index = keySet.indexUnlessExcluded(of: keyPath) else { return false }
        return backend.contains(entry: index)
    }

    /// Decodes every entry of the key set by assigning it through its writable key path.
    ///
    /// Traps if an entry's key path is read-only.
    ///
    /// - Throws: ``VariablyCodingError`` for the first property that fails.
    package func decodeAll(into model: inout Model) throws {
        let coders = keySet.coders
        for index in coders.indices {
            try coders[index].decode(into: &model, from: self, entry: index)
        }
    }

    /// Decodes entry `index` of the key set as `Value`.
    ///
    /// - Throws: ``VariablyCodingError`` if no key is present, the value is `null` or has another type.
    @inlinable
    package func decode<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value {
        if appliesOptions, keySet.entryHasOptions[index] {
            return try decodeApplyingOptions(Value.self, entry: index, isRequired: true)!
        }
        do {
            if let foundationBackend { return try foundationBackend.decodeInlined(Value.self, entry: index) }
            return try decodeScalar(Value.self, entry: index)
        } catch {
            return try recover(from: error, Value.self, entry: index, isRequired: true)!
        }
    }

    /// Decodes entry `index` of the key set as `Value` if present and not `null`.
    ///
    /// - Throws: ``VariablyCodingError`` if the value has another type.
    @inlinable
    package func decodeIfPresent<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value? {
        if appliesOptions, keySet.entryHasOptions[index] {
            return try decodeApplyingOptions(Value.self, entry: index, isRequired: false)
        }
        do {
            if let foundationBackend { return try foundationBackend.decodeIfPresentInlined(Value.self, entry: index) }
            return try backend.decodeIfPresent(Value.self, entry: index)
        } catch {
            return try recover(from: error, Value.self, entry: index, isRequired: false)
        }
    }

    /// `backend`'s read of entry `index`, through its concrete method for the common scalars: once this
    /// container is specialized for `Value`, the type tests fold away and no generic call is left.
    @inlinable @inline(__always)
    func decodeScalar<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value {
        // Each cast is between identical types: the test before it says so.
        if Value.self == String.self { return unsafeBitCast(try backend.decodeString(entry: index), to: Value.self) }
        if Value.self == Int.self { return unsafeBitCast(try backend.decodeInt(entry: index), to: Value.self) }
        if Value.self == Int64.self { return unsafeBitCast(try backend.decodeInt64(entry: index), to: Value.self) }
        if Value.self == Double.self { return unsafeBitCast(try backend.decodeDouble(entry: index), to: Value.self) }
        if Value.self == Bool.self { return unsafeBitCast(try backend.decodeBool(entry: index), to: Value.self) }
        if Value.self == Date.self { return unsafeBitCast(try backend.decodeDate(entry: index), to: Value.self) }
        if Value.self == [String].self {
            return unsafeBitCast(try backend.decodeStrings(entry: index), to: Value.self)
        }
        return try backend.decode(Value.self, entry: index)
    }

    @usableFromInline
    func wrap(_ error: any Error, entry index: Int) -> any Error {
        // A nested key-set model already reported its own property, which is the more precise one.
        if error is VariablyCodingError { return error }
        return VariablyCodingError(
            error, source: source, modelType: Model.self, entry: keySet.entries[index], codingPath: codingPath)
    }
}

extension KeySet {
    @usableFromInline
    func requireIndex(of keyPath: AnyKeyPath) -> Int {
        if let index = index(of: keyPath) { return index }
        unmapped(keyPath)
    }

    /// The entry of `keyPath`, or `nil` when the key set leaves it out on purpose (`excluding:`): the
    /// optional reads then find nothing, as for an absent key. Traps for a key path neither mapped nor
    /// excluded.
    @usableFromInline
    func indexUnlessExcluded(of keyPath: AnyKeyPath) -> Int? {
        if let index = index(of: keyPath) { return index }
        if excludedKeyPaths.contains(where: { $0 == keyPath }) { return nil }
        unmapped(keyPath)
    }
}
