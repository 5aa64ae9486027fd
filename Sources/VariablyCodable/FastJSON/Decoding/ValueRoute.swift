/// How a type that the session does not read directly decodes.
enum ValueRoute {
    /// An array of key-set models.
    case modelArray(any KeySetModelArray.Type)
    /// A key-set model.
    case model(any VariablyDecodable.Type)
    /// Any other `Decodable`, through ``JSONTapeDecoder``.
    case decodable
}
