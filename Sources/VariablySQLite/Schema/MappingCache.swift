import Foundation

/// One ``TableMapping`` per model type, built on first use.
///
/// `@unchecked Sendable`: `mappings` is only read and written while `lock` is held, and the
/// mappings it holds are immutable and `Sendable`.
final class MappingCache: @unchecked Sendable {
    static let shared = MappingCache()
    private let lock = NSLock()
    private var mappings: [ObjectIdentifier: any Sendable] = [:]

    func mapping<Model>(for type: Model.Type, make: () -> TableMapping<Model>) -> TableMapping<Model> {
        lock.lock()
        defer { lock.unlock() }
        if let mapping = mappings[ObjectIdentifier(type)] as? TableMapping<Model> { return mapping }
        let mapping = make()
        mappings[ObjectIdentifier(type)] = mapping
        return mapping
    }
}
