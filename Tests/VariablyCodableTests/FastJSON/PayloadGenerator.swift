import Foundation

/// Writes random JSON payloads for ``FastItem``: random key orders, alternatives, nested paths, missing,
/// `null` and wrong-typed fields, unicode and escapes, extreme numbers, duplicate and unknown keys.
struct PayloadGenerator {
    var random: SeededGenerator

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    private mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
    private mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }

    // MARK: - Documents

    mutating func items(count: Int) -> String {
        "[" + (0..<count).map { _ in item() }.joined(separator: pick([",", ", ", ",\n  "])) + "]"
    }

    mutating func page() -> String {
        var members = ["\"items\":" + items(count: Int.random(in: 0...3, using: &random)), "\"total\":" + integer()]
        if chance(70) { members.append("\"next\":" + (chance(80) ? string() : "null")) }
        members.shuffle(using: &random)
        return "{" + members.joined(separator: ",") + "}"
    }

    mutating func item() -> String {
        var members: [(String, String)] = []
        func field(_ key: String, _ value: String) { members.append((key, value)) }
        // Required fields are present most of the time, so that optional ones get decoded too.
        required("id", { $0.integer() }, wrong: { $0.string() }, into: &members)
        let nameKey = pick(["user_name", "username", "userName"])
        required(nameKey, { $0.string() }, wrong: { $0.integer() }, into: &members)
        if chance(10) { field(pick(["user_name", "username", "userName"]), string()) }
        required("score", { $0.double() }, wrong: { $0.string() }, into: &members)
        required("is_active", { $0.bool() }, wrong: { $0.integer() }, into: &members)
        optional("tags", { $0.array(of: { $0.string() }) }, wrong: { $0.array(of: { $0.scalar() }) }, into: &members)
        optional("nick", { $0.string() }, wrong: { $0.integer() }, into: &members)
        optional("small", { $0.smallInteger() }, wrong: { $0.string() }, into: &members)
        optional("big", { $0.unsignedInteger() }, wrong: { $0.bool() }, into: &members)
        optional("count", { $0.integer() }, wrong: { $0.double() }, into: &members)
        optional("ratio", { $0.float() }, wrong: { $0.string() }, into: &members)
        optional("ratios", { $0.array(of: { $0.double() }) }, wrong: { $0.array(of: { $0.scalar() }) }, into: &members)
        optional(
            "numbers", { $0.array(of: { $0.integer() }) }, wrong: { $0.array(of: { $0.scalar() }) }, into: &members)
        optional("created_at", { $0.double() }, wrong: { $0.string() }, into: &members)
        optional("blob", { $0.base64() }, wrong: { $0.integer() }, into: &members)
        optional("link", { $0.url() }, wrong: { $0.integer() }, into: &members)
        optional("amount", { $0.double() }, wrong: { $0.string() }, into: &members)
        optional("role", { $0.role() }, wrong: { $0.integer() }, into: &members)
        optional("token", { $0.uuid() }, wrong: { $0.integer() }, into: &members)
        optional(
            "counts", { $0.object(of: { $0.integer() }) }, wrong: { $0.object(of: { $0.scalar() }) }, into: &members)
        optional("child", { $0.child() }, wrong: { $0.string() }, into: &members)
        optional("children", { $0.array(of: { $0.child() }) }, wrong: { $0.array(of: { $0.scalar() }) }, into: &members)
        optional("extra", { $0.anyValue(depth: 0) }, wrong: { $0.anyValue(depth: 0) }, into: &members)
        optional("flags", { $0.array(of: { $0.bool() }) }, wrong: { $0.array(of: { $0.scalar() }) }, into: &members)
        if chance(60) {
            field("address", address())
        } else if chance(30) {
            field("city", chance(80) ? string() : integer())
        }
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            field(pick(["unknown", "ignored_key", "Ünïcødé", "id2"]), anyValue(depth: 1))
        }
        if chance(5), let duplicate = members.randomElement(using: &random) { field(duplicate.0, scalar()) }
        members.shuffle(using: &random)
        let separator = pick([",", ", ", " ,\n\t", ","])
        return "{" + members.map { "\(key($0.0)):\(pick(["", " "]))\($0.1)" }.joined(separator: separator) + "}"
    }

    private mutating func required(
        _ key: String, _ valid: (inout PayloadGenerator) -> String, wrong: (inout PayloadGenerator) -> String,
        into members: inout [(String, String)]
    ) {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<1: return
        case 1..<2: members.append((key, "null"))
        case 2..<3: members.append((key, wrong(&self)))
        default: members.append((key, valid(&self)))
        }
    }

    private mutating func optional(
        _ key: String, _ valid: (inout PayloadGenerator) -> String, wrong: (inout PayloadGenerator) -> String,
        into members: inout [(String, String)]
    ) {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<25: return
        case 25..<35: members.append((key, "null"))
        case 35..<37: members.append((key, wrong(&self)))
        default: members.append((key, valid(&self)))
        }
    }

    /// A key written plainly, or now and then with escapes for some of its characters.
    private mutating func key(_ name: String) -> String {
        guard chance(5) else { return "\"\(name)\"" }
        return "\""
            + name.unicodeScalars.map { scalar in
                chance(30) ? String(format: "\\u%04x", scalar.value) : String(scalar)
            }.joined() + "\""
    }

    // MARK: - Values

    mutating func integer() -> String {
        if chance(90) {
            return chance(50)
                ? "\(Int.random(in: -1000...1000, using: &random))"
                : "\(Int64.random(in: .min ... .max, using: &random))"
        }
        return pick([
            {
                $0.pick([
                    "0", "-0", "1", "-1", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                    "18446744073709551615", "18446744073709551616", "-9223372036854775809", "1.0", "1e3", "1E+2", "1.5",
                    "-0.0", "12345678901234567890123", "1e18", "1.0e19", "9007199254740993.5", "4294967296",
                    "2147483648",
                    "0.1e1", "100000000000000000000e-2", "1e400", "1e-400",
                ])
            }
        ])(&self)
    }

    mutating func smallInteger() -> String {
        chance(95) ? "\(Int.random(in: -128...127, using: &random))" : pick(["128", "-129", "1.0", "-0"])
    }

    mutating func unsignedInteger() -> String {
        chance(90) ? "\(UInt64.random(in: 0 ... .max, using: &random))" : integer()
    }

    mutating func float() -> String {
        chance(90) ? "\(Float.random(in: -1e6...1e6, using: &random))" : double()
    }

    mutating func double() -> String {
        if chance(85) {
            return chance(50)
                ? "\(Double.random(in: -1e6...1e6, using: &random))" : "\(Int.random(in: -100...100, using: &random))"
        }
        return pick([
            { "\(Double.random(in: -1e6...1e6, using: &$0.random))" },
            { String(format: "%.17g", Double(bitPattern: $0.random.next() & 0x7FEF_FFFF_FFFF_FFFF)) },
            { "\(Int.random(in: -100...100, using: &$0.random))" },
            {
                "\(Int.random(in: 0...9999, using: &$0.random)).\(Int.random(in: 0...999, using: &$0.random))e\(Int.random(in: -30...30, using: &$0.random))"
            },
            {
                $0.pick([
                    "0", "-0", "-0.0", "0e999", "1e308", "1.7976931348623157e308", "1.7976931348623159e308", "1e309",
                    "4.9e-324", "2.4703282292062328e-324", "2e-324", "1e-400", "0.1000000000000000055511151231257827",
                    "123456789012345678901234567890", "9007199254740993", "3.4028235e38", "3.5e38", "1e39", "1.4e-45",
                    "1e-50",
                    "22.5E-1", "0.000001", "1E22", "1e23", "8.98846567431158e307",
                ])
            },
        ])(&self)
    }

    mutating func bool() -> String { chance(50) ? "true" : "false" }

    mutating func string() -> String {
        let pieces = [
            "a", "user", "42", " ", "é", "e\u{301}", "日本", "🎉", "👩‍👩‍👧", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{7F}",
            "\u{2028}", "K", "\u{212A}", "ﬃ", "\u{FFFF}", "𝄞",
        ]
        var text = ""
        for _ in 0..<Int.random(in: 0...8, using: &random) { text += pick(pieces) }
        return encode(text)
    }

    /// JSON text for `text`, escaping what must be escaped and, at random, other characters too.
    mutating func encode(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += pick(["\\n", "\\u000a", "\\u000A"])
            case "\t": out += pick(["\\t", "\\u0009"])
            case "/": out += pick(["/", "\\/"])
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            case _ where scalar.value > 0xFFFF && chance(30):
                let value = scalar.value - 0x10000
                out += String(format: "\\u%04X\\u%04x", 0xD800 + (value >> 10), 0xDC00 + (value & 0x3FF))
            case _ where chance(10) && scalar.value <= 0xFFFF: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    mutating func base64() -> String {
        let bytes = (0..<Int.random(in: 0...12, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        return chance(95) ? "\"\(Data(bytes).base64EncodedString())\"" : pick(["\"abc\"", "\"!!!\"", "\"YWJj\""])
    }

    mutating func url() -> String {
        chance(95)
            ? pick(["\"https://example.com/a?b=c\"", "\"relative/path\"", "\"http://[::1]:80/\"", "\"mailto:x@y\""])
            : pick(["\"\"", "\"a b\"", "\"http://a b\""])
    }

    mutating func role() -> String {
        chance(95) ? pick(["\"admin\"", "\"member\""]) : pick(["\"owner\"", "\"ADMIN\""])
    }

    mutating func uuid() -> String {
        chance(95)
            ? "\"\(seededUUID())\"" : pick(["\"not-a-uuid\"", "\"\"", "\"E621E1F8-C36C-495A-93FC-0C247A3E6E5\""])
    }

    private mutating func seededUUID() -> String {
        let (high, low) = (random.next(), random.next())
        let bytes = withUnsafeBytes(of: (high, low)) { Array($0) }
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
                bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return chance(50) ? uuid.uuidString : uuid.uuidString.lowercased()
    }

    mutating func child() -> String {
        var members: [String] = []
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<1: break
        case 1..<2: members.append("\"code\":null")
        case 2..<3: members.append("\"code\":\(string())")
        default: members.append("\"code\":\(integer())")
        }
        if chance(60) {
            members.append("\"\(pick(["label", "name"]))\":\(chance(95) ? string() : pick(["null", "1", "[]"]))")
        }
        members.shuffle(using: &random)
        return "{" + members.joined(separator: ",") + "}"
    }

    mutating func address() -> String {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<4: return "null"
        case 4..<6: return string()
        case 6..<7: return "[]"
        default: break
        }
        var members: [String] = []
        if chance(70) { members.append("\"city\":\(chance(95) ? string() : pick(["null", "7", "{}"]))") }
        if chance(60) {
            let postal =
                chance(95) ? "{\"zip\":\(chance(95) ? string() : pick(["null", "7"]))}" : pick(["null", "3", "[1]"])
            members.append("\"postal\":\(postal)")
        }
        members.shuffle(using: &random)
        return "{" + members.joined(separator: ",") + "}"
    }

    mutating func scalar() -> String {
        pick([{ $0.integer() }, { $0.double() }, { $0.string() }, { $0.bool() }, { _ in "null" }])(&self)
    }

    mutating func anyValue(depth: Int) -> String {
        if depth > 3 { return scalar() }
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return array(of: { $0.anyValue(depth: depth + 1) })
        case 1: return object(of: { $0.anyValue(depth: depth + 1) })
        default: return scalar()
        }
    }

    mutating func array(of element: (inout PayloadGenerator) -> String) -> String {
        var elements: [String] = []
        for _ in 0..<Int.random(in: 0...4, using: &random) { elements.append(element(&self)) }
        return "[" + elements.joined(separator: pick([",", ", "])) + "]"
    }

    /// An object whose members all have the same key, written in different ways (escaped or not):
    /// Swift dictionaries iterate in an order that changes from run to run, so an object with two
    /// failing members under different keys would fail at either of them, in either decoder.
    mutating func object(of value: (inout PayloadGenerator) -> String) -> String {
        let name = pick(["a", "b", "ключ", "c d", "K"])
        var members: [String] = []
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            members.append("\(encode(name)):\(value(&self))")
        }
        return "{" + members.joined(separator: ",") + "}"
    }
}
