import Foundation
import Testing
import VariablyCodable

private struct Subscriber: VariablyCodable, Equatable {
    var name = ""
    var email = ""

    static let serverSendsEmail = true
    static let cacheSources: [CodingSource] = [.local, .sqlite]

    init(name: String, email: String) { (self.name, self.email) = (name, email) }

    init(from container: DecodingContainer<Subscriber>) throws {
        name = try container.decode(\.name)
        email = try container.decode(\.email, default: "")
    }

    // The example of DeclarationBuilder's documentation.
    static let keySets = KeySets<Subscriber> {  // DeclarationBuilder<KeySet<Subscriber>>
        KeySet(.remote) {  // DeclarationBuilder<Key<Subscriber>>
            Key(\.name, "user_name")
            if Subscriber.serverSendsEmail { Key(\.email, "email_address") }
        }
        for source in Subscriber.cacheSources { KeySet(source, style: .snakeCase) }
    }
}

@Suite struct DeclarationBuilderTests {
    @Test func ifAndForDeclareKeysAndKeySets() throws {
        #expect(Subscriber.keySets.problems.isEmpty)
        #expect(Set([CodingSource.remote, .local, .sqlite]).allSatisfy { Subscriber.keySets[$0] != nil })
        let profile = Subscriber(name: "ada", email: "ada@example.com")
        let remote = try JSONEncoder(source: .remote).encode(profile)
        let object = try JSONSerialization.jsonObject(with: remote) as? [String: String]
        #expect(object == ["user_name": "ada", "email_address": "ada@example.com"])
        let local = try JSONEncoder(source: .local).encode(profile)
        #expect(try JSONDecoder(source: .local).decode(Subscriber.self, from: local) == profile)
    }

    @Test func elseBranchesAndEmptyBlocksBuild() {
        let withElse = KeySet<Subscriber>(.remote) {
            Key(\.name)
            if Subscriber.cacheSources.isEmpty { Key(\.email, "mail") } else { Key(\.email, "email") }
        }
        #expect(withElse.source == .remote)
        let empty = KeySets<Subscriber> {}
        #expect(empty[.remote] == nil)
    }
}
