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

    /// Records `event`; the decoders call this. Inside ``speculatively(_:)`` the event waits until that
    /// decode is kept.
    package func record(_ event: DecodeEvent) {
        if let pending = Self.pending {
            pending.events.append((self, event))
            return
        }
        lock.lock()
        storage.append(event)
        lock.unlock()
    }

    /// The events of a decode that may still be abandoned, per task.
    @TaskLocal private static var pending: PendingEvents?

    /// Runs a decode that may be abandoned for another one (a plain attempt before a fallback): what
    /// it records reaches the reports only if it returns a value, so nothing is recorded twice.
    package static func speculatively<Value>(_ decode: () -> Value?) -> Value? {
        let pending = PendingEvents()
        guard let value = $pending.withValue(pending, operation: decode) else { return nil }
        // Into the enclosing speculative decode, if any, or into the reports.
        for (report, event) in pending.events { report.record(event) }
        return value
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

/// The events one speculative decode recorded, kept until it is known to be kept.
///
/// `@unchecked Sendable`: set and read by one synchronous decode, on the one thread running it,
/// within ``DecodeReport/speculatively(_:)``.
final class PendingEvents: @unchecked Sendable {
    var events: [(DecodeReport, DecodeEvent)] = []
}
