import Foundation
import VariablyCodable

// MARK: - The look-back window of `updatedSince`

extension HTTPPullShape {
    /// `value` moved `lookBack` earlier: a number less that many seconds, an ISO 8601 timestamp as
    /// whole seconds in UTC (`2026-11-26T12:44:51Z`, rounded down, so the window is never shorter).
    static func value(_ value: JSONValue, lookingBack lookBack: Duration) throws -> JSONValue {
        let seconds = Double(lookBack.components.seconds) + Double(lookBack.components.attoseconds) / 1e18
        switch value {
        case .int(let number): return .int(number - Int64(seconds.rounded(.up)))
        case .double(let number): return .double(number - seconds)
        case .string(let text):
            guard let date = timestamp(text) else { break }
            let earlier = (date.timeIntervalSince1970 - seconds).rounded(.down)
            return .string(wholeSecondsText(Date(timeIntervalSince1970: earlier)))
        default: break
        }
        throw RemoteSourceError.invalidResponse(
            "a look-back needs the changedSince field's values as numbers or ISO 8601 timestamps, not \(value.jsonString().prefix(80))")
    }

    /// A `changedSince` value as seconds (since 1970 for a timestamp); `nil` for other values.
    static func seconds(of value: JSONValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        case .string(let text): timestamp(text)?.timeIntervalSince1970
        default: nil
        }
    }

    /// The records of `recent` that the next pull asks for again: at or after `largest` moved
    /// `lookBack` earlier, as the request sends it (all of them without a `largest`); the newest
    /// ``HTTPPullState/maximumRecent`` at most.
    static func window(
        _ recent: [HTTPPullState.RecentRecord], after largest: JSONValue?, lookBack: Duration
    ) -> [HTTPPullState.RecentRecord] {
        var kept = recent
        if let largest, let start = (try? value(largest, lookingBack: lookBack)).flatMap(seconds(of:)) {
            kept.removeAll { $0.seconds < start }
        }
        return kept.count > HTTPPullState.maximumRecent ? Array(kept.suffix(HTTPPullState.maximumRecent)) : kept
    }

    /// An ISO 8601 timestamp (`2026-11-26T12:44:56.647898Z`, `…+01:00`), any number of fraction
    /// digits, as a date; `nil` for other text. Read by hand: formatters read at most milliseconds, and
    /// one formatter shared between threads would need a lock on every record of a pull.
    static func timestamp(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 32,
            bytes[13] == 58, bytes[16] == 58,
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == 46 {
            index += 1
            var scale = 0.1
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        if bytes[index] == 90, index + 1 == bytes.count {
            offset = 0
        } else if bytes[index] == 43 || bytes[index] == 45, index + 6 == bytes.count, bytes[index + 3] == 58,
            let hours = number(index + 1, 2), let minutes = number(index + 4, 2)
        {
            offset = (bytes[index] == 43 ? 1 : -1) * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// `date` as `2026-11-26T12:44:51Z` (ISO 8601, whole seconds, UTC).
    static func wholeSecondsText(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = Int((Double(total) / 86_400).rounded(.down))
        let seconds = total - days * 86_400
        // https://howardhinnant.github.io/date_algorithms.html#civil_from_days
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(seconds / 3600))\(":")\(two(seconds / 60 % 60)):\(two(seconds % 60))Z"
    }

    /// Days from 1970-01-01 to a civil date (https://howardhinnant.github.io/date_algorithms.html#days_from_civil).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
