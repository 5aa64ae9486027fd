import Foundation
import VariablyCodable

// MARK: - The look-back window of `updatedSince`

extension HTTPPullShape {
    /// `value` moved `lookBack` earlier: a number less that many seconds, an ISO 8601 timestamp in the
    /// form the server wrote it (`2026-11-26 12:44:51.647Z` stays with a space, three fraction digits
    /// and `Z`; rounded down to that precision, so the window is never shorter): a server that compares
    /// the text reads the boundary as it reads its own values.
    static func value(_ value: JSONValue, lookingBack lookBack: Duration) throws -> JSONValue {
        let seconds = Double(lookBack.components.seconds) + Double(lookBack.components.attoseconds) / 1e18
        switch value {
        case .int(let number): return .int(number - Int64(seconds.rounded(.up)))
        case .double(let number): return .double(number - seconds)
        case .string(let text):
            guard let stamp = ServerTimestamp(text) else { break }
            return .string(stamp.movedEarlier(bySeconds: seconds))
        default: break
        }
        throw RemoteSourceError.invalidResponse(
            "a look-back needs the changedSince field's values as numbers or ISO 8601 timestamps, not \(value.jsonString().prefix(80))"
        )
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

    /// An ISO 8601 timestamp (`2026-11-26T12:44:56.647898Z`, `…+01:00`; UTC when it names no zone), any
    /// number of fraction digits, as a date; `nil` for other text.
    static func timestamp(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { FlexibleDateParser.date(in: $0, defaultTimeZone: utc) }
    }

    private static let utc = TimeZone(secondsFromGMT: 0)!
}
