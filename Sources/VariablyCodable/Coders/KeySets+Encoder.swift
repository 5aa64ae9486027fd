extension KeySets {
    /// Encodes the properties these key sets list for the encoder's source into `encoder`'s object:
    /// what a class in a hierarchy calls in `encode(to:)` before or after its superclass.
    ///
    /// ```swift
    /// override func encode(to encoder: any Encoder) throws {
    ///     try Dog.dogKeys.encode(self, to: encoder)
    ///     try super.encode(to: encoder)
    /// }
    /// ```
    ///
    /// - Throws: ``VariablyCodingError`` naming the property that failed.
    public func encode(_ model: Model, to encoder: any Encoder) throws {
        let (source, keySet) = try keySet(for: encoder.userInfo, codingPath: encoder.codingPath)
        // The server's date forms apply to the record handed to the encoder (or an array's elements).
        let serverDates =
            encoder.codingPath.count <= 1 ? encoder.userInfo[.serverDateFormats] as? ServerDateFormats : nil
        let sink = FoundationEncodingSink(
            root: encoder.container(keyedBy: AnyCodingKey.self), layout: keySet.layout, serverDates: serverDates)
        let coders = keySet.coders
        for index in coders.indices {
            do {
                try coders[index].encode(model, to: sink, at: index)
            } catch let error as VariablyCodingError {
                // A nested key-set model already named its own property.
                throw error
            } catch {
                throw VariablyCodingError(
                    error, source: source, modelType: Model.self, entry: keySet.entries[index],
                    codingPath: encoder.codingPath)
            }
        }
    }

    /// The source `userInfo` names, else the default, with its key set.
    func keySet(for userInfo: [CodingUserInfoKey: Any], codingPath: @autoclosure () -> [any CodingKey]) throws
        -> (CodingSource, KeySet<Model>)
    {
        guard let source = (userInfo[.codingSource] as? CodingSource) ?? defaultSource else {
            throw VariablyCodingError(reason: .noSource, source: nil, modelType: Model.self, codingPath: codingPath())
        }
        guard let keySet = self[source] else {
            throw VariablyCodingError(
                reason: .noKeySet(declared: sources), source: source, modelType: Model.self, codingPath: codingPath())
        }
        return (source, keySet)
    }
}
