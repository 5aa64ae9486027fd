import Foundation
import Testing
import VariablyCodable

/// The reason of the first problem of `keySets`, which must be a modifier that does not fit its
/// property (left out of the key set) and make `validate()` throw.
func optionProblem<Model>(of keySets: KeySets<Model>, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> String
{
    let problem = try #require(keySets.problems.first, sourceLocation: sourceLocation)
    #expect(throws: KeySetValidationError.self, sourceLocation: sourceLocation) { try keySets.validate() }
    guard case .optionDoesNotFit(let reason, _) = problem.kind else {
        Issue.record("expected a modifier that does not fit, found \(problem)", sourceLocation: sourceLocation)
        return ""
    }
    return reason
}

/// A remote payload with everything messy: the model the toolkit tests share.
struct Member: VariablyCodable, Equatable, Sendable {
    enum Status: String, Codable, Sendable {
        case active, suspended, unknown
    }

    var id: Int64
    var age: Int
    var createdAt: Date
    var tags: [String]
    var status: Status
    var nickname: String?

    init(id: Int64, age: Int, createdAt: Date, tags: [String], status: Status, nickname: String? = nil) {
        self.id = id
        self.age = age
        self.createdAt = createdAt
        self.tags = tags
        self.status = status
        self.nickname = nickname
    }

    init(from container: DecodingContainer<Member>) throws {
        id = try container.decode(\.id)
        age = try container.decode(\.age)
        createdAt = try container.decode(\.createdAt)
        tags = try container.decode(\.tags)
        status = try container.decode(\.status)
        nickname = try container.decode(\.nickname)
    }

    static let keySets = KeySets<Member>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id").lenient()
            Key(\.age, "age").lenient().default(ifMissing: 0, ifNull: 0, ifInvalid: -1)
            Key(\.createdAt, "created_at").dates(.iso8601)
            Key(\.tags, "tags").elements(.remove)
            Key(\.status, "status").decodingUnknownCases(as: Status.unknown)
            Key(\.nickname, "nick")
        }
        KeySet(.local, style: .snakeCase).dates(.millisecondsSince1970).strict()
    }

    static let sample = Member(
        id: 7, age: 42, createdAt: Date(timeIntervalSince1970: 1_714_566_600), tags: ["a", "b"], status: .active,
        nickname: "ada")
}

/// Decodes `json` as `type` from `source`, recording into a fresh report.
func decodeReporting<T: Decodable>(
    _ type: T.Type, _ json: String, source: CodingSource = .remote, isStrict: Bool = false, isLenient: Bool = false
) throws -> (T, DecodeReport) {
    let report = DecodeReport()
    let decoder = JSONDecoder(source: source)
    decoder.decodingOptions = DecodingOptions(isLenient: isLenient, isStrict: isStrict, report: report)
    return (try decoder.decode(type, from: Data(json.utf8)), report)
}

/// The JSON object `data` holds.
func toolkitObject(_ data: Data) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw CocoaError(.coderReadCorrupt)
    }
    return object
}
