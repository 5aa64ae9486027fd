import Foundation
import VariablyCodable
import VariablySQLite

// Predicates generated from the bytes (comparisons, equality with nil, &&, ||, !, contains and
// starts(with:) on strings, contains on a captured array, arithmetic) are translated to SQL: the
// translation either throws QueryTranslationError or gives SQL with one `?` per bound value and no
// value text in it, and the query returns exactly the rows the predicate selects in memory.

struct FuzzBytes {
    let bytes: [UInt8]
    var index = 0

    mutating func next() -> UInt8 {
        defer { index += 1 }
        return index < bytes.count ? bytes[index] : 0
    }

    mutating func int() -> Int { Int(Int8(bitPattern: next())) }

    /// Short text with the characters that matter to SQL and LIKE, and those where Swift and bytes
    /// disagree: canonical equivalents (`é` precomposed, `e` + U+0301, `Å` as U+00C5, U+212B, `A` + U+030A),
    /// line breaks (`"\r\n"` is one `Character`), emoji sequence parts (ZWJ, a person, regional indicators).
    /// Characters written next to each other may join into one (`e` then U+0301).
    mutating func text() -> String {
        let alphabet: [Character] =
            Array("ab%_\\'\"-;A") + [
                "\u{E9}", "e", "\u{301}", "\u{C5}", "\u{212B}", "\u{30A}", "\r", "\n", "\u{200D}", "\u{1F469}",
                "\u{1F1F8}",
                "\u{1F1EB}",
            ]
        return String((0..<Int(next() % 5)).map { _ in alphabet[Int(next()) % alphabet.count] })
    }
}

typealias FuzzCondition = any StandardPredicateExpression<Bool>

func makeCondition(_ input: PredicateExpressions.Variable<User>, _ bytes: inout FuzzBytes, depth: Int)
    -> FuzzCondition
{
    let age = PredicateExpressions.build_KeyPath(root: input, keyPath: \User.age)
    let name = PredicateExpressions.build_KeyPath(root: input, keyPath: \User.userName)
    switch bytes.next() % (depth > 3 ? 7 : 10) {
    case 0:
        let value = PredicateExpressions.build_Arg(bytes.int())
        switch bytes.next() % 4 {
        case 0: return PredicateExpressions.build_Equal(lhs: age, rhs: value)
        case 1: return PredicateExpressions.build_NotEqual(lhs: age, rhs: value)
        case 2: return PredicateExpressions.build_Comparison(lhs: age, rhs: value, op: .lessThan)
        default: return PredicateExpressions.build_Comparison(lhs: value, rhs: age, op: .greaterThanOrEqual)
        }
    case 1:
        let text = PredicateExpressions.build_Arg(bytes.text())
        switch bytes.next() % 3 {
        case 0: return PredicateExpressions.build_Equal(lhs: name, rhs: text)
        case 1: return PredicateExpressions.build_Comparison(lhs: name, rhs: text, op: .lessThan)
        default: return PredicateExpressions.build_Comparison(lhs: name, rhs: text, op: .greaterThanOrEqual)
        }
    case 2:
        return PredicateExpressions.build_contains(name, PredicateExpressions.build_Arg(bytes.text()))
    case 3:
        return PredicateExpressions.build_starts(name, with: PredicateExpressions.build_Arg(bytes.text()))
    case 4:
        let nickname = PredicateExpressions.build_KeyPath(root: input, keyPath: \User.nickname)
        return bytes.next() % 2 == 0
            ? PredicateExpressions.build_Equal(lhs: nickname, rhs: PredicateExpressions.build_NilLiteral())
            : PredicateExpressions.build_NotEqual(
                lhs: nickname, rhs: PredicateExpressions.build_Arg(Optional(bytes.text())))
    case 5:
        return PredicateExpressions.build_KeyPath(root: input, keyPath: \User.isActive)
    case 6:
        let names = (0..<Int(bytes.next() % 4)).map { _ in bytes.text() }
        return PredicateExpressions.build_contains(PredicateExpressions.build_Arg(names), name)
    case 7:
        let sum = PredicateExpressions.build_Arithmetic(
            lhs: age, rhs: PredicateExpressions.build_Arg(bytes.int()), op: bytes.next() % 2 == 0 ? .add : .multiply)
        return PredicateExpressions.build_Comparison(
            lhs: sum, rhs: PredicateExpressions.build_Arg(bytes.int()), op: .greaterThan)
    case 8:
        let left = makeCondition(input, &bytes, depth: depth + 1)
        let right = makeCondition(input, &bytes, depth: depth + 1)
        return combine(left, right, isConjunction: bytes.next() % 2 == 0)
    default:
        return negate(makeCondition(input, &bytes, depth: depth + 1))
    }
}

/// `left && right` or `left || right` over the concrete types behind the existentials.
func combine(_ left: FuzzCondition, _ right: FuzzCondition, isConjunction: Bool) -> FuzzCondition {
    func openLeft<L: StandardPredicateExpression<Bool>>(_ left: L) -> FuzzCondition {
        func openRight<R: StandardPredicateExpression<Bool>>(_ right: R) -> FuzzCondition {
            isConjunction
                ? PredicateExpressions.build_Conjunction(lhs: left, rhs: right)
                : PredicateExpressions.build_Disjunction(lhs: left, rhs: right)
        }
        return openRight(right)
    }
    return openLeft(left)
}

/// `!condition` over the concrete type behind the existential.
func negate(_ condition: FuzzCondition) -> FuzzCondition {
    func open<C: StandardPredicateExpression<Bool>>(_ condition: C) -> FuzzCondition {
        PredicateExpressions.build_Negation(condition)
    }
    return open(condition)
}

let fuzzNames = [
    "a", "ab", "a%b", "a_b", "'a'", "\"b\"", "a\\b", "A", "b-a", "", "ba;", "aa",
    "\u{E9}", "e\u{301}", "e", "\u{212B}", "A\u{30A}b", "a\r\nb", "\r", "\u{1F468}\u{200D}\u{1F469}",
    "\u{1F1FA}\u{1F1F8}\u{1F1EB}\u{1F1F7}",
]

let fuzzRows: [User] = (0..<fuzzNames.count).map { index in
    let names = fuzzNames
    return User(
        id: Int64(index + 1), userName: names[index], email: "u\(index)@x", age: index * 11 - 40,
        isActive: index % 3 == 0,
        score: Double(index), updatedAt: Date(timeIntervalSince1970: 0), tags: [],
        nickname: index % 4 == 0 ? nil : names[names.count - 1 - index])
}

let fuzzDatabase: SQLiteDatabase = {
    let db = try! SQLiteDatabase.inMemory()
    try! db.write { db in
        try db.migrate(User.self)
        try db.insert(fuzzRows)
    }
    return db
}()

/// The rows as stored, which a fetch returns and `.evaluateInMemory` filters: their text is in NFC, and
/// Swift orders a string that is not in NFC inconsistently, so the rows as written are no reference.
let fuzzStoredRows: [User] = try! fuzzDatabase.read { try $0.fetchAll(User.self) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicateSQL(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var bytes = FuzzBytes(bytes: Array(UnsafeBufferPointer(start: start, count: count)))
    let predicate = Predicate<User> { input in makeCondition(input, &bytes, depth: 0) }
    let query: SQLQuery
    do {
        query = try SQLQuery.select(User.self, where: predicate)
    } catch is QueryTranslationError {
        return 0
    } catch {
        fuzzFailure("untyped translation error \(type(of: error)): \(error)")
    }
    if query.sql.filter({ $0 == "?" }).count != query.arguments.count {
        fuzzFailure("placeholders and arguments disagree: \(query.sql) \(query.arguments)")
    }
    let expected: [Int64]
    do {
        expected = try fuzzStoredRows.filter { try predicate.evaluate($0) }.map(\.id)
    } catch {
        return 0  // e.g. an arithmetic overflow in memory: nothing to compare with
    }
    do {
        // The translated SQL itself, run once: `fetch(_:where:)` runs exactly this query (`SQLQuery.select`)
        // and decodes each row, which would translate the predicate a second time and decode columns
        // nothing here compares.
        let found = try fuzzDatabase.read {
            try $0.fetch(sql: query.sql, arguments: StatementArguments(query.arguments))
        }.map { row in
            guard case .integer(let id) = row["id"] else { fuzzFailure("a row without its id: \(row)") }
            return id
        }
        if found.sorted() != expected.sorted() {
            fuzzFailure("\(query.sql) \(query.arguments) returned \(found.sorted()), in memory \(expected.sorted())")
        }
    } catch {
        fuzzFailure("the translated query failed: \(query.sql): \(error)")
    }
    return 0
}
