import Foundation
import VariablyCodable

/// JSON decode and encode: synthesized Codable with explicit CodingKeys is the baseline.
func jsonGroups(users: [BenchUser]) throws -> [Group] {
    let payload = try JSONEncoder().encode(users, source: .remote)
    let decodeGroup = Group(
        name: "JSON decode",
        variants: [
            Variant(name: "synthesized Codable, explicit CodingKeys") {
                try JSONDecoder().decode([SynthesizedUser].self, from: payload).count
            },
            Variant(name: "key-set container") {
                try JSONDecoder(source: .remote).decode([BenchUser].self, from: payload).count
            },
            Variant(name: "key-set derived (EmptyInitializable)") {
                try JSONDecoder(source: .remote).decode([DerivedBenchUser].self, from: payload).count
            },
            Variant(name: "KeySetJSONDecoder") {
                try KeySetJSONDecoder(source: .remote).decode([BenchUser].self, from: payload).count
            },
            Variant(name: "KeySetJSONDecoder, derived (EmptyInitializable)") {
                try KeySetJSONDecoder(source: .remote).decode([DerivedBenchUser].self, from: payload).count
            },
            Variant(name: "synthesized, .convertFromSnakeCase") {
                let decoder = JSONDecoder()
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                return try decoder.decode([CamelUser].self, from: payload).count
            },
        ],
        targets: [
            "key-set container": 0.95, "key-set derived (EmptyInitializable)": 0.95, "KeySetJSONDecoder": 3.0,
        ])
    let synthesized = try JSONDecoder().decode([SynthesizedUser].self, from: payload)
    let encodeGroup = Group(
        name: "JSON encode",
        variants: [
            Variant(name: "synthesized Codable, explicit CodingKeys") {
                try JSONEncoder().encode(synthesized).count > 0 ? synthesized.count : 0
            },
            Variant(name: "key-set derived encoding") {
                try JSONEncoder(source: .remote).encode(users).count > 0 ? users.count : 0
            },
            Variant(name: "KeySetJSONEncoder") {
                try KeySetJSONEncoder(source: .remote).encode(users).count > 0 ? users.count : 0
            },
        ],
        targets: ["key-set derived encoding": 0.95])
    return [decodeGroup] + (try fastJSONGroups(users: users)) + [encodeGroup]
}
