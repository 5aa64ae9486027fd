import Foundation
import VariablyCodable
import VariablySQLite

// What agreeing with Swift on text costs (see docs/benchmarks.md, "Text search in predicates"): over
// 1,000,000 random 14-letter names of four kinds, the time of `insert` (text is bound in NFC) and of
// `count(where:)` with `contains` / `starts(with:)` (a byte filter, then Swift's own search on each row
// that passes it), next to the byte filter alone in hand-written SQL. Best of 5.

struct Name: VariablyCodable, EmptyInitializable, SQLiteStorable, Identifiable, Sendable {
    var id: Int64 = 0
    var name = ""
    init() {}
    init(_ id: Int64, _ name: String) { (self.id, self.name) = (id, name) }
    static let keySets = KeySets<Name>(defaultSource: .sqlite) { KeySet(.sqlite) { Key(\.id, "id"); Key(\.name, "name") } }
    static let sqliteTable = SQLiteTable<Name>("u", primaryKey: \.id)
}

func milliseconds(runs: Int = 5, _ body: () throws -> Void) rethrows -> String {
    var best = Double.infinity
    for _ in 0..<runs {
        let start = Date()
        try body()
        best = min(best, Date().timeIntervalSince(start) * 1000)
    }
    return String(format: "%.1f", best)
}

struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let kinds: [(label: String, alphabet: [Character], decomposed: Bool, needles: [String])] = [
    ("ASCII", Array("abcdefghijklmnopqrstuvwxyz"), false, ["abc", "a"]),
    ("Latin-1 (NFC)", Array("abcdeéèêfghiïjklmnoôpqrstuüvwxyz"), false, ["abc", "a"]),
    ("Latin-1 written decomposed", Array("abcdeéèêfghiïjklmnoôpqrstuüvwxyz"), true, ["abc", "a"]),
    ("Cyrillic", Array("абвгдежзийклмнопрстуфхцчшщъыьэюя"), false, ["абв", "а"]),
]
print("| names | insert 1,000,000 | needle | `contains` | `instr` alone | `starts(with:)` | `LIKE` alone |")
print("| --- | ---: | --- | ---: | ---: | ---: | ---: |")
var random = SplitMix(state: 1)
for kind in kinds {
    let db = try SQLiteDatabase.inMemory()
    try db.write { try $0.migrate(Name.self) }
    let rows = (0..<1_000_000).map { index -> Name in
        let name = String((0..<14).map { _ in kind.alphabet.randomElement(using: &random)! })
        return Name(Int64(index + 1), kind.decomposed ? name.decomposedStringWithCanonicalMapping : name)
    }
    let insert = try milliseconds(runs: 1) { try db.write { try $0.insert(rows) } }
    for needle in kind.needles {
        let contains = try milliseconds { _ = try db.read { try $0.count(Name.self, where: #Predicate { $0.name.contains(needle) }) } }
        let instr = try milliseconds {
            _ = try db.read {
                try $0.fetchValue(
                    sql: "SELECT count(*) FROM u WHERE instr(CAST(name AS BLOB), ?) > 0", arguments: [SQLValue.blob(Data(needle.utf8))])
            }
        }
        let startsWith = try milliseconds { _ = try db.read { try $0.count(Name.self, where: #Predicate { $0.name.starts(with: needle) }) } }
        let like = try milliseconds {
            _ = try db.read {
                try $0.fetchValue(sql: "SELECT count(*) FROM u WHERE name LIKE ? ESCAPE '\\'", arguments: [SQLValue.text(needle + "%")])
            }
        }
        print("| \(kind.label) | \(insert) ms | `\(needle)` | \(contains) ms | \(instr) ms | \(startsWith) ms | \(like) ms |")
    }
}
