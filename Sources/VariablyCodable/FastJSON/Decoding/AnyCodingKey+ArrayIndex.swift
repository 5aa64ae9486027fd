extension AnyCodingKey {
    /// The key of an array element, named as Foundation's `JSONDecoder` names it ("Index 3").
    static func index(_ index: Int) -> AnyCodingKey {
        AnyCodingKey(ArrayIndexKey(intValue: index))
    }
}

/// An array element's coding key: `intValue` is the index, `stringValue` reads "Index 3".
private struct ArrayIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue!)" }

    init(intValue: Int) {
        self.intValue = intValue
    }

    init?(stringValue: String) {
        return nil
    }
}
