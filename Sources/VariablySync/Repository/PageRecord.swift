import Foundation
import VariablyCodable
import VariablySQLite

/// One record of a pulled page: the decoded model, or the error that kept it from decoding together
/// with whatever id could still be read. Decoding a page as `[PageRecord<Model>]` parses it once and
/// lets one bad record fail alone.
struct PageRecord<Model: SQLiteStorable & Identifiable>: Decodable where Model.ID: Decodable {
    let result: Result<Model, any Error>
    let id: Model.ID?

    init(from decoder: any Decoder) throws {
        do {
            result = .success(try Model(from: decoder))
            id = nil
        } catch {
            result = .failure(error)
            id = Self.readID(from: decoder)
        }
    }

    /// The record's id, read under the source's keys for the model's primary key (the property
    /// ``SQLiteTable/primaryKey`` declares, whatever its name).
    private static func readID(from decoder: any Decoder) -> Model.ID? {
        let source = decoder.userInfo[.codingSource] as? CodingSource ?? Model.keySets.defaultSource ?? .remote
        guard let keySet = Model.keySets[source], let entry = keySet.index(of: PrimaryKey<Model>().keyPath),
            let container = try? decoder.container(keyedBy: AnyCodingKey.self)
        else { return nil }
        for path in keySet.entries[entry].paths where path.container == nil {
            if let id = try? container.decode(Model.ID.self, forKey: path.leaf) { return id }
        }
        return nil
    }
}
