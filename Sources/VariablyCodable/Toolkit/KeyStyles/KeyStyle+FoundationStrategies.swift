public import Foundation

// MARK: - Foundation key strategies

extension JSONDecoder.KeyDecodingStrategy {
    /// Accepts keys in any style (snake_case, kebab-case, camelCase, PascalCase, SCREAMING_SNAKE_CASE)
    /// and matches them to camelCase property names, with acronyms in capitals (`user_id` -> `userID`,
    /// `image_url` -> `imageURL`). Conversions are cached, so this is faster than `.convertFromSnakeCase`.
    ///
    /// ```swift
    /// let decoder = JSONDecoder()
    /// decoder.keyDecodingStrategy = .convertFromAnyCase
    /// ```
    public static var convertFromAnyCase: JSONDecoder.KeyDecodingStrategy {
        convertFromAnyCase(to: .camelCase)
    }

    /// Accepts keys in any style and converts them to `style`, e.g. camelCase without acronyms for
    /// properties named `userId`.
    ///
    /// ```swift
    /// decoder.keyDecodingStrategy = .convertFromAnyCase(to: KeyStyle(.camel, acronyms: []))
    /// ```
    public static func convertFromAnyCase(to style: KeyStyle) -> JSONDecoder.KeyDecodingStrategy {
        let converter = KeyStyleConverter(style)
        return .custom { codingPath in
            guard let key = codingPath.last else { return AnyCodingKey("") }
            if let index = key.intValue { return AnyCodingKey(intValue: index) }
            return ConvertedKey(stringValue: converter.convert(key.stringValue))
        }
    }
}

/// A converted string key. Two words, so that as `any CodingKey` it is stored inline rather than in
/// an allocated box (`AnyCodingKey` is one byte too large): the decoder asks for one per key of
/// every object.
private struct ConvertedKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}

extension JSONEncoder.KeyEncodingStrategy {
    /// Writes property names in `style`, with acronyms handled (`imageURL` -> `image_url`).
    ///
    /// ```swift
    /// let encoder = JSONEncoder()
    /// encoder.keyEncodingStrategy = .convert(to: .snakeCase)
    /// ```
    public static func convert(to style: KeyStyle) -> JSONEncoder.KeyEncodingStrategy {
        let converter = KeyStyleConverter(style)
        return .custom { codingPath in
            guard let key = codingPath.last else { return AnyCodingKey("") }
            if let index = key.intValue { return AnyCodingKey(intValue: index) }
            return ConvertedKey(stringValue: converter.convert(key.stringValue))
        }
    }
}
