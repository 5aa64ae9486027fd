import Foundation
import VariablyCodable

/// One record of a pulled page: the decoded model, or the error that kept it from decoding together
/// with whatever id could still be read. Decoding a page as `[PageRecord<Model>]` parses it once and
/// lets one bad record fail alone.
struct PageRecord<Model: VariablyDecodable>: Decodable {
    let result: Result<Model, any Error>
    let rawID: String?

    init(from decoder: any Decoder) throws {
        do {
            result = .success(try Model(from: decoder))
            rawID = nil
        } catch {
            result = .failure(error)
            rawID = Self.readID(from: decoder)
        }
    }

    /// The record's top-level id under the source's key for the `id` property, as text.
    private static func readID(from decoder: any Decoder) -> String? {
        let source = decoder.userInfo[.codingSource] as? CodingSource ?? Model.keySets.defaultSource ?? .remote
        guard let entry = Model.keySets[source]?.entries.first(where: { $0.propertyName == "id" }),
            let container = try? decoder.container(keyedBy: AnyCodingKey.self)
        else { return nil }
        for path in entry.paths where path.container == nil {
            if let id = try? container.decode(Int64.self, forKey: path.leaf) { return String(id) }
            if let id = try? container.decode(String.self, forKey: path.leaf) { return id }
        }
        return nil
    }
}
