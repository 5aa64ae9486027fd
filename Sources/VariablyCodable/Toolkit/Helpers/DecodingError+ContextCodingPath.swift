extension DecodingError {
    /// The coding path of the error's context.
    var contextCodingPath: [any CodingKey] {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            return context.codingPath
        @unknown default:
            return []
        }
    }
}
