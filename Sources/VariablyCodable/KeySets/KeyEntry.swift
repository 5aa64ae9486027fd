/// One resolved line of a ``KeySet``.
public struct KeyEntry<Model>: Sendable {
    /// The model's property.
    public let keyPath: any PartialKeyPath<Model> & Sendable
    /// The key in the source, alternatives first to last.
    public let key: SourceKey
    /// The property's name as written in Swift (`"userName"`), when the key path prints one.
    public let propertyName: String?
    /// The alternatives, resolved to coding keys and nested containers.
    package let paths: [ResolvedDataPath]
    /// Typed operations for the property's value.
    package let coder: KeyCoder<Model>
    /// The toolkit options of this key, merged over its key set's; empty for a plain key.
    package internal(set) var options = KeyOptions()
}
