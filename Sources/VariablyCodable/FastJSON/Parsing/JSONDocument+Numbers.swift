import Foundation

// Numbers are converted when decoded, with the rules of Foundation's `JSONDecoder`, so that both give
// the same value or both fail: integers exactly (with its fallback through `Double` and `Decimal` for
// numbers written with a fraction or an exponent), floating-point values correctly rounded and refused
// when they overflow to infinity or underflow to zero.

extension JSONDocument {
    /// The number at tape `index` as the integer type `T`.
    ///
    /// - Throws: ``UnrepresentableJSONNumberError`` if it does not fit `T` (Foundation: "not valid JSON").
    @inline(__always)
    func integer<T: FixedWidthInteger>(_ type: T.Type, at index: Int) throws -> T {
        let entry = tape[index]
        if entry.flags & JSONTapeEntry.isNonInteger == 0 {
            let raw = rawBytes(of: entry)
            let isNegative = entry.flags & JSONTapeEntry.isNegative != 0
            var position = isNegative ? 1 : 0
            var magnitude: UInt64 = 0
            var fits = true
            if raw.count - position <= 19 {
                while position < raw.count {
                    magnitude = magnitude &* 10 &+ UInt64(raw[position] &- UInt8(ascii: "0"))
                    position += 1
                }
            } else {
                while position < raw.count {
                    let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                    let (sum, overflow2) = times10.addingReportingOverflow(UInt64(raw[position] &- UInt8(ascii: "0")))
                    if overflow1 || overflow2 {
                        fits = false
                        break
                    }
                    magnitude = sum
                    position += 1
                }
            }
            if fits {
                if !isNegative {
                    if let value = T(exactly: magnitude) { return value }
                } else if magnitude == 0 {
                    return 0
                } else if T.isSigned, magnitude <= UInt64(Int64.max) + 1,
                    let value = T(exactly: Int64(bitPattern: 0 &- magnitude))
                {
                    return value
                }
            }
        }
        return try slowInteger(T.self, at: index)
    }

    /// Foundation's fallback for integers: through `Double` when exact below 2^53, else through `Decimal`.
    private func slowInteger<T: FixedWidthInteger>(_ type: T.Type, at index: Int) throws -> T {
        let text = numberText(at: index)
        if let double = Double(text) {
            guard let value = T(exactly: double) else { throw UnrepresentableJSONNumberError(text: text) }
            if double.magnitude < 9_007_199_254_740_992 { return value }
        }
        guard let decimal = Decimal(string: text), let value = JSONDocument.integer(T.self, from: decimal) else {
            throw UnrepresentableJSONNumberError(text: text)
        }
        return value
    }

    /// The integer part of `decimal`, as Foundation's `JSONDecoder` converts it (`nil` if it does not fit).
    private static func integer<T: FixedWidthInteger>(_ type: T.Type, from decimal: Decimal) -> T? {
        if decimal.isNaN { return nil }
        let isNegative = decimal.sign == .minus && !decimal.isZero
        if isNegative && !T.isSigned { return nil }
        let digits = decimal.significand.magnitude.description
        guard var magnitude = UInt64(digits) else { return nil }
        if decimal.exponent < 0 {
            for _ in 0 ..< -decimal.exponent where magnitude != 0 { magnitude /= 10 }
        } else {
            for _ in 0..<decimal.exponent {
                let (product, overflow) = magnitude.multipliedReportingOverflow(by: 10)
                if overflow { return nil }
                magnitude = product
            }
        }
        if isNegative {
            guard let value = T(exactly: magnitude) else { return nil }
            return value * -1
        }
        return T(exactly: magnitude)
    }

    /// The number at tape `index` as a `Double`, correctly rounded.
    ///
    /// - Throws: ``UnrepresentableJSONNumberError`` if it overflows to infinity or underflows to zero.
    @inline(__always)
    func double(at index: Int) throws -> Double {
        let entry = tape[index]
        let raw = rawBytes(of: entry)
        var position = 0
        let isNegative = entry.flags & JSONTapeEntry.isNegative != 0
        if isNegative { position = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var isExact = true
        // Integer part.
        while position < raw.count {
            let digit = raw[position] &- UInt8(ascii: "0")
            if digit >= 10 { break }
            if mantissa != 0 || digit != 0 {
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    digits += 1
                } else {
                    isExact = false
                    exponent += 1
                }
            }
            position += 1
        }
        if position < raw.count && raw[position] == UInt8(ascii: ".") {
            position += 1
            while position < raw.count {
                let digit = raw[position] &- UInt8(ascii: "0")
                if digit >= 10 { break }
                if mantissa != 0 || digit != 0 {
                    if digits < 19 {
                        mantissa = mantissa &* 10 &+ UInt64(digit)
                        digits += 1
                        exponent -= 1
                    } else {
                        isExact = false
                    }
                } else {
                    exponent -= 1
                }
                position += 1
            }
        }
        if position < raw.count {
            // An exponent: `e` or `E`, an optional sign, digits.
            position += 1
            var isNegativeExponent = false
            if raw[position] == UInt8(ascii: "-") {
                isNegativeExponent = true
                position += 1
            } else if raw[position] == UInt8(ascii: "+") {
                position += 1
            }
            var written = 0
            while position < raw.count {
                if written < 100_000 { written = written * 10 + Int(raw[position] &- UInt8(ascii: "0")) }
                position += 1
            }
            exponent += isNegativeExponent ? -written : written
        }
        if mantissa == 0 { return isNegative ? -0.0 : 0.0 }
        if isExact && mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
            // Both operands are exact, so the one rounding of the product or quotient is correct.
            let value =
                exponent >= 0 ? Double(mantissa) * powersOfTen[exponent] : Double(mantissa) / powersOfTen[-exponent]
            return isNegative ? -value : value
        }
        let text = numberText(at: index)
        guard let value = Double(text), value.isFinite, value != 0 else {
            throw UnrepresentableJSONNumberError(text: text)
        }
        return value
    }

    /// The number at tape `index` as a `Float`, correctly rounded from its text.
    ///
    /// - Throws: ``UnrepresentableJSONNumberError`` if it overflows to infinity or underflows to zero.
    func float(at index: Int) throws -> Float {
        let text = numberText(at: index)
        guard let value = Float(text), value.isFinite else { throw UnrepresentableJSONNumberError(text: text) }
        if value == 0 && !JSONDocument.isTrueZero(text) { throw UnrepresentableJSONNumberError(text: text) }
        return value
    }

    /// The number at tape `index` as a `Decimal`, parsed from its text as Foundation does.
    ///
    /// - Throws: ``UnrepresentableJSONNumberError`` if `Decimal` cannot hold it.
    func decimal(at index: Int) throws -> Decimal {
        let text = numberText(at: index)
        guard let value = Decimal(string: text) else { throw UnrepresentableJSONNumberError(text: text) }
        return value
    }

    /// The text of the number at tape `index`.
    func numberText(at index: Int) -> String {
        String(decoding: rawBytes(of: tape[index]), as: UTF8.self)
    }

    /// Whether every digit before the exponent is zero.
    static func isTrueZero(_ text: String) -> Bool {
        for byte in text.utf8 {
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return true }
            if byte >= UInt8(ascii: "1") && byte <= UInt8(ascii: "9") { return false }
        }
        return true
    }
}

private let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
    1e20, 1e21, 1e22,
]
