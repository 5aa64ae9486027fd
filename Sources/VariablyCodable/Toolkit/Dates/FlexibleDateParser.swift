package import Foundation

/// The byte-level parsing and formatting behind ``DateCodingStrategy``: pure functions, no formatter
/// objects, so they are fast and safe from any thread.
package enum FlexibleDateParser {
    private static let zero = UInt8(ascii: "0")

    /// `-?digits(.digits)?` as a number, or `nil`.
    static func number(in bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard !bytes.isEmpty else { return nil }
        var index = bytes[0] == UInt8(ascii: "-") ? 1 : 0
        let digitsStart = index
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        guard index > digitsStart else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            guard index > fractionStart else { return nil }
        }
        guard index == bytes.count else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }

    /// `yyyy-MM-dd`, optionally followed by `T`/space, `HH:mm[:ss[.fraction]]` and a zone.
    package static func date(in bytes: UnsafeBufferPointer<UInt8>, defaultTimeZone: TimeZone) -> Date? {
        var index = 0
        guard let year = year(bytes, &index), expect(bytes, &index, "-"),
            let month = digits(bytes, &index, count: 2), expect(bytes, &index, "-"),
            let day = digits(bytes, &index, count: 2),
            (1...12).contains(month), (1...daysInMonth(year: year, month: month)).contains(day)
        else { return nil }
        var secondsOfDay = 0
        var fraction: (numerator: Int64, denominator: Int64) = (0, 1)
        var offset: Int?
        if index < bytes.count {
            guard bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: "t") || bytes[index] == 0x20
            else { return nil }
            index += 1
            guard let hour = digits(bytes, &index, count: 2), expect(bytes, &index, ":"),
                let minute = digits(bytes, &index, count: 2), hour < 24, minute < 60
            else { return nil }
            var second = 0
            if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
                index += 1
                guard let value = digits(bytes, &index, count: 2), value < 60 else { return nil }
                second = value
                if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    guard let value = self.fraction(bytes, &index) else { return nil }
                    fraction = value
                }
            }
            secondsOfDay = hour * 3600 + minute * 60 + second
            if index < bytes.count {
                guard let zone = zoneOffset(bytes, &index), index == bytes.count else { return nil }
                offset = zone
            }
        }
        let local = daysFromCivil(year: year, month: month, day: day) * 86_400 + secondsOfDay
        let zone = offset ?? secondsFromGMT(defaultTimeZone, localTime: Double(local))
        // Whole seconds stay exact as integers and the fraction is read exactly, so one rounding is left:
        // `…00.123456Z` is `Date(timeIntervalSince1970: 1793613600.123456)`, the date a `Double` of seconds
        // since 1970 holds (what a SQLite column stores), and it writes back the same microseconds.
        let whole = local - zone
        let (numerator, denominator) = fraction
        guard whole < 0, numerator > 0 else {
            return Date(timeIntervalSince1970: Double(whole) + Double(numerator) / Double(denominator))
        }
        // Before 1970 the fraction counts towards zero: -1 + .999999 is -(0 + .000001), read as such.
        return Date(
            timeIntervalSince1970: -(Double(-whole - 1) + Double(denominator - numerator) / Double(denominator)))
    }

    /// The digits after a decimal point as a fraction of a second, `numerator / denominator`: up to 15
    /// digits, exact as integers (beyond what a `Double` of seconds holds); further digits are checked,
    /// not read.
    private static func fraction(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int)
        -> (numerator: Int64, denominator: Int64)?
    {
        let start = index
        var numerator: Int64 = 0
        var denominator: Int64 = 1
        while index < bytes.count, isDigit(bytes[index]) {
            if index - start < 15 {
                numerator = numerator * 10 + Int64(bytes[index] - zero)
                denominator *= 10
            }
            index += 1
        }
        guard index > start else { return nil }
        return (numerator, denominator)
    }

    /// `Z`, `±hh:mm`, `±hhmm` or `±hh` as seconds east of UTC.
    private static func zoneOffset(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Int? {
        let sign = bytes[index]
        if sign == UInt8(ascii: "Z") || sign == UInt8(ascii: "z") {
            index += 1
            return 0
        }
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        index += 1
        guard let hours = digits(bytes, &index, count: 2), hours <= 18 else { return nil }
        var minutes = 0
        if index < bytes.count {
            if bytes[index] == UInt8(ascii: ":") { index += 1 }
            guard let value = digits(bytes, &index, count: 2), value < 60 else { return nil }
            minutes = value
        }
        let seconds = hours * 3600 + minutes * 60
        return sign == UInt8(ascii: "-") ? -seconds : seconds
    }

    private static func secondsFromGMT(_ zone: TimeZone, localTime: Double) -> Int {
        if zone.identifier == "UTC" || zone.identifier == "GMT" { return 0 }
        // The offset at the local wall time: guess with the offset at that instant read as UTC, then refine.
        let guess = zone.secondsFromGMT(for: Date(timeIntervalSince1970: localTime))
        return zone.secondsFromGMT(for: Date(timeIntervalSince1970: localTime - Double(guess)))
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= zero && byte <= zero + 9
    }

    /// Four digits, or ISO 8601's expanded years that the writer produces outside 0...9999: more digits,
    /// or a sign (`10000-01-01`, `+10000-01-01`, `-1199-02-15`).
    private static func year(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Int? {
        var sign = 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
        }
        var count = 0
        while index + count < bytes.count, isDigit(bytes[index + count]) { count += 1 }
        // Nine digits stay far inside Int and beyond any date a Double of seconds holds exactly.
        guard (4...9).contains(count), let value = digits(bytes, &index, count: count) else { return nil }
        return sign * value
    }

    private static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for offset in 0..<count {
            let byte = bytes[index + offset]
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - zero)
        }
        index += count
        return value
    }

    private static func expect(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, _ character: Unicode.Scalar)
        -> Bool
    {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    private static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01 (H. Hinnant's `civil_from_days`).
    package static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `2024-05-01T12:30:00Z` or `2024-05-01T12:30:00.250Z`.
    package static func iso8601String(from date: Date, fractionalSeconds: Bool) -> String {
        // A `Date` rarely holds a millisecond exactly (07.010 is 07.00999...): round to the nearest
        // millisecond when writing them, so what was read writes back the same; whole seconds truncate.
        let scaled = clamped(date.timeIntervalSince1970 * 1000)
        let totalMilliseconds = Int64(fractionalSeconds ? scaled.rounded() : scaled.rounded(.down))
        let milliseconds = Int(((totalMilliseconds % 1000) + 1000) % 1000)
        let seconds = Int((totalMilliseconds - Int64(milliseconds)) / 1000)
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2) + ":"
        text += pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if fractionalSeconds { text += "." + pad(milliseconds, 3) }
        return text + "Z"
    }

    /// `2024-05-01` in `timeZone`.
    static func dateOnlyString(from date: Date, timeZone: TimeZone) -> String {
        let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        let (year, month, day) = civilFromDays(Int(clamped(local / 86_400).rounded(.down)))
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
    }

    /// `value` within what converts to `Int64` (about ±292 million years in milliseconds): a date read
    /// from a hostile number (`-651621365166566586900`) writes as a far date instead of trapping.
    static func clamped(_ value: Double) -> Double {
        guard !value.isNaN else { return 0 }
        return min(max(value, -9.2e18), 9.2e18)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
