/// One resolved line of a ``KeySet``.
package struct KeyEntry<Model>: Sendable {
    /// The model's property.
    package let keyPath: any PartialKeyPath<Model> & Sendable
    /// The key in the source, alternatives first to last.
    package let key: SourceKey
    /// The property's name as written in Swift (`"userName"`), when the key path prints one.
    package let propertyName: String?
    /// The alternatives, resolved to coding keys and nested containers.
    package let paths: [ResolvedDataPath]
    /// Typed operations for the property's value.
    package let coder: KeyCoder<Model>
    /// The toolkit options of this key, merged over its key set's; empty for a plain key.
    package internal(set) var options = KeyOptions()
}
