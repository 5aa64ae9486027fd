/// One line of a key set: a model's key path and the key it has in the source.
///
/// Write a `Key` inside a ``KeySet`` builder. Leave the name out to derive it from the property name
/// with the key set's ``KeyStyle``.
///
/// ```swift
/// KeySet(.remote, style: .snakeCase) {
///     Key(\.id)                                       // "id"
///     Key(\.userName, ["user_name", "username"])      // alternatives
///     Key(\.city, "address.city")                     // nested path
/// }
/// ```
public struct Key<Model>: Sendable {
    /// The model's property.
    package let keyPath: any PartialKeyPath<Model> & Sendable
    /// The key in the source, or `nil` to derive it from the property name.
    package let name: SourceKey?
    /// How values of this property are read and written.
    package let coder: KeyCoder<Model>
    /// The toolkit options set with modifiers such as ``lenient(_:)`` or ``dates(_:)``.
    package internal(set) var options = KeyOptions()
    /// Modifiers that do not fit the property (``dates(_:)`` on a `String`, a default of another type):
    /// left out of ``options`` and reported by the key set as problems, which `migrate` and
    /// `Repository.open` throw.
    package internal(set) var problems: [KeySetProblem.Kind] = []

    /// Maps a property to a key.
    ///
    /// - Parameters:
    ///   - keyPath: The property, e.g. `\.userName`.
    ///   - name: The key, a dotted path or alternatives; `nil` derives it from the property name.
    public init<Value: Codable>(_ keyPath: any KeyPath<Model, Value> & Sendable, _ name: SourceKey? = nil) {
        self.keyPath = keyPath
        self.name = name
        self.coder = .make(keyPath)
    }

    /// Maps an optional property to a key; a missing key or `null` decodes as `nil`.
    ///
    /// - Parameters:
    ///   - keyPath: The property, e.g. `\.nickname`.
    ///   - name: The key, a dotted path or alternatives; `nil` derives it from the property name.
    public init<Wrapped: Codable>(_ keyPath: any KeyPath<Model, Wrapped?> & Sendable, _ name: SourceKey? = nil) {
        self.keyPath = keyPath
        self.name = name
        self.coder = .make(optional: keyPath)
    }

    init(keyPath: any PartialKeyPath<Model> & Sendable, name: SourceKey?, coder: KeyCoder<Model>) {
        self.keyPath = keyPath
        self.name = name
        self.coder = coder
    }

    /// The same property with its key left to the key set's style (and without this source's options).
    var withoutName: Key { Key(keyPath: keyPath, name: nil, coder: coder.derived) }
}
