/// A coding key made from any string or integer.
///
/// ```swift
/// let key: AnyCodingKey = "user_name"
/// let index: AnyCodingKey = 3
/// ```
public struct AnyCodingKey: CodingKey, Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public let stringValue: String
    public let intValue: Int?

    /// A key named `string`.
    public init(_ string: String) {
        self.stringValue = string
        self.intValue = nil
    }

    public init(stringValue: String) {
        self.init(stringValue)
    }

    public init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public init(integerLiteral value: Int) {
        self.init(intValue: value)
    }

    /// The same key, whatever type it had.
    public init(_ key: some CodingKey) {
        self.stringValue = key.stringValue
        self.intValue = key.intValue
    }
}
