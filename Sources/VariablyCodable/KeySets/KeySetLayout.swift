/// Where each entry of a ``KeySet`` lives in a document: what coding backends need, without the
/// model's type, so that they are plain (non-generic) code on the hot path.
package final class KeySetLayout: Sendable {
    /// For each entry, its alternatives resolved to coding keys and nested containers.
    package let paths: [[ResolvedDataPath]]
    /// The objects nested paths pass through, parents before children.
    package let containers: [NestedContainerInfo]
    /// For each entry, its top-level key when it has exactly one alternative of one key, else `nil`.
    package let directKeys: [AnyCodingKey?]

    init(paths: [[ResolvedDataPath]], containers: [NestedContainerInfo]) {
        self.paths = paths
        self.containers = containers
        self.directKeys = paths.map { $0.count == 1 && $0[0].container == nil ? $0[0].leaf : nil }
    }
}

/// An alternative of a ``KeyEntry`` resolved for coding: its innermost key and the object holding it.
package struct ResolvedDataPath: Sendable {
    /// The key that holds the value.
    package let leaf: AnyCodingKey
    /// The index in ``KeySet/containers`` of the object holding ``leaf``, or `nil` for the top level.
    package let container: Int?
    /// The whole path.
    package let components: DataPath
}

/// An object that nested paths pass through, e.g. `data.profile` for `"data.profile.name"`.
package struct NestedContainerInfo: Sendable {
    /// The key of this object in its parent.
    package let key: AnyCodingKey
    /// The index of the parent object, or `nil` when the parent is the top level.
    package let parent: Int?
    /// The keys from the top level to this object.
    package let path: [String]
}
