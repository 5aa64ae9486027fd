import Foundation
import VariablyCodable

// MARK: - Encoding the initial table

extension SimulatedServer {
    /// Records encoded together on every core when the server is created: large enough to keep the
    /// cores busy, small enough that a batch's copies stay a few megabytes.
    static var encodingBatchSize: Int { 16_384 }

    /// The JSON of each of `models`, in order, encoded on up to every core.
    ///
    /// - Throws: The error of the first model, in order, that fails to encode.
    /// - Complexity: O(n) encodes, spread over the cores.
    static func encodeConcurrently(_ models: [Model], with encoder: KeySetJSONEncoder) throws -> [Data] {
        let parts = min(ProcessInfo.processInfo.activeProcessorCount, models.count / 1_024)
        guard parts > 1 else { return try models.map(encoder.encode) }
        let results = PartResults(count: parts)
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let range = (models.count * part / parts)..<(models.count * (part + 1) / parts)
            results.store(Result { try models[range].map(encoder.encode) }, at: part)
        }
        var encoded: [Data] = []
        encoded.reserveCapacity(models.count)
        for part in results.values { encoded += try part.get() }
        return encoded
    }
}

/// The results of the parts of a concurrent encode, one slot per part.
///
/// `@unchecked Sendable`: `slots` is only touched while holding `lock`, and read after
/// `concurrentPerform` has returned.
private final class PartResults: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<[Data], any Error>?]

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
    }

    func store(_ result: Result<[Data], any Error>, at index: Int) {
        lock.withLock { slots[index] = result }
    }

    var values: [Result<[Data], any Error>] {
        lock.withLock { slots.map { $0! } }
    }
}
