import Foundation
import Testing
import VariablyCodable

// MARK: - Models

/// A nested model, decoded through its own key table.
struct FastChild: VariablyCodable, Equatable, Sendable {
    var code: Int
    var label: String?

    init(from container: DecodingContainer<FastChild>) throws {
        code = try container.decode(\.code)
        label = try container.decode(\.label)
    }

    static let keySets = KeySets<FastChild>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.code, "code")
            Key(\.label, ["label", "name"])
        }
        KeySet(.local, style: .screamingSnakeCase)
    }
}

/// Every value kind, optionality, alternatives and nested paths: the differential tests' model.
struct FastItem: VariablyCodable, Equatable, Sendable {
    var id: Int64
    var name: String
    var nickname: String?
    var score: Double
    var isActive: Bool
    var tags: [String]
    var small: Int8?
    var big: UInt64?
    var count: Int?
    var ratio: Float?
    var ratios: [Double]?
    var numbers: [Int]?
    var createdAt: Date?
    var blob: Data?
    var link: URL?
    var amount: Decimal?
    var role: Role?
    var token: UUID?
    var counts: [String: Int]?
    var child: FastChild?
    var children: [FastChild]?
    var city: String?
    var zip: String?
    var extra: JSONValue?
    var flags: [Bool]?

    init(from container: DecodingContainer<FastItem>) throws {
        id = try container.decode(\.id)
        name = try container.decode(\.name)
        nickname = try container.decode(\.nickname)
        score = try container.decode(\.score)
        isActive = try container.decode(\.isActive)
        tags = try container.decode(\.tags, default: [])
        small = try container.decode(\.small)
        big = try container.decode(\.big)
        count = try container.decode(\.count)
        ratio = try container.decode(\.ratio)
        ratios = try container.decode(\.ratios)
        numbers = try container.decode(\.numbers)
        createdAt = try container.decode(\.createdAt)
        blob = try container.decode(\.blob)
        link = try container.decode(\.link)
        amount = try container.decode(\.amount)
        role = try container.decode(\.role)
        token = try container.decode(\.token)
        counts = try container.decode(\.counts)
        child = try container.decode(\.child)
        children = try container.decode(\.children)
        city = try container.decode(\.city)
        zip = try container.decode(\.zip)
        extra = try container.decode(\.extra)
        flags = try container.decode(\.flags)
    }

    static let keySets = KeySets<FastItem>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.name, ["user_name", "username", "userName"])
            Key(\.nickname, "nick")
            Key(\.score, "score")
            Key(\.isActive, "is_active")
            Key(\.tags, "tags")
            Key(\.small, "small")
            Key(\.big, "big")
            Key(\.count, "count")
            Key(\.ratio, "ratio")
            Key(\.ratios, "ratios")
            Key(\.numbers, "numbers")
            Key(\.createdAt, "created_at")
            Key(\.blob, "blob")
            Key(\.link, "link")
            Key(\.amount, "amount")
            Key(\.role, "role")
            Key(\.token, "token")
            Key(\.counts, "counts")
            Key(\.child, "child")
            Key(\.children, "children")
            Key(\.city, ["address.city", "city"])
            Key(\.zip, "address.postal.zip")
            Key(\.extra, "extra")
            Key(\.flags, "flags")
        }
        KeySet(.local, style: .snakeCase)
    }
}

/// A plain `Decodable` page around key-set models, as a server sends them.
struct FastPage: Decodable, Equatable {
    var items: [FastItem]
    var next: String?
    var total: Int
}

// MARK: - Comparing outcomes

/// What a decode produced: a value, or an error reduced to what must match between decoders.
enum Outcome<Value: Equatable>: Equatable, CustomStringConvertible {
    case value(Value)
    case failure(ErrorSignature)

    var description: String {
        switch self {
        case .value(let value): "value \(value)"
        case .failure(let signature): "error \(signature)"
        }
    }
}

/// An error's kind, model and property (for ``VariablyCodingError``) and coding path.
struct ErrorSignature: Equatable, CustomStringConvertible {
    var kind: String
    var model: String?
    var keyPath: String?
    var path: [String]

    init(_ error: any Error) {
        if let error = error as? VariablyCodingError {
            kind = "VariablyCodingError.\(error.reason)"
            model = error.modelType
            keyPath = error.keyPath
            path = ErrorSignature.render(error.codingPath)
        } else if let error = error as? DecodingError {
            switch error {
            case .typeMismatch(_, let context):
                (kind, path) = ("typeMismatch", ErrorSignature.render(context.codingPath))
            case .valueNotFound(_, let context):
                (kind, path) = ("valueNotFound", ErrorSignature.render(context.codingPath))
            case .keyNotFound(_, let context): (kind, path) = ("keyNotFound", ErrorSignature.render(context.codingPath))
            case .dataCorrupted(let context):
                (kind, path) = ("dataCorrupted", ErrorSignature.render(context.codingPath))
            @unknown default: (kind, path) = ("unknown", [])
            }
        } else {
            kind = "\(type(of: error))"
            path = []
        }
    }

    static func render(_ path: [any CodingKey]) -> [String] {
        path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
    }

    var description: String {
        "\(kind) \(model ?? "")\(keyPath.map { " \($0)" } ?? "") at \(path.joined(separator: "/"))"
    }
}

func outcome<Value: Equatable>(_ body: () throws -> Value) -> Outcome<Value> {
    do {
        return .value(try body())
    } catch {
        return .failure(ErrorSignature(error))
    }
}

/// Decodes `data` with Foundation's `JSONDecoder` and with ``KeySetJSONDecoder``, same source and options.
func bothOutcomes<Value: Decodable & Equatable>(
    _ type: Value.Type, _ data: Data, source: CodingSource = .remote, options: DecodingOptions? = nil
) -> (foundation: Outcome<Value>, fast: Outcome<Value>) {
    let foundation = JSONDecoder(source: source)
    var fast = KeySetJSONDecoder(source: source)
    if let options {
        foundation.decodingOptions = options
        fast.decodingOptions = options
    }
    return (
        outcome { try foundation.decode(Value.self, from: data) }, outcome { try fast.decode(Value.self, from: data) }
    )
}

/// Expects both decoders to give equal values or equivalent errors.
func expectSameOutcome<Value: Decodable & Equatable>(
    _ type: Value.Type, _ json: String, source: CodingSource = .remote, options: DecodingOptions? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let (foundation, fast) = bothOutcomes(Value.self, Data(json.utf8), source: source, options: options)
    #expect(foundation == fast, "\(json)", sourceLocation: sourceLocation)
}

/// A small deterministic generator (SplitMix64), so that every run tests the same payloads.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
