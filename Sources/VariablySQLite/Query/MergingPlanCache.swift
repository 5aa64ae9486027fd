import Foundation

/// The ``MergingUpsertPlan``s of one table, by the entries they update: a pull updates the same
/// entries page after page, and building a plan (its SQL texts and slots) costs more than a page's
/// hashing of the key.
///
/// `@unchecked Sendable`: `plans` is only touched while `lock` is held.
final class MergingPlanCache: @unchecked Sendable {
    private let lock = NSLock()
    private var plans: [[Int]: MergingUpsertPlan] = [:]

    /// The plan for `entries`, made by `make` the first time.
    func plan(updating entries: [Int], _ make: () -> MergingUpsertPlan) -> MergingUpsertPlan {
        lock.lock()
        defer { lock.unlock() }
        if let plan = plans[entries] { return plan }
        let plan = make()
        plans[entries] = plan
        return plan
    }
}
