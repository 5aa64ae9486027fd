import VariablyCodable

/// A timestamp as a server wrote it, taken apart so that a moved instant is written back in the same
/// form: the same separator between date and time (`T`, `t` or a space), as many fraction digits, the
/// same zone text (`Z`, `+01:00`, `+0100`, or none). A server that compares the text of its column (a
/// `TEXT` column, PocketBase's filters) reads `2026-11-27 12:55:31.000Z` and `2026-11-27T12:55:31Z`
/// differently: a boundary sent in another form than the server's own can skip or repeat rows.
///
/// ```swift
/// let stamp = ServerTimestamp("2026-11-27 12:55:36.000Z")!
/// stamp.movedEarlier(bySeconds: 5)   // "2026-11-27 12:55:31.000Z"
/// ```
struct ServerTimestamp: Equatable {
    /// Seconds since 1970 (UTC) of the whole second.
    private var seconds: Int64
    /// The fraction of the second, in units of 10^-`fractionDigits`.
    private var fraction: Int64
    /// How many fraction digits the server wrote (0 for none, at most 9).
    private let fractionDigits: Int
    /// The text between the date and the time; `nil` for a date without a time.
    private let separator: Character?
    /// The zone as written (`Z`, `+01:00`), `""` for none.
    private let zoneText: String
    /// The zone's offset from UTC, in seconds.
    private let offset: Int64

    /// The parts of `text`; `nil` when it is not an ISO 8601 date or date-time of the forms above.
    init?(_ text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func skip(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
            index += 1
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let days = Int64(FlexibleDateParser.daysFromCivil(year: Int(year), month: Int(month), day: Int(day)))
        guard index < bytes.count else {
            (seconds, fraction, fractionDigits, separator, zoneText, offset) = (days * 86_400, 0, 0, nil, "", 0)
            return
        }
        let separator = Character(Unicode.Scalar(bytes[index]))
        guard separator == "T" || separator == "t" || separator == " " else { return nil }
        index += 1
        guard let hour = number(2), skip(":"), let minute = number(2), skip(":"), let second = number(2),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction: Int64 = 0
        var digits = 0
        if skip(".") {
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                guard digits < 9 else { return nil }
                fraction = fraction * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
        }
        let zoneStart = index
        var offset: Int64 = 0
        if skip("Z") || skip("z") {
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2) else { return nil }
            _ = skip(":")
            guard let minutes = number(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard index == bytes.count else { return nil }
        self.seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        self.fraction = fraction
        self.fractionDigits = digits
        self.separator = separator
        self.zoneText = String(decoding: bytes[zoneStart...], as: UTF8.self)
        self.offset = offset
    }

    /// The instant `seconds` earlier, in the same form, rounded down to the precision the server wrote
    /// (a whole day for a date alone), so that the window asked for is never shorter than `seconds`.
    func movedEarlier(bySeconds amount: Double) -> String {
        var moved = self
        guard separator != nil else {
            let days = Int64((amount / 86_400).rounded(.up))
            moved.seconds -= days * 86_400
            return moved.text
        }
        let unit = Self.power(fractionDigits)
        let total = seconds * unit + fraction - Int64((amount * Double(unit)).rounded(.up))
        moved.seconds = total >= 0 ? total / unit : (total - unit + 1) / unit
        moved.fraction = total - moved.seconds * unit
        return moved.text
    }

    /// The timestamp in its server's form.
    var text: String {
        let local = seconds + offset
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let (year, month, day) = FlexibleDateParser.civilFromDays(Int(days))
        var text = Self.pad(Int64(year), 4) + "-" + Self.pad(Int64(month), 2) + "-" + Self.pad(Int64(day), 2)
        guard let separator else { return text }
        let secondOfDay = local - days * 86_400
        text.append(separator)
        text += Self.pad(secondOfDay / 3600, 2) + ":" + Self.pad(secondOfDay / 60 % 60, 2) + ":"
        text += Self.pad(secondOfDay % 60, 2)
        if fractionDigits > 0 { text += "." + Self.pad(fraction, fractionDigits) }
        return text + zoneText
    }

    private static func power(_ digits: Int) -> Int64 {
        (0..<digits).reduce(1) { value, _ in value * 10 }
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
