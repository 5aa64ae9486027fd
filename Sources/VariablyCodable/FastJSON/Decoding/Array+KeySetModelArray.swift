/// An array of key-set models, decoded element by element through their key tables.
protocol KeySetModelArray {
    static func decode(from session: JSONDecodingSession, at index: Int, path: ValuePath) throws -> Self
}

extension Array: KeySetModelArray where Element: VariablyDecodable {
    static func decode(from session: JSONDecodingSession, at index: Int, path: ValuePath) throws -> [Element] {
        try session.decodeModels(Element.self, at: index, path: path)
    }
}
