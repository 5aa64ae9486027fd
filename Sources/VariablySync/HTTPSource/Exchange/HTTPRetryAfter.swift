import Foundation

/// Reads a `Retry-After` header (RFC 9110 §10.2.3): a number of seconds or an HTTP-date.
enum HTTPRetryAfter {
    /// The longest wait honoured: a server asking for more gets this much, so that a hostile or broken
    /// server cannot park a sync for days (the retry policy's `maxAttempts` still bounds the attempts).
    static let maximum: Duration = .seconds(300)

    /// The delay `value` asks for, from `now`, between zero and ``maximum``; `nil` when it is neither
    /// a number of seconds nor an HTTP-date.
    static func delay(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.count <= 18, text.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int(text) {
            return min(.seconds(seconds), maximum)
        }
        guard let date = httpDate(text) else { return nil }
        let seconds = max(date.timeIntervalSince(now), 0)
        return min(.milliseconds(Int64((min(seconds, 1e9) * 1000).rounded(.up))), maximum)
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), or one of the obsolete forms RFC 9110 §5.6.7
    /// says a recipient must accept: RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
    /// (`Sun Nov  6 08:49:37 1994`).
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            let normalized = format.hasPrefix("EEE MMM") ? text.replacingOccurrences(of: "  ", with: " ") : text
            if let date = formatter.date(from: normalized) { return date }
        }
        return nil
    }
}
