public import Foundation

/// How dates are read and written, per key, per source or for a whole Foundation coder.
///
/// Decoding is flexible with every strategy: one payload may mix `yyyy-MM-dd`, ISO 8601 with or without
/// fractional seconds and with `Z`, `+hh:mm`, `+hhmm`, `+hh` or no zone, and epoch numbers (JSON
/// numbers or numeric strings). The strategies differ in how they read a *number* and how they write:
///
/// | Strategy | A number means | Writes |
/// |---|---|---|
/// | ``flexible`` | seconds below 100,000,000,000, milliseconds from there | ISO 8601 with milliseconds, UTC |
/// | ``iso8601`` | same as `flexible` | `2024-05-01T12:30:00Z` |
/// | ``secondsSince1970`` | seconds | a number of seconds |
/// | ``millisecondsSince1970`` | milliseconds | an integer number of milliseconds |
/// | ``dateOnly`` | same as `flexible` | `2024-05-01` (in the default time zone) |
///
/// A string without a zone is read in ``defaultTimeZone`` (UTC unless you say otherwise). Parsing
/// and formatting are done by hand on UTF-8 bytes, without `DateFormatter`: nothing is created per
/// value and nothing is shared mutably, so a strategy is safe to use from any thread.
///
/// ```swift
/// decoder.dateDecodingStrategy = .flexible                        // any Foundation decoder
/// Key(\.createdAt, "created_at").dates(.flexible)                 // one key of a key set
/// KeySet(.local) { ... }.dates(.millisecondsSince1970)           // a whole source
/// ```
public struct DateCodingStrategy: Hashable, Sendable {
    /// How a number (or numeric string) is read.
    ///
    /// ```swift
    /// let strategy = DateCodingStrategy(numberUnit: .milliseconds)
    /// ```
    public enum NumberUnit: Hashable, Sendable {
        /// Seconds when the magnitude is below `threshold`, milliseconds from it on.
        case byMagnitude(threshold: Double)
        /// Always seconds since 1970.
        case seconds
        /// Always milliseconds since 1970.
        case milliseconds
    }

    /// How dates are written.
    ///
    /// ```swift
    /// let strategy = DateCodingStrategy(output: .iso8601(fractionalSeconds: false))
    /// ```
    public enum Output: Hashable, Sendable {
        /// ISO 8601 in UTC, e.g. `2024-05-01T12:30:00Z`, with milliseconds when `fractionalSeconds`.
        case iso8601(fractionalSeconds: Bool)
        /// A number of seconds since 1970.
        case secondsSince1970
        /// An integer number of milliseconds since 1970.
        case millisecondsSince1970
        /// `yyyy-MM-dd` in the default time zone.
        case dateOnly
    }

    /// The magnitude from which ``flexible`` reads a number as milliseconds: 100,000,000,000, which is
    /// 5138-11-16 in seconds and 1973-03-03 in milliseconds.
    public static let millisecondsThreshold: Double = 100_000_000_000

    /// How a number is read.
    public var numberUnit: NumberUnit
    /// How a date is written.
    public var output: Output
    /// The zone of strings that name none, and of ``Output/dateOnly``.
    public var defaultTimeZone: TimeZone

    /// Creates a strategy.
    ///
    /// ```swift
    /// let paris = DateCodingStrategy(
    ///     numberUnit: .seconds, output: .dateOnly, defaultTimeZone: TimeZone(identifier: "Europe/Paris")!)
    /// ```
    public init(
        numberUnit: NumberUnit = .byMagnitude(threshold: DateCodingStrategy.millisecondsThreshold),
        output: Output = .iso8601(fractionalSeconds: true),
        defaultTimeZone: TimeZone = TimeZone(identifier: "UTC")!
    ) {
        self.numberUnit = numberUnit
        self.output = output
        self.defaultTimeZone = defaultTimeZone
    }

    /// Reads every format; writes ISO 8601 with milliseconds in UTC.
    ///
    /// ```swift
    /// decoder.dateDecodingStrategy = .flexible
    /// ```
    public static let flexible = DateCodingStrategy()

    /// Reads every format; writes ISO 8601 without fractional seconds (`2024-05-01T12:30:00Z`).
    public static let iso8601 = DateCodingStrategy(output: .iso8601(fractionalSeconds: false))

    /// Reads every format; writes ISO 8601 with milliseconds (`2024-05-01T12:30:00.250Z`).
    public static let iso8601WithFractionalSeconds = DateCodingStrategy(output: .iso8601(fractionalSeconds: true))

    /// Reads numbers as seconds; writes seconds since 1970.
    public static let secondsSince1970 = DateCodingStrategy(numberUnit: .seconds, output: .secondsSince1970)

    /// Reads numbers as milliseconds; writes integer milliseconds since 1970.
    ///
    /// ```swift
    /// KeySet(.local, style: .snakeCase).dates(.millisecondsSince1970)
    /// ```
    public static let millisecondsSince1970 = DateCodingStrategy(
        numberUnit: .milliseconds, output: .millisecondsSince1970)

    /// Reads every format; writes `yyyy-MM-dd` in UTC.
    public static let dateOnly = DateCodingStrategy(output: .dateOnly)
}

// MARK: - Reading

extension DateCodingStrategy {
    /// The date a string denotes: a date, a date-time, or a numeric string read as an epoch number.
    ///
    /// ```swift
    /// DateCodingStrategy.flexible.date(from: "2024-05-01T12:30:00+02:00")
    /// DateCodingStrategy.flexible.date(from: "1714566600000")   // milliseconds
    /// ```
    ///
    /// - Returns: `nil` if the string is in none of the accepted formats or names an impossible date.
    public func date(from string: String) -> Date? {
        var string = string
        return string.withUTF8 { bytes in
            if let number = FlexibleDateParser.number(in: bytes) {
                return date(fromNumber: number)
            }
            return FlexibleDateParser.date(in: bytes, defaultTimeZone: defaultTimeZone)
        }
    }

    /// The date an epoch number denotes, read in ``numberUnit``.
    ///
    /// ```swift
    /// DateCodingStrategy.flexible.date(fromNumber: 1_714_566_600)       // seconds
    /// DateCodingStrategy.flexible.date(fromNumber: 1_714_566_600_000)   // milliseconds
    /// ```
    package func date(fromNumber number: Double) -> Date {
        switch numberUnit {
        case .seconds: return Date(timeIntervalSince1970: number)
        case .milliseconds: return Date(timeIntervalSince1970: number / 1000)
        case .byMagnitude(let threshold):
            return Date(timeIntervalSince1970: abs(number) >= threshold ? number / 1000 : number)
        }
    }

    /// The date a JSON value denotes (a number or a string).
    ///
    /// ```swift
    /// try DateCodingStrategy.flexible.date(from: .int(1_714_566_600), codingPath: [])
    /// ```
    ///
    /// - Throws: `DecodingError.typeMismatch` for another kind of value, `.dataCorrupted` for a string in
    ///   no accepted format.
    package func date(from value: JSONValue, codingPath: [any CodingKey]) throws -> Date {
        switch value {
        case .int(let number): return date(fromNumber: Double(number))
        case .double(let number) where number.isFinite: return date(fromNumber: number)
        case .bigInteger(let digits) where Double(digits)?.isFinite == true:
            // A whole number beyond Int64 (`1e20` reads as one): as far from 1970 as a plain `Date` reads it.
            return date(fromNumber: Double(digits)!)
        case .string(let string):
            if let date = date(from: string) { return date }
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "\"\(string)\" is not a date in any format tried: \(formatsTried).")
            )
        default:
            throw DecodingError.typeMismatch(
                Date.self,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "Expected a date, found \(value.kindName); formats tried: \(formatsTried)."))
        }
    }

    /// The formats this strategy reads, for error messages.
    ///
    /// ```swift
    /// DateCodingStrategy.flexible.formatsTried
    /// // "yyyy-MM-dd; ISO 8601 yyyy-MM-ddTHH:mm[:ss[.fraction]] (a space for the T) with Z, ±hh:mm, ..."
    /// ```
    package var formatsTried: String {
        let numbers: String
        switch numberUnit {
        case .seconds: numbers = "seconds since 1970"
        case .milliseconds: numbers = "milliseconds since 1970"
        case .byMagnitude(let threshold):
            let limit = Int64(exactly: threshold).map(String.init) ?? "\(threshold)"
            numbers = "seconds since 1970 (milliseconds from \(limit))"
        }
        let zone = defaultTimeZone.identifier == "GMT" ? "UTC" : defaultTimeZone.identifier
        return "yyyy-MM-dd (midnight \(zone)); ISO 8601 yyyy-MM-ddTHH:mm[:ss[.fraction]] (a space for the T) "
            + "with Z, ±hh:mm, ±hhmm, ±hh or no zone (\(zone)); a number or numeric string of \(numbers)"
    }

    /// Reads a date from a single-value container holding a string or a number.
    ///
    /// ```swift
    /// let date = try DateCodingStrategy.flexible.decode(from: decoder.singleValueContainer())
    /// ```
    ///
    /// - Throws: `DecodingError` as ``date(from:codingPath:)``.
    package func decode(from container: any SingleValueDecodingContainer) throws -> Date {
        if let string = try? container.decode(String.self) {
            return try date(from: .string(string), codingPath: container.codingPath)
        }
        if let number = try? container.decode(Double.self) {
            return date(fromNumber: number)
        }
        throw DecodingError.typeMismatch(
            Date.self,
            DecodingError.Context(
                codingPath: container.codingPath,
                debugDescription: "Expected a date string or number; formats tried: \(formatsTried)."))
    }
}

// MARK: - Writing

extension DateCodingStrategy {
    /// The value ``output`` writes for `date`.
    ///
    /// ```swift
    /// DateCodingStrategy.millisecondsSince1970.encodedValue(for: date)   // .int(1714566600000)
    /// DateCodingStrategy.iso8601.encodedValue(for: date)                 // .string("2024-05-01T12:30:00Z")
    /// ```
    package func encodedValue(for date: Date) -> JSONValue {
        switch output {
        case .secondsSince1970: return .double(date.timeIntervalSince1970)
        case .millisecondsSince1970:
            // Beyond Int64 (a date read from a hostile number), the exact double instead of a trap.
            let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
            return Int64(exactly: milliseconds).map(JSONValue.int) ?? .double(milliseconds)
        case .iso8601(let fractionalSeconds):
            return .string(FlexibleDateParser.iso8601String(from: date, fractionalSeconds: fractionalSeconds))
        case .dateOnly:
            return .string(FlexibleDateParser.dateOnlyString(from: date, timeZone: defaultTimeZone))
        }
    }

    /// Writes `date` into a single-value container as ``output`` says.
    ///
    /// ```swift
    /// var container = encoder.singleValueContainer()
    /// try DateCodingStrategy.iso8601.encode(date, to: &container)
    /// ```
    ///
    /// - Throws: What the container throws.
    package func encode(_ date: Date, to container: inout some SingleValueEncodingContainer) throws {
        switch encodedValue(for: date) {
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        default: preconditionFailure("DateCodingStrategy writes only numbers and strings")
        }
    }
}
