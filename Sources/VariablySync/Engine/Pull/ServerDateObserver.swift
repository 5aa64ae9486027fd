import Foundation
import VariablyCodable

/// Reads the form the server writes a model's dates in (``ServerDateFormat``) from a page of records:
/// for each `Date` whose remote key declares no strategy, the form of its value in the page's first
/// record. The repository keeps what it saw in the sync state, and pushes write those dates the same way.
struct ServerDateObserver: Sendable {
    /// The fields watched: the remote path of each `Date` that follows the server, with the strategy
    /// that reads it.
    let fields: [(path: DataPath, strategy: DateCodingStrategy)]

    /// The fields of `Model`'s remote key set to watch.
    init<Model: VariablyDecodable>(_ model: Model.Type) {
        guard let keySet = Model.keySets[.remote] else {
            fields = []
            return
        }
        fields = keySet.entries.compactMap { entry in
            guard entry.options.datesFollowServer, let strategy = entry.options.dates,
                let path = entry.key.alternatives.first
            else { return nil }
            return (path, strategy)
        }
    }

    /// Whether the model has no date to watch.
    var isEmpty: Bool { fields.isEmpty }

    /// The forms of the watched dates in the first record of `records` (a JSON array), by remote path;
    /// a field that is absent, `null` or no date there is left out.
    ///
    /// - Complexity: A copy of the page's bytes and a walk over its first record only.
    func formats(in records: Data) -> [String: ServerDateFormat] {
        guard !fields.isEmpty, let first = JSONBody.firstElement(ofArrayIn: records),
            let body = try? JSONBody(first)
        else { return [:] }
        var formats: [String: ServerDateFormat] = [:]
        for (path, strategy) in fields {
            guard let range = try? body.range(at: path), let value = try? body.value(range),
                let format = ServerDateFormat(of: value, strategy: strategy)
            else { continue }
            formats[path.description] = format
        }
        return formats
    }
}
