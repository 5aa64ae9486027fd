import Foundation

/// Converts keys to one ``KeyStyle``, remembering every conversion: a payload repeats the same few
/// keys in every object, so after the first object each key costs one table lookup.
///
/// ```swift
/// let converter = KeyStyleConverter(.camelCase)
/// converter.convert("user_id")      // "userID"
/// converter.convert("HTTP_STATUS")  // "httpStatus"
/// ```
///
/// `@unchecked Sendable`: the only mutable state, `cache`, is read and written under `lock`.
package final class KeyStyleConverter: @unchecked Sendable {
    /// The style keys are converted to.
    package let style: KeyStyle
    private let lock = NSLock()
    private var cache: [String: String] = [:]
    // A payload with unbounded distinct keys (e.g. a dictionary keyed by ids) must not grow the table forever.
    private let capacity = 4096

    /// Creates a converter to `style`.
    ///
    /// ```swift
    /// let converter = KeyStyleConverter(.snakeCase)
    /// ```
    package init(_ style: KeyStyle) {
        self.style = style
    }

    /// `key`, written in any style, in ``style``.
    ///
    /// ```swift
    /// KeyStyleConverter(.snakeCase).convert("imageURL")   // "image_url"
    /// ```
    ///
    /// - Complexity: O(1) on average for a key seen before, O(n) in its length the first time.
    package func convert(_ key: String) -> String {
        lock.lock()
        if let converted = cache[key] {
            lock.unlock()
            return converted
        }
        lock.unlock()
        let converted = style.apply(to: key)
        lock.lock()
        if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
        cache[key] = converted
        lock.unlock()
        return converted
    }
}
