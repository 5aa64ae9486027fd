/// An enum with raw values that decodes a raw value no case has as ``unknownCase`` instead of failing,
/// in any `Codable` type; each such value is recorded in the decoder's report.
///
/// ```swift
/// enum Status: String, Codable, UnknownCaseDecodable {
///     case active, suspended, unknown
///     static let unknownCase = Status.unknown
/// }
/// ```
public protocol UnknownCaseDecodable: RawRepresentable, Decodable where RawValue: Decodable {
    /// The case used for an unknown raw value.
    static var unknownCase: Self { get }
}

extension UnknownCaseDecodable {
    /// Decodes the raw value, falling back to ``unknownCase``.
    ///
    /// ```swift
    /// let levels = try JSONDecoder().decode([Level].self, from: Data(#"["low", "extreme"]"#.utf8))
    /// ```
    ///
    /// - Throws: `DecodingError` if the raw value has the wrong type; in strict mode, for an unknown value.
    public init(from decoder: any Decoder) throws {
        let rawValue = try decoder.singleValueContainer().decode(RawValue.self)
        if let value = Self(rawValue: rawValue) {
            self = value
            return
        }
        try DecodingOptions.record(
            .unknownEnumCase(rawValue: "\(rawValue)"), userInfo: decoder.userInfo, codingPath: decoder.codingPath
        ) {
            DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "Cannot initialize \(Self.self) from invalid value \(rawValue)"))
        }
        self = Self.unknownCase
    }
}
