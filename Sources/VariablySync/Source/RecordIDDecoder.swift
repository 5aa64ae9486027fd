import Foundation
import VariablyCodable
import VariablySQLite

/// Reads a record id that stands alone in a server's answer (a tombstone's, a list of deleted ids, a
/// record found by a look-up) as the model's key set for the source codes its primary key: an id
/// declared `Key(\.id, "id", transform: .numericString)` is read from `"42"`, as it is in a whole
/// record. Without a key for the primary key, the value is read as `Model.ID` is.
struct RecordIDDecoder<Model: VariablyCodable & Identifiable>: Sendable where Model.ID: Decodable {
    let source: CodingSource
    private let decoder: KeySetJSONDecoder
    /// The keys from the record to its id (`["id"]`, `["meta", "id"]`), or `nil` to read a bare `Model.ID`.
    private let idPath: [String]?

    /// A decoder for ids of `source`; the primary key's path is found once, not per id.
    init(source: CodingSource = .remote) {
        self.source = source
        decoder = KeySetJSONDecoder(source: source)
        if let keySet = Model.keySets[source], let entry = Self.primaryKeyEntry(in: keySet) {
            idPath = keySet.entries[entry].paths.first?.components.keys
        } else {
            idPath = nil
        }
    }

    /// The id that `value` (JSON text: `"42"`, `42`) holds.
    ///
    /// - Throws: The decoder's error for a value the primary key's coding does not read.
    func id(from value: Data) throws -> Model.ID {
        guard let idPath else { return try decoder.decode(Model.ID.self, from: value) }
        // The value where a record holds it, `{"id": "42"}` (nested for a path such as `meta.id`), read
        // through the entry with its options.
        var object = value
        for key in idPath.reversed() {
            object = Data("{\(JSONValue.string(key).jsonString()):".utf8) + object + Data("}".utf8)
        }
        return try decoder.decode(IDHolder.self, from: object).id
    }

    /// The entry of the primary key in `keySet`: the table's primary key for a stored model, else the
    /// property named `id` (as `Identifiable` names it).
    static func primaryKeyEntry(in keySet: KeySet<Model>) -> Int? {
        if let storable = Model.self as? any SQLiteStorable.Type, let keyPath = keyPath(of: storable),
            let index = keySet.index(of: keyPath)
        {
            return index
        }
        return keySet.entries.firstIndex { $0.propertyName == "id" }
    }

    /// The primary key's key path; `nil` for a table declaration that does not open (its error is
    /// thrown when the repository opens).
    private static func keyPath<Stored: SQLiteStorable>(of type: Stored.Type) -> AnyKeyPath? {
        try? PrimaryKey<Stored>().keyPath
    }

    /// The id of a record, read alone through the source's key set.
    private struct IDHolder: Decodable {
        let id: Model.ID

        init(from decoder: any Decoder) throws {
            let container = try DecodingContainer(decoder: decoder, keySets: Model.keySets)
            guard let entry = RecordIDDecoder.primaryKeyEntry(in: container.keySet) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "no key for the id"))
            }
            id = try container.decode(Model.ID.self, entry: entry)
        }
    }
}
