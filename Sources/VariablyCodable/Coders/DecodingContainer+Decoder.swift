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
        let userInfo = decoder.userInfo
        let (source, keySet) = try keySets.keySet(for: userInfo, codingPath: decoder.codingPath)
        let root: KeyedDecodingContainer<AnyCodingKey>
        do {
            root = try decoder.container(keyedBy: AnyCodingKey.self)
        } catch {
            throw VariablyCodingError(
                error, source: source, modelType: Model.self, entry: nil, codingPath: decoder.codingPath)
        }
        let backend = FoundationDecodingBackend(root: root, layout: keySet.layout, userInfo: userInfo)
        self.init(source: source, keySet: keySet, backend: backend)
    }
}
