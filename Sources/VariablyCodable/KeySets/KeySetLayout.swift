/// Where each entry of a ``KeySet`` lives in a document: what coding backends need, without the
/// model's type, so that they are plain (non-generic) code on the hot path.
public final class KeySetLayout: Sendable {
    /// For each entry, its alternatives resolved to coding keys and nested containers.
    public let paths: [[ResolvedKeyPath]]
    /// The objects nested paths pass through, parents before children.
    public let containers: [NestedContainerInfo]
    /// For each entry, its top-level key when it has exactly one alternative of one key, else `nil`.
    public let directKeys: [AnyCodingKey?]

    init(paths: [[ResolvedKeyPath]], containers: [NestedContainerInfo]) {
        self.paths = paths
        self.containers = containers
        self.directKeys = paths.map { $0.count == 1 && $0[0].container == nil ? $0[0].leaf : nil }
    }
}
