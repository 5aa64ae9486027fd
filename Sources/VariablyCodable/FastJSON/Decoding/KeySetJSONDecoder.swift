public import Foundation

/// Decodes key-set models from JSON several times faster than `JSONDecoder`, with the same results.
///
/// The decoder parses the UTF-8 bytes once, strictly (RFC 8259), into a compact tape; then each model's
/// unchanged `init(from container:)` reads its properties through a table of its key set's keys
/// matched by their bytes. Everything else decodes through a standard `Decoder` over the same tape.
/// Values, `null`/missing rules, alternatives, nested paths, toolkit options and errors (the same
/// ``VariablyCodingError``s with the same coding paths) are those of `JSONDecoder` with the same source.
///
/// ```swift
/// let decoder = KeySetJSONDecoder(source: .remote)
/// let users = try decoder.decode([User].self, from: data)          // an array of models
/// let page = try decoder.decode(Page<User>.self, from: data)        // any Decodable wrapper
/// ```
///
/// `JSONDecoder`'s default strategies apply: dates as seconds since 2001 (`.deferredToDate`), `Data` as
/// Base64, non-conforming floats refused, keys as written. Unlike `JSONDecoder`, the decoder refuses
/// trailing commas and invalid UTF-8 anywhere in the document (see `docs/fast-json.md`).
public struct KeySetJSONDecoder: Sendable {
    /// The source whose key sets models decode with; `nil` uses each model's default source.
    ///
    /// ```swift
    /// var decoder = KeySetJSONDecoder()
    /// decoder.source = .local
    /// ```
    public var source: CodingSource?
    /// Context for `Decodable` types, as `JSONDecoder.userInfo`; ``source`` is added as `.codingSource`.
    ///
    /// ```swift
    /// decoder.userInfo[.tenant] = "acme"
    /// ```
    public var userInfo: [CodingUserInfoKey: any Sendable]
    /// The deepest nesting of arrays and objects accepted: 512 (as `JSONDecoder`) unless lowered; values
    /// above 512 count as 512, so that a hostile document cannot exhaust a thread's stack.
    ///
    /// ```swift
    /// var decoder = KeySetJSONDecoder(source: .remote)
    /// decoder.maximumDepth = 32
    /// ```
    public var maximumDepth: Int

    /// Creates a decoder for the key sets of `source`.
    ///
    /// ```swift
    /// let decoder = KeySetJSONDecoder(source: .remote)
    /// ```
    ///
    /// - Parameters:
    ///   - source: The source to decode; `nil` uses each model's default source.
    ///   - userInfo: Context for `Decodable` types.
    public init(source: CodingSource? = nil, userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.source = source
        self.userInfo = userInfo
        self.maximumDepth = JSONDocument.defaultMaximumDepth
    }

    /// The toolkit options in `userInfo[.decodingOptions]`: lenient scalars, strict mode, a report.
    ///
    /// ```swift
    /// var decoder = KeySetJSONDecoder(source: .remote)
    /// decoder.decodingOptions = DecodingOptions(isLenient: true, report: report)
    /// ```
    public var decodingOptions: DecodingOptions {
        get { userInfo[.decodingOptions] as? DecodingOptions ?? DecodingOptions() }
        set { userInfo[.decodingOptions] = newValue }
    }

    /// Decodes a value of `type` from the JSON text `data`.
    ///
    /// ```swift
    /// let users = try KeySetJSONDecoder(source: .remote).decode([User].self, from: data)
    /// ```
    ///
    /// - Parameters:
    ///   - type: A key-set model, an array of models, or any `Decodable` type (models nested in it are
    ///     decoded through their key sets too).
    ///   - data: UTF-8 JSON text (UTF-16 and UTF-32 are detected and converted, as by `JSONDecoder`).
    /// - Throws: ``VariablyCodingError`` for a key-set model's property, as `JSONDecoder` would;
    ///   `DecodingError.dataCorrupted` at the top level with a ``JSONSyntaxError`` for a malformed
    ///   document or an ``UnrepresentableJSONNumberError`` for a number that does not fit its type; other
    ///   `DecodingError`s for plain `Decodable` types.
    /// - Complexity: O(*n*) in the size of `data`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let document: JSONDocument
        do {
            document = try JSONDocument(
                data: data, maximumDepth: min(max(maximumDepth, 0), JSONDocument.defaultMaximumDepth))
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: "The given data was not valid JSON.", underlyingError: error))
        }
        var info: [CodingUserInfoKey: Any] = userInfo
        if let source { info[.codingSource] = source }
        let session = JSONDecodingSession(document: document, userInfo: info)
        defer { session.finish() }
        do {
            return try session.decodeValue(T.self, at: 0, path: .root)
        } catch let error as UnrepresentableJSONNumberError {
            // Foundation reports numbers that do not fit as invalid JSON, at the top level.
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: "The given data was not valid JSON.", underlyingError: error))
        }
    }
}
