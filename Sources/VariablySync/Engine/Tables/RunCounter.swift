import Foundation

/// A count that the tasks of one run add to: the requests retried by a pull's fetch task (counted even
/// when the fetch fails), the records applied so far.
///
/// `@unchecked Sendable`: `count` is only touched while `lock` is held.
final class RunCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func add(_ amount: Int) {
        lock.withLock { count += amount }
    }
}
