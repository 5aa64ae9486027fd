import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySync
import VariablyTestSupport

/// A source that serves fixed page bytes in process, as `SimulatedServer` does, without HTTP.
private struct FixedPageSource: RemoteSource {
    typealias Model = User
    let records: Data

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        RemotePage(records: records, deletedIDs: [], nextCursor: "1", hasMore: false)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] { [] }
}

/// A pulled record that is not even JSON (invalid UTF-8, a bad escape inside one of its strings) is
/// refused with the decoders' own error, named by its id, and handled as the configuration handles
/// malformed records; the page's other records are applied.
@Suite("Repository: records with invalid text")
struct RepositoryInvalidTextTests {
    /// Bytes that `KeySetJSONDecoder` (and `JSONDecoder`, where it reads them) refuse, each with the place it
    /// replaces in the second of three records.
    struct Defect: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        let place: String
        var testDescription: String { "\(name) in \(place)" }
    }

    static let defects: [Defect] = [
        Defect(name: "0xFF", bytes: [0xFF], place: "a string value"),
        Defect(name: "a lone continuation byte", bytes: [0x80], place: "a string value"),
        Defect(name: "a truncated sequence", bytes: [0xC3], place: "a string value"),
        Defect(name: "an overlong slash", bytes: [0xC0, 0xAF], place: "a string value"),
        Defect(name: "a UTF-8 encoded surrogate", bytes: [0xED, 0xA0, 0x80], place: "a string value"),
        Defect(name: "0xFF", bytes: [0xFF], place: "a key"),
        Defect(name: "0xFF", bytes: [0xFF], place: "a nested object"),
        Defect(name: "0xFF", bytes: [0xFF], place: "an array element"),
        Defect(name: "a lone surrogate escape", bytes: Array(#"\ud800"#.utf8), place: "a string value"),
    ]

    /// Three records; the second holds `defect`.
    static func page(with defect: Defect) throws -> (data: Data, users: [User]) {
        var users = User.samples(3)
        switch defect.place {
        case "a string value": users[1].userName = "a@@b"
        case "a nested object": break
        case "an array element": users[1].tags = ["x@@y"]
        default: users[1].nickname = "nick"
        }
        var text = String(decoding: try JSONEncoder().encode(users, source: .remote), as: UTF8.self)
        if defect.place == "a key" {
            text = text.replacingOccurrences(of: #""nick_name":"nick""#, with: #""nick@@name":"nick""#)
        }
        if defect.place == "a nested object" {
            // The nested object holds the age; a member beside it carries the defect.
            let age = #""age":\#(users[1].age)"#
            text.replaceSubrange(try #require(text.range(of: age)), with: age + #","note":"@@""#)
        }
        var data = Data(text.utf8)
        let marker = try #require(data.range(of: Data("@@".utf8)))
        data.replaceSubrange(marker, with: defect.bytes)
        #expect(data.range(of: Data("@@".utf8)) == nil)
        return (data, users)
    }

    @Test(arguments: defects)
    func invalidTextSkipsItsRecordWithTheDecodersError(defect: Defect) async throws {
        let (data, users) = try Self.page(with: defect)
        // The rule, from the decoders themselves: both refuse the page. (`JSONDecoder` converts only the
        // strings it reads: a member the model ignores passes it or not depending on the keys' order.)
        if defect.place != "a nested object" {
            #expect(throws: (any Error).self) { try JSONDecoder(source: .remote).decode([User].self, from: data) }
        }
        #expect(throws: (any Error).self) { try KeySetJSONDecoder(source: .remote).decode([User].self, from: data) }

        let repository = try Repository(
            database: .inMemory(), remote: FixedPageSource(records: data), configuration: makeConfiguration())
        let report = try await repository.sync()
        #expect(report.pulled == 3)
        #expect(report.inserted == 2)
        let skipped = try #require(report.skipped.first)
        #expect(report.skipped.count == 1)
        #expect(skipped.index == 1)
        #expect(skipped.id == users[1].id)
        #expect("\(skipped)".hasPrefix("record id \(users[1].id): "))
        Self.expectSyntaxError(skipped.error)
        await #expect(try repository.fetch(id: users[1].id) == nil)
        await #expect(try repository.fetch(id: users[0].id) == users[0])
        await #expect(try repository.fetch(id: users[2].id) == users[2])
    }

    @Test func invalidTextFailsThePageWhenTheConfigurationSaysSo() async throws {
        let (data, users) = try Self.page(with: Self.defects[0])
        let repository = try Repository(
            database: .inMemory(), remote: FixedPageSource(records: data),
            configuration: makeConfiguration(malformed: .failPage))
        do {
            try await repository.sync()
            Issue.record("a record with invalid UTF-8 should fail its page")
        } catch SyncError.malformedRecords(let records) {
            let record = try #require(records.first as? SkippedRecord<Int64>)
            #expect(records.count == 1)
            #expect(record.id == users[1].id)
            Self.expectSyntaxError(record.error)
        }
        await #expect(try repository.count() == 0)
    }

    /// Only a defect inside a record is the record's: a page whose array itself is broken still fails
    /// whole, with the decoder's error.
    @Test(arguments: [",]", "]]", " x]"])
    func aBrokenPageStillFailsWhole(ending: String) async throws {
        var (data, _) = try Self.page(with: Self.defects[0])
        data.removeLast()
        data.append(contentsOf: Array(ending.utf8))
        let repository = try Repository(
            database: .inMemory(), remote: FixedPageSource(records: data), configuration: makeConfiguration())
        await #expect(throws: DecodingError.self) { try await repository.sync() }
        await #expect(try repository.count() == 0)
    }

    /// The error of a record that is not JSON: the `DecodingError.dataCorrupted` of `KeySetJSONDecoder`,
    /// with the `JSONSyntaxError` under it.
    static func expectSyntaxError(_ error: any Error, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case DecodingError.dataCorrupted(let context) = error,
            let syntax = context.underlyingError as? JSONSyntaxError
        else {
            Issue.record(
                "expected DecodingError.dataCorrupted with a JSONSyntaxError, got \(error)",
                sourceLocation: sourceLocation)
            return
        }
        #expect([.invalidUTF8, .loneSurrogate].contains(syntax.reason), sourceLocation: sourceLocation)
    }
}
