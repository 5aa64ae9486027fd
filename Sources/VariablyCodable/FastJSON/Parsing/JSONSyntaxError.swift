/// Why a text is not valid JSON, and where: the underlying error of the `DecodingError.dataCorrupted`
/// that ``KeySetJSONDecoder`` throws for a malformed document.
///
/// ```swift
/// do {
///     _ = try KeySetJSONDecoder(source: .remote).decode([User].self, from: Data("[1,]".utf8))
/// } catch DecodingError.dataCorrupted(let context) {
///     print(context.underlyingError as? JSONSyntaxError ?? "")   // unexpected character "]" at byte 3
/// }
/// ```
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Reason: Hashable, Sendable {
        /// The text ends inside a value, or holds no value at all.
        case unexpectedEnd
        /// A byte that cannot start or continue a value here.
        case unexpectedCharacter(UInt8)
        /// A number that does not follow the JSON grammar (`01`, `1.`, `.5`, `-`, `1e`).
        case invalidNumber
        /// A backslash escape other than `\" \\ \/ \b \f \n \r \t \uXXXX`.
        case invalidEscape
        /// A `\uD800`–`\uDFFF` escape that is not half of a surrogate pair.
        case loneSurrogate
        /// A control character (U+0000–U+001F) not escaped inside a string.
        case unescapedControlCharacter
        /// Bytes that are not UTF-8.
        case invalidUTF8
        /// More nested arrays and objects than the decoder's limit.
        case tooDeep(limit: Int)
        /// Something other than whitespace after the top-level value.
        case trailingCharacters
        /// A document of 4 GiB or more.
        case tooLarge
    }

    /// What is wrong.
    public let reason: Reason
    /// The offset of the offending byte in the UTF-8 text.
    public let offset: Int

    init(_ reason: Reason, offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// `unexpected character "]" at byte 3`
    public var description: String {
        let what: String
        switch reason {
        case .unexpectedEnd: what = "unexpected end of the text"
        case .unexpectedCharacter(let byte):
            what =
                byte >= 0x20 && byte < 0x7F
                ? "unexpected character \"\(Character(Unicode.Scalar(byte)))\""
                : "unexpected byte 0x\(String(byte, radix: 16))"
        case .invalidNumber: what = "invalid number"
        case .invalidEscape: what = "invalid escape sequence"
        case .loneSurrogate: what = "unpaired UTF-16 surrogate escape"
        case .unescapedControlCharacter: what = "unescaped control character in a string"
        case .invalidUTF8: what = "invalid UTF-8"
        case .tooDeep(let limit): what = "more than \(limit) nested arrays and objects"
        case .trailingCharacters: what = "characters after the top-level value"
        case .tooLarge: what = "document of 4 GiB or more"
        }
        return "\(what) at byte \(offset)"
    }
}
