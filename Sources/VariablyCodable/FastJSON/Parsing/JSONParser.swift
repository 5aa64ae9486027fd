/// The strict RFC 8259 scanner that fills a ``JSONDocument``'s tape in one pass.
///
/// It validates everything once (grammar, escapes and surrogate pairs, UTF-8, nesting depth), so that
/// decoding later reads strings and numbers from the bytes without checking them again. The bytes end
/// with zero padding: a zero byte stops every scanning loop, and comparing the position with `end` then
/// tells the end of the text from a stray NUL.
struct JSONParser {
    private let document: JSONDocument
    private let base: UnsafePointer<UInt8>
    private let end: UnsafePointer<UInt8>
    private var position: UnsafePointer<UInt8>
    private let maximumDepth: Int

    init(document: JSONDocument, maximumDepth: Int) {
        self.document = document
        base = UnsafePointer(document.bytes)
        end = base + document.byteCount
        position = base
        self.maximumDepth = maximumDepth
    }

    mutating func parseDocument() throws(JSONSyntaxError) {
        guard document.byteCount < Int(UInt32.max) else { throw JSONSyntaxError(.tooLarge, offset: 0) }
        skipWhitespace()
        try parseValue(depth: 0)
        skipWhitespace()
        if position != end { throw error(.trailingCharacters) }
    }

    // MARK: - Values

    private mutating func parseValue(depth: Int) throws(JSONSyntaxError) {
        switch position.pointee {
        case UInt8(ascii: "\""):
            try parseString()
        case UInt8(ascii: "{"):
            try parseObject(depth: depth + 1)
        case UInt8(ascii: "["):
            try parseArray(depth: depth + 1)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try parseNumber()
        case UInt8(ascii: "t"):
            try parseLiteral(0x6575_7274, kind: .true)  // "true"
        case UInt8(ascii: "f"):
            if position[4] == UInt8(ascii: "e") {
                try parseLiteral(0x736C_6166, kind: .false, extra: 1)  // "fals" + "e"
            } else {
                throw unexpected()
            }
        case UInt8(ascii: "n"):
            try parseLiteral(0x6C6C_756E, kind: .null)  // "null"
        default:
            throw unexpected()
        }
    }

    private mutating func parseLiteral(_ word: UInt32, kind: JSONKind, extra: Int = 0) throws(JSONSyntaxError) {
        let loaded = UnsafeRawPointer(position).loadUnaligned(as: UInt32.self)
        guard UInt32(littleEndian: loaded) == word else { throw unexpectedInLiteral(word) }
        position += 4 + extra
        _ = document.append(JSONTapeEntry(kind: kind))
    }

    private mutating func parseObject(depth: Int) throws(JSONSyntaxError) {
        guard depth <= maximumDepth else { throw error(.tooDeep(limit: maximumDepth)) }
        let index = document.append(JSONTapeEntry(kind: .object))
        position += 1
        skipWhitespace()
        var count = 0
        if position.pointee == UInt8(ascii: "}") {
            position += 1
            document.close(index, count: 0)
            return
        }
        repeat {
            guard position.pointee == UInt8(ascii: "\"") else { throw unexpected() }
            try parseString()
            skipWhitespace()
            guard position.pointee == UInt8(ascii: ":") else { throw unexpected() }
            position += 1
            skipWhitespace()
            try parseValue(depth: depth)
            count += 1
        } while try continuesAfterElement(closedBy: UInt8(ascii: "}"))
        document.close(index, count: count)
    }

    private mutating func parseArray(depth: Int) throws(JSONSyntaxError) {
        guard depth <= maximumDepth else { throw error(.tooDeep(limit: maximumDepth)) }
        let index = document.append(JSONTapeEntry(kind: .array))
        position += 1
        skipWhitespace()
        var count = 0
        if position.pointee == UInt8(ascii: "]") {
            position += 1
            document.close(index, count: 0)
            return
        }
        repeat {
            try parseValue(depth: depth)
            count += 1
        } while try continuesAfterElement(closedBy: UInt8(ascii: "]"))
        document.close(index, count: count)
    }

    /// After an element: consumes `,` and the white space after it (`true`: another element follows)
    /// or `close` (`false`: the container ends); anything else is a syntax error.
    @inline(__always)
    private mutating func continuesAfterElement(closedBy close: UInt8) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        let byte = position.pointee
        if byte == UInt8(ascii: ",") {
            position += 1
            skipWhitespace()
            return true
        }
        guard byte == close else { throw unexpected() }
        position += 1
        return false
    }

    // MARK: - Numbers

    private mutating func parseNumber() throws(JSONSyntaxError) {
        let start = position
        var flags: UInt8 = 0
        if position.pointee == UInt8(ascii: "-") {
            flags |= JSONTapeEntry.isNegative
            position += 1
        }
        if position.pointee == UInt8(ascii: "0") {
            position += 1
        } else if isDigit(position.pointee) {
            repeat { position += 1 } while isDigit(position.pointee)
        } else {
            throw numberError()
        }
        if position.pointee == UInt8(ascii: ".") {
            flags |= JSONTapeEntry.isNonInteger
            position += 1
            guard isDigit(position.pointee) else { throw numberError() }
            repeat { position += 1 } while isDigit(position.pointee)
        }
        if position.pointee | 0x20 == UInt8(ascii: "e") {
            flags |= JSONTapeEntry.isNonInteger
            position += 1
            if position.pointee == UInt8(ascii: "+") || position.pointee == UInt8(ascii: "-") { position += 1 }
            guard isDigit(position.pointee) else { throw numberError() }
            repeat { position += 1 } while isDigit(position.pointee)
        }
        _ = document.append(
            JSONTapeEntry(kind: .number, flags: flags, length: position - start, payload: start - base))
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    // MARK: - Strings

    private mutating func parseString() throws(JSONSyntaxError) {
        position += 1
        let start = position
        var flags = JSONTapeEntry.isASCII
        while true {
            // Eight bytes at a time while none is a quote, a backslash, a control character or non-ASCII.
            while true {
                let word = UInt64(littleEndian: UnsafeRawPointer(position).loadUnaligned(as: UInt64.self))
                let ones: UInt64 = 0x0101_0101_0101_0101
                let highs: UInt64 = 0x8080_8080_8080_8080
                let quotes = word ^ (ones &* 0x22)
                let backslashes = word ^ (ones &* 0x5C)
                let special =
                    ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes) | (word &- ones &* 0x20)
                    | word
                if special & highs != 0 { break }
                position += 8
            }
            let byte = position.pointee
            if byte == UInt8(ascii: "\"") {
                break
            } else if byte == UInt8(ascii: "\\") {
                flags |= JSONTapeEntry.isEscaped
                try skipEscape()
            } else if byte < 0x20 {
                if position == end { throw error(.unexpectedEnd) }
                throw error(.unescapedControlCharacter)
            } else if byte >= 0x80 {
                flags &= ~JSONTapeEntry.isASCII
                try skipUTF8Sequence(byte)
            } else {
                position += 1
            }
        }
        _ = document.append(JSONTapeEntry(kind: .string, flags: flags, length: position - start, payload: start - base))
        position += 1
    }

    /// Validates the escape at `position` (a backslash) and moves past it.
    private mutating func skipEscape() throws(JSONSyntaxError) {
        switch position[1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 2
        case UInt8(ascii: "u"):
            guard let unit = JSONParser.hexValue(position + 2) else { throw escapeError() }
            if unit & 0xFC00 == 0xD800 {
                guard position[6] == UInt8(ascii: "\\"), position[7] == UInt8(ascii: "u"),
                    let low = JSONParser.hexValue(position + 8), low & 0xFC00 == 0xDC00
                else { throw error(.loneSurrogate) }
                position += 12
            } else if unit & 0xFC00 == 0xDC00 {
                throw error(.loneSurrogate)
            } else {
                position += 6
            }
        default:
            throw escapeError()
        }
    }

    /// The value of four hex digits at `pointer`, or `nil`.
    @inline(__always)
    static func hexValue(_ pointer: UnsafePointer<UInt8>, count: Int = 4) -> UInt16? {
        var value: UInt16 = 0
        for offset in 0..<count {
            let byte = pointer[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// Validates the multi-byte UTF-8 sequence starting with `lead` at `position` and moves past it.
    @inline(__always)
    private mutating func skipUTF8Sequence(_ lead: UInt8) throws(JSONSyntaxError) {
        @inline(__always) func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }
        let second = position[1]
        switch lead {
        case 0xC2...0xDF:
            guard isContinuation(second) else { throw utf8Error() }
            position += 2
        case 0xE0...0xEF:
            let valid: Bool
            switch lead {
            case 0xE0: valid = second >= 0xA0 && second <= 0xBF
            case 0xED: valid = second >= 0x80 && second <= 0x9F
            default: valid = isContinuation(second)
            }
            guard valid, isContinuation(position[2]) else { throw utf8Error() }
            position += 3
        case 0xF0...0xF4:
            let valid: Bool
            switch lead {
            case 0xF0: valid = second >= 0x90 && second <= 0xBF
            case 0xF4: valid = second >= 0x80 && second <= 0x8F
            default: valid = isContinuation(second)
            }
            guard valid, isContinuation(position[2]), isContinuation(position[3]) else { throw utf8Error() }
            position += 4
        default:
            throw utf8Error()
        }
    }

    // MARK: - Whitespace and errors

    @inline(__always)
    private mutating func skipWhitespace() {
        while true {
            switch position.pointee {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
            default: return
            }
        }
    }

    private func error(_ reason: JSONSyntaxError.Reason) -> JSONSyntaxError {
        JSONSyntaxError(reason, offset: position - base)
    }

    private func unexpected() -> JSONSyntaxError {
        position >= end ? error(.unexpectedEnd) : error(.unexpectedCharacter(position.pointee))
    }

    private func unexpectedInLiteral(_ word: UInt32) -> JSONSyntaxError {
        // Point at the first byte that differs, or report the end of the text.
        for offset in 0..<4 {
            if position + offset >= end { return JSONSyntaxError(.unexpectedEnd, offset: end - base) }
            if position[offset] != UInt8(truncatingIfNeeded: word >> (8 * offset)) {
                return JSONSyntaxError(.unexpectedCharacter(position[offset]), offset: position + offset - base)
            }
        }
        return unexpected()
    }

    private func numberError() -> JSONSyntaxError {
        position >= end ? error(.unexpectedEnd) : error(.invalidNumber)
    }

    /// The error for the escape at `position`: the text ends inside it, or it is invalid.
    private func escapeError() -> JSONSyntaxError {
        var offending = position + 1
        if offending.pointee == UInt8(ascii: "u") {
            offending += 1
            while offending < position + 6 && JSONParser.hexValue(offending, count: 1) != nil { offending += 1 }
        }
        return offending >= end ? JSONSyntaxError(.unexpectedEnd, offset: end - base) : error(.invalidEscape)
    }

    private func utf8Error() -> JSONSyntaxError {
        error(.invalidUTF8)
    }
}
