/// Decoder-wide toolkit options: lenient scalars for every key, strict mode, and a report.
///
/// ```swift
/// let decoder = JSONDecoder(source: .remote)
/// decoder.decodingOptions = DecodingOptions(isLenient: true, report: report)
/// ```
public struct DecodingOptions: Sendable {
    /// Whether every scalar property of key-set models decodes leniently (see ``LenientScalar``).
    public var isLenient: Bool
    /// Whether anything that would be recorded in a report (a default used, an element removed, a
    /// coercion, an unknown enum case) throws instead.
    public var isStrict: Bool
    /// Where events are recorded.
    public var report: DecodeReport?

    /// Creates options; all off by default.
    ///
    /// ```swift
    /// let strict = DecodingOptions(isStrict: true)
    /// ```
    public init(isLenient: Bool = false, isStrict: Bool = false, report: DecodeReport? = nil) {
        self.isLenient = isLenient
        self.isStrict = isStrict
        self.report = report
    }
}

extension CodingUserInfoKey {
    /// The ``DecodingOptions`` of a decoder.
    ///
    /// ```swift
    /// decoder.userInfo[.decodingOptions] = DecodingOptions(isStrict: true)
    /// ```
    public static let decodingOptions = CodingUserInfoKey(rawValue: "VariablyCodable.decodingOptions")!
}

extension DecodingOptions {
    /// Records an event for plain `Codable` helpers (property wrappers), or throws `error()` in strict mode.
    static func record(
        _ kind: DecodeEvent.Kind, userInfo: [CodingUserInfoKey: Any], codingPath: [any CodingKey],
        detail: String? = nil, error: () -> DecodingError
    ) throws {
        guard let options = userInfo[.decodingOptions] as? DecodingOptions else { return }
        if options.isStrict { throw error() }
        options.report?.record(DecodeEvent(kind: kind, codingPath: codingPath, detail: detail))
    }
}
