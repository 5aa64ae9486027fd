import Foundation
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting
import VariablyTestSupport

/// The reliability suites' synced model. Rows come in groups of ``groupSize`` that are always
/// written together (one server write, one local `save`), all with the same `generation`; each row's
/// `checksum` is derived from its id and generation. A reader that sees a group with mixed
/// generations, a partial group or a bad checksum has seen a half-applied write.
struct ReliabilityItem: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    static let groupSize = 5

    var id: Int64
    var group: Int64
    var generation: Int64
    var checksum: Int64
    var label: String
    var tags: [String]

    init(id: Int64, group: Int64, generation: Int64, label: String, tags: [String] = []) {
        self.id = id
        self.group = group
        self.generation = generation
        self.checksum = Self.checksum(id: id, generation: generation)
        self.label = label
        self.tags = tags
    }

    init(from container: DecodingContainer<ReliabilityItem>) throws {
        id = try container.decode(\.id)
        group = try container.decode(\.group)
        generation = try container.decode(\.generation)
        checksum = try container.decode(\.checksum)
        label = try container.decode(\.label)
        tags = try container.decode(\.tags, default: [])
    }

    static let keySets = KeySets<ReliabilityItem>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.group, "meta.group")
            Key(\.generation, "meta.generation")
            Key(\.checksum, "meta.checksum")
            Key(\.label, ["label", "title"])
            Key(\.tags, "tags")
        }
        KeySet(.local, style: .screamingSnakeCase)
        KeySet(.sqlite, style: .snakeCase)
    }

    static let sqliteTable = SQLiteTable<ReliabilityItem>("reliability_items", primaryKey: \.id, [.index(\.group)])

    static func checksum(id: Int64, generation: Int64) -> Int64 {
        (id &* 1_000_003) ^ (generation &* 7_919) ^ 0x5EED
    }

    var isConsistent: Bool { checksum == Self.checksum(id: id, generation: generation) }

    /// The rows of `group` at `generation`.
    static func group(_ group: Int64, generation: Int64, label: String) -> [ReliabilityItem] {
        (0..<Int64(groupSize)).map {
            ReliabilityItem(
                id: group * Int64(groupSize) + $0 + 1, group: group, generation: generation,
                label: "\(label) g\(group)",
                tags: ["gen\(generation)"])
        }
    }

    /// `groups` groups at generation 0.
    static func initial(groups: Int) -> [ReliabilityItem] {
        (0..<Int64(groups)).flatMap { group($0, generation: 0, label: "initial") }
    }

    /// Problems with `rows` as one snapshot of the cache: partial groups, mixed generations, bad checksums.
    static func groupViolations(in rows: [ReliabilityItem]) -> [String] {
        var problems: [String] = []
        for (group, members) in Dictionary(grouping: rows, by: \.group) {
            if members.count != groupSize {
                problems.append("group \(group) has \(members.count) of \(groupSize) rows")
            }
            let generations = Set(members.map(\.generation))
            if generations.count != 1 {
                problems.append("group \(group) mixes generations \(generations.sorted())")
            }
            for member in members where !member.isConsistent || member.group != (member.id - 1) / Int64(groupSize) {
                problems.append("row \(member.id) is inconsistent")
            }
        }
        return problems
    }
}

/// Retries without waiting, so that fault runs stay fast.
let reliabilityRetries = RetryPolicy(
    maxAttempts: 60, initialDelay: .microseconds(5), multiplier: 1.5, maxDelay: .microseconds(50), seed: 88)

/// Every cached item, by id.
func reliabilityCache(_ repository: Repository<ReliabilityItem>) async throws -> [Int64: ReliabilityItem] {
    Dictionary(uniqueKeysWithValues: try await repository.fetch().map { ($0.id, $0) })
}

/// Every live server record, by id.
func reliabilityServerState(_ server: SimulatedServer<ReliabilityItem>) async -> [Int64: ReliabilityItem] {
    Dictionary(uniqueKeysWithValues: await server.allRecords().map { ($0.id, $0) })
}

/// Prints a figure for docs/reliability.md, in a form `grep '\[reliability\]'` finds.
func reportFigure(_ text: String) {
    print("[reliability] \(text)")
}
