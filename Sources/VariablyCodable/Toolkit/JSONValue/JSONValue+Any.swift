import Foundation

// MARK: - From Any

extension JSONValue {
    /// Converts a value made of `Bool`, integers, floating values, `String`, `NSNull`, `nil`, arrays and
    /// string-keyed dictionaries (Swift or Foundation types, e.g. `JSONSerialization` output), or `nil`
    /// if something else is inside.
    ///
    /// On Linux `NSNumber` bridges to Bool and Int alike; this initializer looks at how the number was
    /// created, so `true` stays a Bool, `1` an integer and `1.0` a floating value.
    ///
    /// ```swift
    /// let object = try JSONSerialization.jsonObject(with: data)
    /// let value = JSONValue(any: object)          // exact kinds, nulls kept
    /// JSONValue(any: ["id": 1, "ok": true])       // .object(["id": .int(1), "ok": .bool(true)])
    /// ```
    ///
    /// - Complexity: O(n) in the number of values.
    public init?(any value: Any?) {
        guard let value else {
            self = .null
            return
        }
        // Foundation numbers first: on Linux a Swift `as? Bool` or `as? Int` accepts any NSNumber.
        if let number = value as? NSNumber, type(of: value as AnyObject) is NSNumber.Type,
            !(value is Bool && type(of: value) == Bool.self)
        {
            guard let converted = JSONValue(number: number) else { return nil }
            self = converted
            return
        }
        switch value {
        case let value as JSONValue: self = value
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .int(Int64(value))
        case let value as Int8: self = .int(Int64(value))
        case let value as Int16: self = .int(Int64(value))
        case let value as Int32: self = .int(Int64(value))
        case let value as Int64: self = .int(value)
        case let value as UInt: self = JSONValue(unsigned: UInt64(value))
        case let value as UInt8: self = .int(Int64(value))
        case let value as UInt16: self = .int(Int64(value))
        case let value as UInt32: self = .int(Int64(value))
        case let value as UInt64: self = JSONValue(unsigned: value)
        case let value as Double: self = .double(value)
        case let value as Float: self = .double(Double(value))
        case let value as Decimal: self = JSONValue(decimal: value)
        case let value as String: self = .string(value)
        case let value as Substring: self = .string(String(value))
        case is NSNull: self = .null
        case let value as [String: Any]:
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(value.count)
            for (key, member) in value {
                guard let converted = JSONValue(any: member) else { return nil }
                members[key] = converted
            }
            self = .object(members)
        case let value as [Any]:
            var elements: [JSONValue] = []
            elements.reserveCapacity(value.count)
            for element in value {
                guard let converted = JSONValue(any: element) else { return nil }
                elements.append(converted)
            }
            self = .array(elements)
        case let value as [Any?]:
            guard
                let elements = try? value.map({ element throws(JSONValueConversionError) -> JSONValue in
                    guard let converted = JSONValue(any: element) else { throw JSONValueConversionError() }
                    return converted
                })
            else { return nil }
            self = .array(elements)
        default:
            // An Optional wrapped in Any: unwrap it.
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else {
                    self = .null
                    return
                }
                guard let converted = JSONValue(any: wrapped) else { return nil }
                self = converted
                return
            }
            return nil
        }
    }

    private init(unsigned value: UInt64) {
        self = Int64(exactly: value).map(JSONValue.int) ?? .bigInteger(String(value))
    }

    private init(decimal: Decimal) {
        let text = NSDecimalNumber(decimal: decimal).description(withLocale: nil)
        if decimal.exponent >= 0 {
            self = Int64(text).map(JSONValue.int) ?? .bigInteger(text)
        } else {
            self = .double(NSDecimalNumber(decimal: decimal).doubleValue)
        }
    }

    /// A Foundation number, by the kind it was created with.
    private init?(number: NSNumber) {
        if let decimal = number as? NSDecimalNumber, type(of: number) is NSDecimalNumber.Type {
            self.init(decimal: decimal.decimalValue)
            return
        }
        if type(of: number) == JSONValue.booleanClass {
            self = .bool(number.boolValue)
            return
        }
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "f"), UInt8(ascii: "d"):
            self = .double(number.doubleValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"), UInt8(ascii: "I"), UInt8(ascii: "S"), UInt8(ascii: "C"):
            self.init(unsigned: number.uint64Value)
        default:
            self = .int(number.int64Value)
        }
    }

    /// The class of Foundation's Boolean numbers (`__NSCFBoolean` on both platforms).
    private static let booleanClass: AnyClass = type(of: NSNumber(value: true))
}

private struct JSONValueConversionError: Error {}

// MARK: - To Any

extension JSONValue {
    /// The value as Foundation-compatible `Any`: `Bool`, `Int`, `Double`, `String`, `NSNull`, `[Any]` and
    /// `[String: Any]`; a big integer becomes a `Decimal`.
    ///
    /// ```swift
    /// let any = JSONValue(["id": 1, "name": nil]).anyValue as? [String: Any]
    /// any?["id"] as? Int          // 1
    /// any?["name"] is NSNull      // true
    /// ```
    ///
    /// - Complexity: O(n) in the number of values.
    public var anyValue: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return value
        case .int(let value): return Int(exactly: value) ?? value
        case .bigInteger(let digits): return Decimal(string: digits, locale: nil) ?? digits
        case .bigNumber(let text): return Decimal(string: text, locale: nil) ?? text
        case .double(let value): return value
        case .string(let value): return value
        case .array(let elements): return elements.map(\.anyValue)
        case .object(let members): return members.mapValues(\.anyValue)
        }
    }
}

extension JSONValue {
    static func converting(_ value: Any, codingPath: [any CodingKey]) throws -> JSONValue {
        guard let converted = JSONValue(any: value) else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: codingPath, debugDescription: "Contains a value that is not JSON-compatible."))
        }
        return converted
    }
}
