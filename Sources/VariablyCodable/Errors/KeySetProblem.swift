/// One problem in a model's key-set declaration, found by ``KeySets/validate()``.
public struct KeySetProblem: Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Hashable, Sendable {
        /// Two properties use the same key in one source.
        case duplicateKey(String, otherKeyPath: String)
        /// The same property is listed twice in one source.
        case duplicateKeyPath
        /// A property that other sources list has no key in this source (and is not excluded).
        case missingKeyPath
        /// A key, or a part of a nested path, is empty.
        case emptyKey
        /// A key holds a value for one property and is a nested object for another.
        case keyIsAlsoAnObject(String)
        /// Two key sets are declared for the same source.
        case duplicateSource
        /// The default source has no key set.
        case defaultSourceWithoutKeySet
        /// A property whose type is not `Codable` has a transform in another source only: this source's
        /// style derives its key without one, so its values can be neither written nor read here.
        case transformMissing
        /// A modifier does not fit the property (``Key/dates(_:)`` on a `String`, a default of another
        /// type, a transform of another type): it is left out. The first value says why, the second
        /// what to change.
        case optionDoesNotFit(String, fix: String)
        /// A style cannot derive the property's key: the key path prints no property name (a computed
        /// property, or a build without reflection metadata). The value says which.
        case underivableKey(String)
    }

    /// What is wrong.
    public let kind: Kind
    /// The source whose key set has the problem.
    public let source: CodingSource
    /// The property concerned, e.g. `\User.userName`.
    public let keyPath: String?
    /// The key concerned.
    public let key: SourceKey?

    init(_ kind: Kind, source: CodingSource, keyPath: String?, key: SourceKey?) {
        self.kind = kind
        self.source = source
        self.keyPath = keyPath
        self.key = key
    }

    /// What to change in the key sets.
    package var fix: String {
        switch kind {
        case .duplicateKey: "give one of the two properties another key in this source"
        case .duplicateKeyPath: "list the property once in this key set"
        case .missingKeyPath: "add a Key, a style, or list the property in `excluding:`"
        case .emptyKey: "give the property a key with no empty part"
        case .keyIsAlsoAnObject: "give the value or the nested object another key"
        case .duplicateSource: "declare one key set per source"
        case .defaultSourceWithoutKeySet: "declare a key set for the default source, or choose another one"
        case .transformMissing:
            "give the property a Key with a transform in this key set too, or list it in `excluding:`"
        case .optionDoesNotFit(_, let fix): fix
        case .underivableKey: "give the property an explicit key, `Key(\\.property, \"name\")`"
        }
    }

    public var description: String {
        let subject = keyPath ?? "key set"
        switch kind {
        case .duplicateKey(let path, let other):
            return "\(source): \(subject) uses key \"\(path)\", which \(other) already uses"
        case .duplicateKeyPath:
            return "\(source): \(subject) is listed more than once"
        case .missingKeyPath:
            return "\(source): \(subject) has no key (add a Key, a style, or list it in `excluding:`)"
        case .emptyKey:
            return "\(source): \(subject) has an empty key or an empty part in \(key.map { "\($0)" } ?? "its key")"
        case .keyIsAlsoAnObject(let prefix):
            return "\(source): \(subject) nests under \"\(prefix)\", which another property uses as a value"
        case .duplicateSource:
            return "\(source): more than one key set is declared for this source"
        case .defaultSourceWithoutKeySet:
            return "\(source): the default source has no key set"
        case .transformMissing:
            return "\(source): \(subject) is not Codable and has a transform only in another source (give it a "
                + "Key with a transform in this key set too, or list it in `excluding:`)"
        case .optionDoesNotFit(let reason, let fix):
            return "\(source): \(subject): \(reason) (\(fix))"
        case .underivableKey(let reason):
            return "\(source): \(subject): \(reason)"
        }
    }
}

/// Thrown by ``KeySets/validate()``: every problem in a model's key sets.
public struct KeySetValidationError: Error, CustomStringConvertible {
    /// The model, e.g. `"User"`.
    public let modelType: String
    /// The problems, in the order found.
    public let problems: [KeySetProblem]

    public var description: String {
        "Key sets of \(modelType) have \(problems.count) problem(s):\n"
            + problems.map { "  - \($0)" }.joined(separator: "\n")
    }
}
