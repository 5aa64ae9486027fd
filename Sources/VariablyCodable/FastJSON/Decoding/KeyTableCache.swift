import Foundation

/// What every decode can share: the ``KeyTableLayout`` of each key set, and how each type decodes
/// (built once, then looked up under a lock instead of rebuilt or asked of the runtime on every call).
///
/// `@unchecked Sendable`: the dictionaries are only read and written while `lock` is held, and what
/// they hold is immutable (layouts are `Sendable`; routes hold metatypes).
final class KeyTableCache: @unchecked Sendable {
    static let shared = KeyTableCache()

    private let lock = NSLock()
    /// Layouts by key set; a layout holds its key set, so an identifier is never reused while cached.
    private var layouts: [ObjectIdentifier: KeyTableLayout] = [:]
    private var routes: [ObjectIdentifier: ValueRoute] = [:]
    /// Key sets made at run time (not `static let`s) would otherwise accumulate.
    private let capacity = 4_096

    /// The layout of `keySet`, built on first use.
    func layout<Model>(for keySet: KeySet<Model>) -> KeyTableLayout {
        let key = ObjectIdentifier(keySet)
        lock.lock()
        if let layout = layouts[key] {
            lock.unlock()
            return layout
        }
        lock.unlock()
        let layout = KeyTableLayout(keySet: keySet)
        lock.lock()
        defer { lock.unlock() }
        if layouts.count >= capacity { layouts.removeAll() }
        if let existing = layouts[key] { return existing }
        layouts[key] = layout
        return layout
    }

    /// How values of `type` decode when they are none of the types the session reads directly.
    func route<T: Decodable>(for type: T.Type) -> ValueRoute {
        let key = ObjectIdentifier(T.self)
        lock.lock()
        if let route = routes[key] {
            lock.unlock()
            return route
        }
        lock.unlock()
        let route: ValueRoute
        if let models = T.self as? any KeySetModelArray.Type {
            route = .modelArray(models)
        } else if let model = T.self as? any VariablyDecodable.Type {
            route = .model(model)
        } else {
            route = .decodable
        }
        lock.lock()
        defer { lock.unlock() }
        if routes.count >= capacity { routes.removeAll() }
        routes[key] = route
        return route
    }
}
