public import Foundation

// MARK: - Foundation coders

extension JSONDecoder.DateDecodingStrategy {
    /// Reads dates in every format of ``DateCodingStrategy/flexible``.
    ///
    /// ```swift
    /// let decoder = JSONDecoder()
    /// decoder.dateDecodingStrategy = .flexible
    /// ```
    public static var flexible: JSONDecoder.DateDecodingStrategy { .using(.flexible) }

    /// Reads dates as `strategy` reads them: the name matches `JSONEncoder`'s `.using(_:)`.
    ///
    /// ```swift
    /// decoder.dateDecodingStrategy = .using(DateCodingStrategy(defaultTimeZone: .current))
    /// decoder.dateDecodingStrategy = .using(.millisecondsSince1970)      // numbers as milliseconds
    /// ```
    public static func using(_ strategy: DateCodingStrategy) -> JSONDecoder.DateDecodingStrategy {
        .custom { decoder in try strategy.decode(from: decoder.singleValueContainer()) }
    }
}

extension JSONEncoder.DateEncodingStrategy {
    /// Writes dates as `strategy`'s ``DateCodingStrategy/output`` says.
    ///
    /// ```swift
    /// encoder.dateEncodingStrategy = .using(.millisecondsSince1970)
    /// ```
    public static func using(_ strategy: DateCodingStrategy) -> JSONEncoder.DateEncodingStrategy {
        .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try strategy.encode(date, to: &container)
        }
    }
}
