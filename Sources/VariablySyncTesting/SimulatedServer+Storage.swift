import Foundation
import VariablyCodable
import VariablySync

// MARK: - Storage, faults and key renames

extension SimulatedServer {
    func beginRequest() async throws {
        try await Task.sleep(for: faults.latency)
        if roll(faults.transientErrorRate) {
            statistics.transientErrors += 1
            throw RemoteSourceError.transient("simulated transient failure")
        }
    }

    func roll(_ probability: Double) -> Bool {
        guard probability > 0 else { return false }
        return Double.random(in: 0..<1, using: &random) < probability
    }

    func version(of cursor: SyncCursor?) throws -> Int64 {
        guard let cursor else { return 0 }
        guard let version = Int64(cursor.rawValue), version >= 0, version <= feed.clock else {
            throw RemoteSourceError.invalidCursor(cursor)
        }
        return version
    }

    func firstLogIndex(after version: Int64) -> Int {
        var low = 0
        var high = feed.logVersions.count
        while low < high {
            let middle = (low + high) / 2
            if feed.logVersions[middle] <= version { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Stores `model` as a new write: O(1) plus one encode.
    func write(_ model: Model) throws {
        lastWriterKey[model.id] = nil
        feed.write(try encoder.encode(model), for: model.id)
    }

    /// Replaces the record with `id` by a tombstone: O(1).
    func tombstone(_ id: Model.ID) {
        lastWriterKey[id] = nil
        feed.write(nil, for: id)
    }

    /// The model stored in `row`, or `nil` for a tombstone: one decode of the stored JSON.
    func model(of row: ChangeFeed<Model.ID>.Row) -> Model? {
        guard let json = row.json else { return nil }
        return try? storedDecoder.decode(Model.self, from: json)
    }

    /// The JSON a client receives for a stored record: the key renames applied.
    func served(_ json: Data?) -> Data? {
        json.map(keyRenames.apply)
    }

    func apply(_ change: RemoteChange<Model.ID>) -> PushOutcome {
        let row = feed.rows[change.id]
        if let base = change.baseVersion {
            guard let baseVersion = Int64(base.rawValue) else {
                return .rejected(reason: "unknown base version \"\(base)\"")
            }
            let ownWrite =
                !faults.ignoresIdempotencyKeys && (lastWriterKey[change.id].map(change.supersedes.contains) ?? false)
            if let row, row.version > baseVersion, !ownWrite {
                statistics.conflicts += 1
                return .conflict(serverRecord: served(row.json), version: RecordVersion(rawValue: String(row.version)))
            }
        }
        switch change.operation {
        case .upsert(let json):
            let model: Model
            do {
                model = try decoder.decode(Model.self, from: json)
            } catch {
                return .rejected(reason: "the record does not decode: \(error)")
            }
            guard model.id == change.id else {
                return .rejected(reason: "the record's id does not match the change's id")
            }
            if let reason = validate?(model) { return .rejected(reason: reason) }
            do {
                try write(model)
            } catch {
                return .rejected(reason: "the record does not encode: \(error)")
            }
        case .delete:
            guard row?.isLive == true else {
                return .accepted(version: RecordVersion(rawValue: String(row?.version ?? feed.clock)))
            }
            tombstone(change.id)
        }
        lastWriterKey[change.id] = change.idempotencyKey
        return .accepted(version: RecordVersion(latestCursor))
    }

    /// The record with every value but its id replaced by `[]`.
    func malformed(_ json: Data) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else { return nil }
        var broken: [String: Any] = [:]
        for (key, value) in object {
            broken[key] = key == idKey ? value : [Any]()
        }
        return try? JSONSerialization.data(withJSONObject: broken, options: [.sortedKeys])
    }
}
