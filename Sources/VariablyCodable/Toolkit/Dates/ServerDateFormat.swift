package import Foundation

/// The written form of one date a server sent, detected from the value itself, so that a date written
/// back to that server takes the same form: `2024-01-02 03:04:05.678Z` stays with its space and its
/// milliseconds, `2026-11-02T10:00:00.123456+01:00` with its microseconds and its offset, an epoch
/// number stays a number in the same unit.
///
/// ```swift
/// let format = ServerDateFormat(of: .string("2024-01-02 03:04:05.678Z"))!
/// format.value(for: date)   // .string("2024-01-02 03:04:05.678Z") for that date
/// ```
package struct ServerDateFormat: Hashable, Sendable, Codable {
    /// The kind of value.
    package enum Kind: String, Hashable, Sendable, Codable {
        /// A JSON number of seconds since 1970.
        case seconds
        /// A JSON number of milliseconds since 1970.
        case milliseconds
        /// A string of digits: seconds since 1970.
        case secondsText
        /// A string of digits: milliseconds since 1970.
        case millisecondsText
        /// `yyyy-MM-dd`.
        case dateOnly
        /// `yyyy-MM-dd`, a separator and a time.
        case dateTime
    }

    /// How a zone offset is written.
    package enum Zone: Hashable, Sendable, Codable {
        /// No zone: the time is local to the strategy's default time zone.
        case none
        /// `Z`.
        case utc
        /// `±hh:mm`, at this many seconds east of UTC.
        case colon(Int)
        /// `±hhmm`.
        case compact(Int)
        /// `±hh`.
        case hours(Int)
    }

    package var kind: Kind
    /// For ``Kind/seconds``: whether the server wrote a whole number.
    package var isWholeNumber = true
    /// For ``Kind/dateTime``: the byte between the date and the time (`T`, `t` or a space).
    package var separator: UInt8 = UInt8(ascii: "T")
    /// For ``Kind/dateTime``: whether the time has seconds.
    package var hasSeconds = true
    /// For ``Kind/dateTime``: the number of fraction digits written (0 for none), at most 9.
    package var fractionDigits = 0
    /// For ``Kind/dateTime``: the zone written.
    package var zone = Zone.utc

    package init(kind: Kind) { self.kind = kind }

    /// The form of `value`, a date as a server wrote it; `nil` when it is no date `strategy` reads.
    ///
    /// ```swift
    /// ServerDateFormat(of: .int(1_714_566_600_000))?.kind   // .milliseconds
    /// ```
    package init?(of value: JSONValue, strategy: DateCodingStrategy = .flexible) {
        switch value {
        case .int(let number):
            self.init(kind: Self.isMilliseconds(Double(number), strategy) ? .milliseconds : .seconds)
        case .double(let number) where number.isFinite:
            self.init(kind: Self.isMilliseconds(number, strategy) ? .milliseconds : .seconds)
            isWholeNumber = false
        case .string(let text):
            guard strategy.date(from: text) != nil else { return nil }
            var text = text
            guard let format = text.withUTF8({ Self.format(of: $0, strategy) }) else { return nil }
            self = format
        default:
            return nil
        }
    }

    private static func isMilliseconds(_ number: Double, _ strategy: DateCodingStrategy) -> Bool {
        switch strategy.numberUnit {
        case .seconds: false
        case .milliseconds: true
        case .byMagnitude(let threshold): abs(number) >= threshold
        }
    }

    /// The form of a string that parsed as a date.
    private static func format(of bytes: UnsafeBufferPointer<UInt8>, _ strategy: DateCodingStrategy) -> Self? {
        if FlexibleDateParser.number(in: bytes) != nil {
            let number = Double(String(decoding: bytes, as: UTF8.self)) ?? 0
            return Self(kind: isMilliseconds(number, strategy) ? .millisecondsText : .secondsText)
        }
        // The date part ends at the first `T`, `t` or space after the year's digits.
        guard let separatorIndex = bytes.indices.dropFirst(4).first(where: { [0x54, 0x74, 0x20].contains(bytes[$0]) })
        else { return Self(kind: .dateOnly) }
        var format = Self(kind: .dateTime)
        format.separator = bytes[separatorIndex]
        var index = separatorIndex + 6  // past `HH:mm`
        format.hasSeconds = index < bytes.count && bytes[index] == UInt8(ascii: ":")
        if format.hasSeconds {
            index += 3
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
                index += 1
                let start = index
                while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
                format.fractionDigits = min(index - start, 9)
            }
        }
        format.zone = zone(in: UnsafeBufferPointer(rebasing: bytes[index...]))
        return format
    }

    /// The zone at the end of a date-time: `Z`, `±hh:mm`, `±hhmm`, `±hh` or nothing.
    private static func zone(in bytes: UnsafeBufferPointer<UInt8>) -> Zone {
        guard let sign = bytes.first else { return .none }
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return .utc }
        let digits = bytes.dropFirst().filter { (0x30...0x39).contains($0) }.map { Int($0 - 0x30) }
        let hours = digits.count >= 2 ? digits[0] * 10 + digits[1] : 0
        let minutes = digits.count >= 4 ? digits[2] * 10 + digits[3] : 0
        let seconds = (hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
        if bytes.contains(UInt8(ascii: ":")) { return .colon(seconds) }
        return digits.count >= 4 ? .compact(seconds) : .hours(seconds)
    }
}

// MARK: - Writing

extension ServerDateFormat {
    /// `date` written in this form; a zone-less time is written in `defaultTimeZone`.
    ///
    /// ```swift
    /// ServerDateFormat(of: .string("2024-01-02 03:04:05.678Z"))!.value(for: Date(timeIntervalSince1970: 0))
    /// // .string("1970-01-01 00:00:00.000Z")
    /// ```
    package func value(for date: Date, defaultTimeZone: TimeZone = TimeZone(identifier: "UTC")!) -> JSONValue {
        let seconds = date.timeIntervalSince1970
        switch kind {
        case .seconds:
            guard isWholeNumber else { return .double(seconds) }
            return .int(Int64(FlexibleDateParser.clamped(seconds.rounded())))
        case .milliseconds:
            return .int(Int64(FlexibleDateParser.clamped((seconds * 1000).rounded())))
        case .secondsText:
            return .string(String(Int64(FlexibleDateParser.clamped(seconds.rounded()))))
        case .millisecondsText:
            return .string(String(Int64(FlexibleDateParser.clamped((seconds * 1000).rounded()))))
        case .dateOnly:
            return .string(FlexibleDateParser.dateOnlyString(from: date, timeZone: defaultTimeZone))
        case .dateTime:
            return .string(dateTimeString(for: date, defaultTimeZone: defaultTimeZone))
        }
    }

    private func dateTimeString(for date: Date, defaultTimeZone: TimeZone) -> String {
        let offset: Int
        switch zone {
        case .none: offset = defaultTimeZone.secondsFromGMT(for: date)
        case .utc: offset = 0
        case .colon(let seconds), .compact(let seconds), .hours(let seconds): offset = seconds
        }
        // The fraction as an integer count of its last digit, rounded once (a `Date` rarely holds
        // `.123456` exactly), so that what was read writes back the same digits.
        var scale: Int64 = 1
        for _ in 0..<(hasSeconds ? fractionDigits : 0) { scale *= 10 }
        let local = date.timeIntervalSince1970 + Double(offset)
        let scaled = (local * Double(scale)).rounded(scale > 1 ? .toNearestOrEven : .down)
        let total = Int64(FlexibleDateParser.clamped(scaled))
        let fraction = Int(((total % scale) + scale) % scale)
        let wholeSeconds = Int((total - Int64(fraction)) / scale)
        let days = Int((Double(wholeSeconds) / 86_400).rounded(.down))
        let secondOfDay = wholeSeconds - days * 86_400
        let (year, month, day) = FlexibleDateParser.civilFromDays(days)
        var text = Self.pad(year, 4) + "-" + Self.pad(month, 2) + "-" + Self.pad(day, 2)
        text += String(UnicodeScalar(separator)) + Self.pad(secondOfDay / 3600, 2) + ":"
        text += Self.pad(secondOfDay / 60 % 60, 2)
        if hasSeconds {
            text += ":" + Self.pad(secondOfDay % 60, 2)
            if fractionDigits > 0 { text += "." + Self.pad(fraction, fractionDigits) }
        }
        return text + zoneText
    }

    private var zoneText: String {
        switch zone {
        case .none: return ""
        case .utc: return "Z"
        case .colon(let seconds), .compact(let seconds), .hours(let seconds):
            let sign = seconds < 0 ? "-" : "+"
            let hours = Self.pad(abs(seconds) / 3600, 2)
            let minutes = Self.pad(abs(seconds) / 60 % 60, 2)
            switch zone {
            case .compact: return sign + hours + minutes
            case .hours where abs(seconds) % 3600 == 0: return sign + hours
            default: return sign + hours + ":" + minutes
            }
        }
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
