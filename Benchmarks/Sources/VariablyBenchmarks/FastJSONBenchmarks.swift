import Foundation
import VariablyCodable

/// A page of records as a server sends it: the records and a cursor.
struct BenchPage<Record: Decodable>: Decodable {
    var users: [Record]
    var next: String?
}

/// `KeySetJSONDecoder` on pages of 1,000 users, as a sync decodes them, next to Foundation: every
/// variant decodes the same page as many times as it takes to cover `users.count` records.
func fastJSONGroups(users: [BenchUser]) throws -> [Group] {
    let pageSize = min(1_000, users.count)
    let pageUsers = Array(users.prefix(pageSize))
    let page = try JSONEncoder(source: .remote).encode(pageUsers)
    var payload = Data("{\"next\":\"cursor-1\",\"users\":".utf8)
    payload += page
    payload += Data("}".utf8)
    let pages = max(1, users.count / pageSize)
    func decodePages(_ decode: () throws -> Int) throws -> Int {
        var total = 0
        for _ in 0..<pages { total += try decode() }
        return total
    }
    let fast = KeySetJSONDecoder(source: .remote)
    let pageGroup = Group(
        name: "JSON decode, pages of 1,000 users",
        variants: [
            Variant(name: "synthesized Codable, explicit CodingKeys") {
                try decodePages { try JSONDecoder().decode(BenchPage<SynthesizedUser>.self, from: payload).users.count }
            },
            Variant(name: "key-set container (JSONDecoder)") {
                try decodePages {
                    try JSONDecoder(source: .remote).decode(BenchPage<BenchUser>.self, from: payload).users.count
                }
            },
            Variant(name: "KeySetJSONDecoder") {
                try decodePages { try fast.decode(BenchPage<BenchUser>.self, from: payload).users.count }
            },
        ],
        targets: ["KeySetJSONDecoder": 3.0])
    // One small document per call, as a request for a single record: the per-call costs (parsing set-up,
    // key tables) count here, not the per-record ones.
    let single = try JSONEncoder(source: .remote).encode(users[0])
    let calls = max(1, users.count / 10)
    let foundation = JSONDecoder()
    let foundationKeySets = JSONDecoder(source: .remote)
    let singleGroup = Group(
        name: "JSON decode, one user per call",
        variants: [
            Variant(name: "synthesized Codable, explicit CodingKeys") {
                for _ in 0..<calls { _ = try foundation.decode(SynthesizedUser.self, from: single) }
                return calls
            },
            Variant(name: "key-set container (JSONDecoder)") {
                for _ in 0..<calls { _ = try foundationKeySets.decode(BenchUser.self, from: single) }
                return calls
            },
            Variant(name: "KeySetJSONDecoder") {
                for _ in 0..<calls { _ = try fast.decode(BenchUser.self, from: single) }
                return calls
            },
        ],
        targets: [:])
    return [pageGroup, singleGroup]
}
