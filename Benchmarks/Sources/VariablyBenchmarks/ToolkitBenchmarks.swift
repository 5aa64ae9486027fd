import Foundation
import VariablyCodable

/// Toolkit groups: key-decoding strategies and multi-format dates against Foundation's own.
func toolkitGroups(users: [BenchUser]) throws -> [Group] {
    let payload = try JSONEncoder().encode(users, source: .remote)
    let keys = Group(
        name: "JSON decode, key strategies",
        variants: [
            Variant(name: "synthesized Codable, explicit CodingKeys") {
                try JSONDecoder().decode([SynthesizedUser].self, from: payload).count
            },
            Variant(name: "synthesized, .convertFromSnakeCase") {
                let decoder = JSONDecoder()
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                return try decoder.decode([CamelUser].self, from: payload).count
            },
            Variant(name: "synthesized, .convertFromAnyCase") {
                let decoder = JSONDecoder()
                decoder.keyDecodingStrategy = .convertFromAnyCase
                return try decoder.decode([CamelUser].self, from: payload).count
            },
        ],
        targets: [:])

    let isoEncoder = JSONEncoder()
    isoEncoder.dateEncodingStrategy = .iso8601
    let synthesized = try JSONDecoder().decode([SynthesizedUser].self, from: payload)
    let isoPayload = try isoEncoder.encode(synthesized)
    let dates = Group(
        name: "JSON decode, ISO 8601 dates",
        variants: [
            Variant(name: "synthesized, .iso8601") {
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                return try decoder.decode([SynthesizedUser].self, from: isoPayload).count
            },
            Variant(name: "synthesized, .flexible (multi-format)") {
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .flexible
                return try decoder.decode([SynthesizedUser].self, from: isoPayload).count
            },
        ],
        targets: [:])
    return [keys, dates]
}
