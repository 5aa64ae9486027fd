import Foundation

// MARK: - A model's row, without writing it

extension PrimaryKey {
    /// The values `model`'s row would hold, by column name (unquoted), as ``Database/upsert(_:)`` stores
    /// them (text in NFC), for the entries at `entries` (every entry when `nil`): what a pull of the
    /// model would write, compared with a row as it was without writing anything.
    ///
    /// ```swift
    /// let key = try PrimaryKey<User>()
    /// let row = try key.storedValues(of: user, entries: nil)   // ["id": .integer(1), "user_name": .text("ada")]
    /// ```
    ///
    /// - Throws: ``RecordEncodingError`` when a property cannot be encoded.
    package func storedValues(of model: Model, entries: [Int]?) throws -> [String: SQLValue] {
        let sink = CapturingEncodingSink(slots: mapping.insertSlots)
        let chosen = entries ?? Array(mapping.coders.indices)
        var values: [String: SQLValue] = [:]
        for index in chosen {
            do {
                try mapping.coders[index].encode(model, to: sink, at: index)
            } catch {
                throw RecordEncodingError(
                    modelType: "\(Model.self)", keyPath: "\(mapping.keySet.entries[index].keyPath)",
                    column: mapping.columns[index].name, underlyingError: error)
            }
            // Parameter `index + 1` is entry `index` (see `TableMapping.insertSlots`).
            var value = sink.values[index]
            if case .text(let text) = value { value = .text(TextNormalization.nfc(text)) }
            values[mapping.columns[index].name] = value
        }
        return values
    }
}
