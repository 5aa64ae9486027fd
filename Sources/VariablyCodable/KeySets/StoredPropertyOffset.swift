/// Reads and writes a struct's stored property at its byte offset instead of through its key path.
///
/// Projecting a value through a key path at run time walks the key path's components (several hundred
/// instructions); for a stored property of a struct, `MemoryLayout.offset(of:)` gives its place in the
/// struct once, and reading it is then a load. Key paths with any other component (a class, a computed
/// property, an optional chain) have no offset and keep going through the key path.
enum StoredPropertyOffset {
    /// The byte offset of the property `keyPath` names inside `Model`, if it is stored inline.
    static func of<Model, Value>(_ keyPath: any KeyPath<Model, Value> & Sendable) -> Int? {
        MemoryLayout<Model>.offset(of: keyPath as PartialKeyPath<Model>)
    }

    /// The property of `model` at `offset`, which must come from ``of(_:)`` for a property of type `Value`.
    @inline(__always)
    static func read<Model, Value>(_ type: Value.Type, at offset: Int, in model: borrowing Model) -> Value {
        // `MemoryLayout.offset(of:)` documents that the property's memory is at this offset of the
        // value's bytes, bound to the property's type as part of the struct.
        withUnsafeBytes(of: model) { bytes in
            (bytes.baseAddress.unsafelyUnwrapped + offset).assumingMemoryBound(to: Value.self).pointee
        }
    }

    /// Assigns `value` to the property of `model` at `offset` (releasing the old value).
    @inline(__always)
    static func write<Model, Value>(_ value: Value, at offset: Int, in model: inout Model) {
        withUnsafeMutableBytes(of: &model) { bytes in
            (bytes.baseAddress.unsafelyUnwrapped + offset).assumingMemoryBound(to: Value.self).pointee = value
        }
    }
}
