// Class hierarchies: `KeySetDescribable` needs `KeySets<Self>`, which a non-final class cannot
// provide for its subclasses. Instead each class keeps its own `KeySets` of the properties it declares,
// decodes them with `DecodingContainer(decoder:keySets:)` and encodes them with `KeySets.encode(_:to:)`,
// then calls its superclass, which does the same with its own key sets. All write one flat object.
//
// ```swift
// class Animal: Codable {
//     var name: String
//     static let animalKeys = KeySets<Animal>(defaultSource: .remote) {
//         KeySet(.remote) { Key(\.name, "animal_name") }
//     }
//     required init(from decoder: any Decoder) throws {
//         let container = try DecodingContainer(decoder: decoder, keySets: Animal.animalKeys)
//         name = try container.decode(\.name)
//     }
//     func encode(to encoder: any Encoder) throws {
//         try Animal.animalKeys.encode(self, to: encoder)
//     }
// }
//
// final class Dog: Animal {
//     var breed: String
//     static let dogKeys = KeySets<Dog>(defaultSource: .remote) {
//         KeySet(.remote) { Key(\.breed, "dog_breed") }
//     }
//     required init(from decoder: any Decoder) throws {
//         let container = try DecodingContainer(decoder: decoder, keySets: Dog.dogKeys)
//         breed = try container.decode(\.breed)
//         try super.init(from: decoder)
//     }
//     override func encode(to encoder: any Encoder) throws {
//         try Dog.dogKeys.encode(self, to: encoder)
//         try super.encode(to: encoder)
//     }
// }
// ```

extension DecodingContainer {
    /// A container over `decoder` that reads through `keySets`, in the source the decoder names (else
    /// the default source): what a class in a hierarchy uses in its `init(from:)`.
    ///
    /// ```swift
    /// required init(from decoder: any Decoder) throws {
    ///     let container = try DecodingContainer(decoder: decoder, keySets: Dog.dogKeys)
    ///     breed = try container.decode(\.breed)
    ///     try super.init(from: decoder)
    /// }
    /// ```
    ///
    /// - Throws: ``VariablyCodingError`` if no source applies or the value is not an object.
    public init(decoder: any Decoder, keySets: KeySets<Model>) throws {
        let (source, keySet) = try keySets.keySet(for: decoder.userInfo, codingPath: decoder.codingPath)
        let root: KeyedDecodingContainer<AnyCodingKey>
        do {
            root = try decoder.container(keyedBy: AnyCodingKey.self)
        } catch {
            throw VariablyCodingError(error, source: source, modelType: Model.self, entry: nil, codingPath: decoder.codingPath)
        }
        let backend = FoundationDecodingBackend(root: root, layout: keySet.layout, userInfo: decoder.userInfo)
        self.init(source: source, keySet: keySet, backend: backend)
    }
}

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
        let sink = FoundationEncodingSink(root: encoder.container(keyedBy: AnyCodingKey.self), layout: keySet.layout)
        for (index, entry) in keySet.entries.enumerated() {
            do {
                try entry.coder.encode(model, to: sink, at: index)
            } catch let error as VariablyCodingError {
                throw error
            } catch {
                throw VariablyCodingError(
                    error, source: source, modelType: Model.self, entry: entry, codingPath: encoder.codingPath)
            }
        }
    }

    /// The source `userInfo` names, else the default, with its key set.
    func keySet(for userInfo: [CodingUserInfoKey: Any], codingPath: [any CodingKey]) throws
        -> (CodingSource, KeySet<Model>)
    {
        guard let source = (userInfo[.codingSource] as? CodingSource) ?? defaultSource else {
            throw VariablyCodingError(reason: .noSource, source: nil, modelType: Model.self, codingPath: codingPath)
        }
        guard let keySet = self[source] else {
            throw VariablyCodingError(
                reason: .noKeySet(declared: sources), source: source, modelType: Model.self, codingPath: codingPath)
        }
        return (source, keySet)
    }
}
