/// The keys a model has in one ``CodingSource``, in declaration order.
///
/// Order matters: encoded objects and SQL columns follow it. A key set with a ``KeyStyle`` derives
/// the key of every property it does not list from the property's name, and includes every property
/// that any other key set of the model lists.
///
/// ```swift
/// KeySet(.remote) {
///     Key(\.id, "id")
///     Key(\.userName, ["user_name", "username"])
/// }
/// KeySet(.sqlite, style: .snakeCase)                  // every property, snake_case columns
/// KeySet(.local, style: .screamingSnakeCase, excluding: [\.avatarCache]) {
///     Key(\.email, "MAIL")
/// }
/// ```
public final class KeySet<Model>: Sendable {
    /// The source these keys belong to.
    package let source: CodingSource
    /// The style that derives keys not listed, if any.
    package let style: KeyStyle?
    /// The keys as declared, before a style filled in the rest.
    package let declaredKeys: [Key<Model>]
    /// Properties this source deliberately does not store.
    package let excludedKeyPaths: [any PartialKeyPath<Model> & Sendable]

    /// The resolved entries, in coding order.
    package let entries: [KeyEntry<Model>]
    /// Where each entry lives in a document, for coding backends.
    package let layout: KeySetLayout
    /// Each entry's coder, in entry order (a copy of `entries.map(\.coder)` that loops can walk without
    /// copying whole entries).
    package let coders: [KeyCoder<Model>]
    /// The objects that nested paths pass through; each entry's paths point into this table.
    package var containers: [NestedContainerInfo] { layout.containers }
    // Key path literals are uniqued by the runtime, so identity almost always answers; a linear scan
    // over a few identities is cheaper than hashing.
    private let identities: [ObjectIdentifier]
    private let indexByIdentity: [ObjectIdentifier: Int]
    private let indexByValue: [SendableKeyPath: Int]
    /// Toolkit options for every key of this source, set with modifiers such as ``lenient(_:)``; each
    /// key's own options override them.
    package let options: KeyOptions
    /// Whether anything a ``DecodeReport`` would record throws instead, for this source. See ``strict(_:)``.
    package let isStrict: Bool
    /// Whether some entry has options, so decoding must look at them; `false` keeps the plain path fast.
    @usableFromInline let hasEntryOptions: Bool
    /// By entry, whether it has options: the others take the plain path even where some entry has
    /// options (every `Date` of the remote source has its default strategy).
    @usableFromInline let entryHasOptions: [Bool]
    /// By entry, its date strategy when that is its only option (every remote `Date` by default): such
    /// a value is read without copying its whole entry.
    let entryDatesAlone: [DateCodingStrategy?]

    /// Declares the keys of one source.
    ///
    /// - Parameters:
    ///   - source: The source, e.g. `.remote`.
    ///   - style: Derives keys for properties not listed (from other key sets of the model).
    ///   - excluding: Properties this source does not store; validation does not ask for them.
    ///   - keys: The keys, one ``Key`` a line.
    public convenience init(
        _ source: CodingSource,
        style: KeyStyle? = nil,
        excluding: [any PartialKeyPath<Model> & Sendable] = [],
        @DeclarationBuilder<Key<Model>> keys: () -> [Key<Model>] = { [] }
    ) {
        var problems: [KeySetProblem] = []
        self.init(
            source: source, style: style, excluding: excluding, declaredKeys: keys(), options: KeyOptions(),
            isStrict: false, resolvingStyles: nil, problems: &problems)
    }

    /// The declaration `declaration` with other key-set-wide toolkit options.
    convenience init(_ declaration: KeySet, options: KeyOptions, isStrict: Bool) {
        var problems: [KeySetProblem] = []
        self.init(
            source: declaration.source, style: declaration.style, excluding: declaration.excludedKeyPaths,
            declaredKeys: declaration.declaredKeys, options: options, isStrict: isStrict, resolvingStyles: nil,
            problems: &problems)
    }

    /// The declaration `declaration` with style-derived keys filled in for `allKeys`.
    convenience init(resolving declaration: KeySet, allKeys: [Key<Model>], problems: inout [KeySetProblem]) {
        self.init(
            source: declaration.source, style: declaration.style, excluding: declaration.excludedKeyPaths,
            declaredKeys: declaration.declaredKeys, options: declaration.options, isStrict: declaration.isStrict,
            resolvingStyles: allKeys, problems: &problems)
    }

    /// Resolves a declaration. Until ``KeySets`` resolves it with `allKeys`, every property any key set
    /// of the model lists (what a style fills in), a key set has the entries it declares with explicit
    /// names.
    private init(
        source: CodingSource, style: KeyStyle?, excluding: [any PartialKeyPath<Model> & Sendable],
        declaredKeys: [Key<Model>], options: KeyOptions, isStrict: Bool, resolvingStyles allKeys: [Key<Model>]?,
        problems: inout [KeySetProblem]
    ) {
        self.source = source
        self.style = style
        self.excludedKeyPaths = excluding
        self.declaredKeys = declaredKeys
        self.options = options
        self.isStrict = isStrict
        var keys = declaredKeys.filter { $0.name != nil }
        if let allKeys {
            keys = declaredKeys
            if style != nil {
                let excluded = Set(excluding.map { SendableKeyPath($0) })
                let listed = Set(keys.map { SendableKeyPath($0.keyPath) })
                for key in allKeys {
                    let keyPath = SendableKeyPath(key.keyPath)
                    if !listed.contains(keyPath) && !excluded.contains(keyPath) { keys.append(key.withoutName) }
                }
            }
        }
        (entries, layout, indexByIdentity, indexByValue) = KeySet.resolve(
            source: source, style: style, keys: keys, options: options, problems: &problems)
        identities = entries.map { ObjectIdentifier($0.keyPath) }
        coders = entries.map(\.coder)
        entryHasOptions = entries.map { !$0.options.isEmpty }
        entryDatesAlone = entries.map { $0.options.hasOnlyDates ? $0.options.dates : nil }
        hasEntryOptions = entryHasOptions.contains(true)
    }

    /// The position of `keyPath` among ``entries``, or `nil` if this source has no key for it.
    ///
    /// - Complexity: O(1) on average.
    package func index(of keyPath: AnyKeyPath) -> Int? {
        let identity = ObjectIdentifier(keyPath)
        if identities.count <= 16 {
            for index in identities.indices where identities[index] == identity { return index }
        } else if let index = indexByIdentity[identity] {
            return index
        }
        return indexByValue[SendableKeyPath(keyPath)]
    }

    /// The entry for `keyPath`, or `nil` if this source has no key for it.
    package func entry(for keyPath: AnyKeyPath) -> KeyEntry<Model>? {
        index(of: keyPath).map { entries[$0] }
    }

    /// Traps with a message that says how to fix the key set.
    @usableFromInline
    func unmapped(_ keyPath: AnyKeyPath) -> Never {
        preconditionFailure(
            "\(keyPath) has no key in the \(source) key set of \(Model.self): add `Key(\(keyPath), \"...\")` "
                + "to `KeySet(.\(source))`, or give that key set a style."
        )
    }
}

// MARK: - Resolution

extension KeySet {
    private typealias Resolution = (
        entries: [KeyEntry<Model>], layout: KeySetLayout, byIdentity: [ObjectIdentifier: Int],
        byValue: [SendableKeyPath: Int]
    )

    /// Resolves keys to coding keys and nested containers, and builds the lookup tables.
    private static func resolve(
        source: CodingSource, style: KeyStyle?, keys: [Key<Model>], options: KeyOptions,
        problems: inout [KeySetProblem]
    ) -> Resolution {
        var entries: [KeyEntry<Model>] = []
        var containers: [NestedContainerInfo] = []
        var indexByIdentity: [ObjectIdentifier: Int] = [:]
        var indexByValue: [SendableKeyPath: Int] = [:]
        var containerIndex: [[String]: Int] = [:]
        // A source's default date strategy applies as if the key set declared it; a declared one wins.
        let datesDeclared = options.dates != nil
        var options = options
        if options.dates == nil { options.dates = source.defaultDateStrategy }
        func containerID(for parents: ArraySlice<String>) -> Int? {
            guard !parents.isEmpty else { return nil }
            let path = Array(parents)
            if let id = containerIndex[path] { return id }
            let parent = containerID(for: parents.dropLast())
            containers.append(NestedContainerInfo(key: AnyCodingKey(path[path.count - 1]), parent: parent, path: path))
            containerIndex[path] = containers.count - 1
            return containers.count - 1
        }
        for key in keys {
            let propertyName = KeySet.propertyName(of: key.keyPath)
            let name: SourceKey
            if let declared = key.name {
                name = declared
            } else {
                guard let propertyName else {
                    problems.append(
                        KeySetProblem(
                            .underivableKey(KeySet.cannotDeriveKey(for: key.keyPath, source: source)), source: source,
                            keyPath: "\(key.keyPath)", key: nil))
                    continue
                }
                let components = propertyName.split(separator: ".").map { style?.apply(to: String($0)) ?? String($0) }
                name = SourceKey(alternatives: [DataPath(components)])
            }
            if name.alternatives.isEmpty || !name.alternatives.allSatisfy(\.isWellFormed) {
                problems.append(KeySetProblem(.emptyKey, source: source, keyPath: "\(key.keyPath)", key: name))
                continue
            }
            if indexByValue[SendableKeyPath(key.keyPath)] != nil {
                problems.append(KeySetProblem(.duplicateKeyPath, source: source, keyPath: "\(key.keyPath)", key: name))
                continue
            }
            let paths = name.alternatives.map {
                ResolvedDataPath(leaf: AnyCodingKey($0.leaf), container: containerID(for: $0.parents), components: $0)
            }
            indexByValue[SendableKeyPath(key.keyPath)] = entries.count
            indexByIdentity[ObjectIdentifier(key.keyPath)] = entries.count
            for kind in key.problems {
                problems.append(KeySetProblem(kind, source: source, keyPath: "\(key.keyPath)", key: name))
            }
            var entryOptions = key.options.merged(
                over: options, storedType: key.coder.storedType, keyPath: key.keyPath, problems: &problems,
                source: source)
            entryOptions.datesFollowServer =
                !datesDeclared && key.options.dates == nil && entryOptions.dates != nil
                && key.coder.storesDate
            if key.coder.needsTransform && entryOptions.transform == nil {
                problems.append(KeySetProblem(.transformMissing, source: source, keyPath: "\(key.keyPath)", key: name))
            }
            var entry = KeyEntry(
                keyPath: key.keyPath, key: name, propertyName: propertyName, paths: paths,
                coder: entryOptions.isEmpty ? key.coder : key.coder.withOptions(entryOptions))
            entry.options = entryOptions
            entries.append(entry)
        }
        problems += duplicateKeyProblems(in: entries, source: source)
        let layout = KeySetLayout(paths: entries.map(\.paths), containers: containers)
        return (entries, layout, indexByIdentity, indexByValue)
    }

    private static func duplicateKeyProblems(in entries: [KeyEntry<Model>], source: CodingSource) -> [KeySetProblem] {
        var problems: [KeySetProblem] = []
        var owners: [DataPath: KeyEntry<Model>] = [:]
        for entry in entries {
            for path in entry.key.alternatives {
                if let owner = owners[path], owner.keyPath != entry.keyPath {
                    problems.append(
                        KeySetProblem(
                            .duplicateKey(path.description, otherKeyPath: "\(owner.keyPath)"), source: source,
                            keyPath: "\(entry.keyPath)", key: entry.key))
                } else {
                    owners[path] = entry
                }
            }
        }
        let leafPaths = Set(owners.keys.map(\.keys))
        for entry in entries {
            for path in entry.key.alternatives {
                for length in 1..<path.keys.count where leafPaths.contains(Array(path.keys.prefix(length))) {
                    let prefix = path.keys.prefix(length).joined(separator: ".")
                    problems.append(
                        KeySetProblem(
                            .keyIsAlsoAnObject(prefix), source: source, keyPath: "\(entry.keyPath)", key: entry.key))
                }
            }
        }
        return problems
    }

    /// Why `keyPath` has no name a ``KeyStyle`` could derive a key from, and how to fix the key set.
    private static func cannotDeriveKey(for keyPath: AnyKeyPath, source: CodingSource) -> String {
        if namesAreUnavailable(in: "\(keyPath)") {
            return
                ("Cannot derive a key for \(keyPath) in the \(source) key set of \(Model.self): this build has no "
                + "property names (it was built without reflection metadata, `-disable-reflection-metadata`), "
                + "so a KeyStyle cannot name its keys. Give every key of "
                + "`KeySet(.\(source))` an explicit name, `Key(\\.property, \"name\")`, or build with "
                + "reflection metadata.")
        }
        return "Cannot derive a key for \(keyPath) in the \(source) key set of \(Model.self) from its name: give it "
            + "one, `Key(\(keyPath), \"...\")`."
    }

    /// Whether `text`, a printed key path, lacks property names because the binary has no reflection
    /// metadata: the runtime then prints a stored property by its offset, `\User.<offset 8 (String)>`.
    static func namesAreUnavailable(in text: String) -> Bool {
        text.contains("<offset ")
    }

    /// `"userName"` for `\User.userName`, `"profile.name"` for `\User.profile.name`; `nil` when the
    /// key path does not print as plain property names (subscripts, tuple elements).
    static func propertyName(of keyPath: AnyKeyPath) -> String? {
        let text = "\(keyPath)"
        let rootPrefix = "\\\(Model.self)."
        var name: Substring
        if text.hasPrefix(rootPrefix) {
            name = text.dropFirst(rootPrefix.count)
        } else if let dot = text.firstIndex(of: ".") {
            name = text[text.index(after: dot)...]
        } else {
            return nil
        }
        let cleaned = name.filter { $0 != "?" && $0 != "!" }
        let isPlain = cleaned.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            guard let first = part.first, first.isLetter || first == "_" else { return false }
            return part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        }
        return isPlain ? String(cleaned) : nil
    }
}

/// A key path used as a dictionary key.
///
/// `@unchecked Sendable`: key path objects are immutable once created, and the only ones stored here
/// come from ``Key``, which takes them as `Sendable`.
struct SendableKeyPath: Hashable, @unchecked Sendable {
    let keyPath: AnyKeyPath

    init(_ keyPath: AnyKeyPath) {
        self.keyPath = keyPath
    }
}
