import Foundation

/// Everything lenient decoding did instead of failing: defaults used, elements removed or replaced,
/// values coerced, unknown enum cases. Nothing is dropped silently.
///
/// Attach a report to a decoder, decode, then read ``events``:
///
/// ```swift
/// let report = DecodeReport()
/// let decoder = JSONDecoder(source: .remote)
/// decoder.decodingOptions.report = report
/// let users = try decoder.decode([User].self, from: data)
/// for event in report.events {
///     print(event)   // User.age (remote, key "age"): used the default for a null value at [3].age
/// }
/// ```
///
/// `@unchecked Sendable`: the only mutable state, `storage`, is read and written under `lock`.
public final class DecodeReport: @unchecked Sendable, CustomStringConvertible {
    private let lock = NSLock()
    private var storage: [DecodeEvent] = []

    /// Creates an empty report.
    ///
    /// ```swift
    /// let report = DecodeReport()
    /// ```
    public init() {}

    /// The events, in the order they happened.
    ///
    /// ```swift
    /// #expect(report.events.isEmpty)
    /// ```
    public var events: [DecodeEvent] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }

    /// Whether nothing was recorded.
    ///
    /// ```swift
    /// if report.isEmpty { print("clean payload") }
    /// ```
    public var isEmpty: Bool { events.isEmpty }

    /// Records `event`; the decoders call this.
    package func record(_ event: DecodeEvent) {
        lock.lock()
        storage.append(event)
        lock.unlock()
    }

    /// Forgets every event.
    ///
    /// ```swift
    /// report.removeAll()
    /// ```
    public func removeAll() {
        lock.lock()
        storage.removeAll()
        lock.unlock()
    }

    /// One event a line.
    public var description: String {
        events.map(\.description).joined(separator: "\n")
    }
}
