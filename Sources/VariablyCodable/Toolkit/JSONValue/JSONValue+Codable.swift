public import Foundation

extension JSONValue: Codable {
    /// Decodes any JSON value from a single-value container.
    ///
    /// Foundation's `JSONDecoder` does not say whether a number was written `1` or `1.0`, so an integral
    /// number decodes as ``int(_:)``; `init(parsing:)` keeps the difference. Integers beyond `Int64`
    /// keep their digits (up to 38 significant digits through `Decimal`).
    ///
    /// ```swift
    /// let value = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"a":[true,1,null]}"#.utf8))
    /// ```
    ///
    /// - Throws: `DecodingError.dataCorrupted` if the value is none of the JSON kinds.
    public init(from decoder: any Decoder) throws {
        // Scalars first: they are the most common values, and every failed attempt throws.
        if let container = try? decoder.singleValueContainer(),
            let scalar = try? JSONValue.decodeScalar(from: container)
        {
            self = scalar
            return
        }
        if let container = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(container.allKeys.count)
            for key in container.allKeys {
                members[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
            }
            self = .object(members)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            if let count = container.count { elements.reserveCapacity(count) }
            while !container.isAtEnd {
                elements.append(try container.decode(JSONValue.self))
            }
            self = .array(elements)
            return
        }
        throw DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "Not a JSON value."))
    }

    /// A scalar from a single-value container, trying the kinds from the most to the least specific.
    static func decodeScalar(from container: any SingleValueDecodingContainer) throws -> JSONValue {
        if container.decodeNil() { return .null }
        if let value = try? container.decode(String.self) { return .string(value) }
        if let value = try? container.decode(Bool.self) { return .bool(value) }
        if let value = try? container.decode(Int64.self) { return .int(value) }
        if let value = try? container.decode(UInt64.self) { return .bigInteger(String(value)) }
        if let value = try? container.decode(Double.self) {
            // An integral number beyond Int64 is a big integer: read its digits exactly through Decimal.
            if value.rounded() == value, abs(value) >= 9.2e18, let decimal = try? container.decode(Decimal.self),
                decimal.exponent >= 0
            {
                return .bigInteger(NSDecimalNumber(decimal: decimal).description(withLocale: nil))
            }
            return .double(value)
        }
        throw DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: container.codingPath, debugDescription: "Not a JSON value."))
    }

    /// Encodes the value; a big integer is written with all its digits.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(JSONValue(["id": 1, "name": nil]))   // {"id":1,"name":null}
    /// ```
    ///
    /// - Throws: What the encoder throws (e.g. for a non-finite double).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let members):
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in members {
                try container.encode(value, forKey: AnyCodingKey(key))
            }
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                try container.encode(element)
            }
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .bigInteger(let digits):
            var container = encoder.singleValueContainer()
            if let value = UInt64(digits) {
                try container.encode(value)
            } else if let decimal = Decimal(string: digits, locale: nil) {
                try container.encode(decimal)
            } else {
                throw EncodingError.invalidValue(
                    digits,
                    EncodingError.Context(
                        codingPath: encoder.codingPath, debugDescription: "\"\(digits)\" is not an integer."))
            }
        case .bigNumber(let text):
            // A Foundation encoder writes numbers from Swift types only: `Decimal` holds some of these.
            var container = encoder.singleValueContainer()
            guard let decimal = Decimal(string: text, locale: nil), decimal.isFinite, "\(decimal)" != "0" else {
                throw EncodingError.invalidValue(
                    text,
                    EncodingError.Context(
                        codingPath: encoder.codingPath,
                        debugDescription:
                            "\(text) is beyond the range of the numbers an Encoder can write; use jsonString()."))
            }
            try container.encode(decimal)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }
}

// MARK: - Converting Codable values

extension JSONValue {
    /// The JSON value `value` encodes to.
    ///
    /// ```swift
    /// let json = try JSONValue(encoding: user)      // .object([...])
    /// ```
    ///
    /// - Throws: What encoding `value` throws.
    public init(encoding value: some Encodable) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    /// Decodes a `Decodable` value from this JSON value.
    ///
    /// ```swift
    /// let user = try json.decode(as: User.self)
    /// ```
    ///
    /// - Throws: `DecodingError` if the value does not decode as `type`.
    public func decode<Value: Decodable>(as type: Value.Type, using decoder: JSONDecoder = JSONDecoder()) throws
        -> Value
    {
        try decoder.decode(type, from: JSONEncoder().encode(self))
    }
}
