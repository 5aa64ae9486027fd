/// All key sets of a model, one per ``CodingSource``: the model's single declaration of its keys.
///
/// ```swift
/// extension User: VariablyCodable {
///     static let keySets = KeySets<User>(defaultSource: .remote) {
///         KeySet(.remote) {
///             Key(\.id, "id")
///             Key(\.userName, ["user_name", "username"])
///             Key(\.email, "contact.email_address")
///         }
///         KeySet(.local, style: .screamingSnakeCase)
///         KeySet(.sqlite, style: .snakeCase)
///     }
/// }
/// ```
public struct KeySets<Model>: Sendable {
    /// The source used when a coder names none.
    package let defaultSource: CodingSource?
    /// The sources, in declaration order.
    package let sources: [CodingSource]
    /// Every problem found in the declaration; empty when the key sets are sound. See ``validate()``.
    public let problems: [KeySetProblem]
    // A handful of sources: comparing short strings beats hashing them.
    private let keySets: [KeySet<Model>]

    /// Declares a model's key sets.
    ///
    /// - Parameters:
    ///   - defaultSource: The source used when a coder names none; without it such coding throws.
    ///   - content: One ``KeySet`` per source.
    public init(defaultSource: CodingSource? = nil, @DeclarationBuilder<KeySet<Model>> _ content: () -> [KeySet<Model>])
    {
        let declared = content()
        var problems: [KeySetProblem] = []
        // Every property any key set lists, in order of first appearance: what styled sets fill in.
        var allKeys: [Key<Model>] = []
        var seen = Set<SendableKeyPath>()
        for keySet in declared {
            for key in keySet.declaredKeys where seen.insert(SendableKeyPath(key.keyPath)).inserted {
                allKeys.append(key)
            }
        }
        var resolved: [CodingSource: KeySet<Model>] = [:]
        var sources: [CodingSource] = []
        for declaration in declared {
            guard resolved[declaration.source] == nil else {
                problems.append(KeySetProblem(.duplicateSource, source: declaration.source, keyPath: nil, key: nil))
                continue
            }
            let keySet = KeySet(resolving: declaration, allKeys: allKeys, problems: &problems)
            resolved[keySet.source] = keySet
            sources.append(keySet.source)
        }
        for source in sources {
            let keySet = resolved[source]!
            let excluded = Set(keySet.excludedKeyPaths.map { SendableKeyPath($0) })
            for key in allKeys
            where keySet.index(of: key.keyPath) == nil && !excluded.contains(SendableKeyPath(key.keyPath)) {
                problems.append(KeySetProblem(.missingKeyPath, source: source, keyPath: "\(key.keyPath)", key: nil))
            }
        }
        if let defaultSource, resolved[defaultSource] == nil {
            problems.append(KeySetProblem(.defaultSourceWithoutKeySet, source: defaultSource, keyPath: nil, key: nil))
        }
        self.defaultSource = defaultSource
        self.sources = sources
        self.keySets = sources.map { resolved[$0]! }
        self.problems = problems
    }

    /// The key set of `source`, or `nil` if the model declares none.
    package subscript(source: CodingSource) -> KeySet<Model>? {
        for keySet in keySets where keySet.source == source { return keySet }
        return nil
    }

    /// Throws if the declaration has problems: duplicate keys in a source, a property missing from a
    /// source, an empty key, a key used both as a value and as a nested object, a source declared twice,
    /// a property that is not `Codable` without a transform in a source whose style derives its key.
    ///
    /// ```swift
    /// @Test func keySetsAreComplete() throws {
    ///     try User.keySets.validate()
    /// }
    /// ```
    ///
    /// - Throws: ``KeySetValidationError`` listing every problem.
    public func validate() throws(KeySetValidationError) {
        if !problems.isEmpty {
            throw KeySetValidationError(modelType: "\(Model.self)", problems: problems)
        }
    }
}
