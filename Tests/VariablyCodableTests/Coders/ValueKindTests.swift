import Foundation
import Testing
import VariablyCodable

@Suite struct ValueKindTests {
    static let profile = Profile(
        name: "Ada", role: .admin, joined: Date(timeIntervalSince1970: 1_700_000_000), avatar: Data([1, 2, 3]),
        homepage: URL(string: "https://example.com/ada"),
        token: UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!,
        balance: Decimal(string: "12.5")!, limits: ["daily": 3, "weekly": 10],
        address: Address(street: "1 Main St", city: "Springfield"),
        previous: [Address(street: "2 Side St", city: "Shelbyville"), Address(street: "3 Oak St", city: "Ogdenville")],
        scores: [1.5, 2])

    @Test(arguments: [Format.json, Format.propertyList], [CodingSource.remote, .local])
    func everyValueKindRoundTrips(format: Format, source: CodingSource) throws {
        let data = try format.encode(Self.profile, source: source)
        #expect(try format.decode(Profile.self, from: data, source: source) == Self.profile)
    }

    @Test func nestedPathsAreWrittenAsNestedObjects() throws {
        let object = try jsonObject(JSONEncoder().encode(Self.profile, source: .remote))
        let profile = try #require((object["data"] as? [String: Any])?["profile"] as? [String: Any])
        #expect(profile["name"] as? String == "Ada")
        #expect(profile["role"] as? String == "admin")
        #expect(object["previous_addresses"] is [Any])
        let address = try #require(object["address"] as? [String: Any])
        #expect(address["street_line"] as? String == "1 Main St")
    }

    @Test func nestedModelsUseTheParentsSource() throws {
        let object = try jsonObject(JSONEncoder().encode(Self.profile, source: .local))
        let address = try #require(object["ADDRESS"] as? [String: Any])
        #expect(address["STREET"] as? String == "1 Main St")
        let previous = try #require(object["PREVIOUS"] as? [[String: Any]])
        #expect(previous.map { $0["CITY"] as? String } == ["Shelbyville", "Ogdenville"])
    }

    @Test func nestedPathsAreReadFromNestedObjects() throws {
        let data = json(
            #"{"data":{"profile":{"name":"Bo","role":"member"}},"joined":0,"avatar":"","token":"6BA7B810-9DAD-11D1-80B4-00C04FD430C8","balance":1,"limits":{},"address":{"street_line":"x","city":"y"},"previous_addresses":[]}"#
        )
        let profile = try JSONDecoder().decode(Profile.self, from: data, source: .remote)
        #expect(profile.name == "Bo")
        #expect(profile.address == Address(street: "x", city: "y"))
        #expect(profile.homepage == nil)
        #expect(profile.scores == nil)
    }

    @Test func readOnlyModelsDecodeThroughTheirInitializer() throws {
        let v1 = try JSONDecoder().decode(
            [Account].self,
            from: json(
                #"[{"id":1,"owner_name":"Ann"},{"id":2,"owner":"Ben","address":{"street_line":"s","city":"c"}}]"#),
            source: .remote)
        #expect(
            v1 == [
                Account(id: 1, owner: "Ann", address: nil),
                Account(id: 2, owner: "Ben", address: Address(street: "s", city: "c")),
            ])
        let v2Data = try JSONEncoder().encode(v1[1], source: .remoteV2)
        let object = try jsonObject(v2Data)
        #expect((object["meta"] as? [String: Any])?["owner"] as? String == "Ben")
        #expect(try JSONDecoder().decode(Account.self, from: v2Data, source: .remoteV2) == v1[1])
    }

    @Test func modelsNestInsidePlainCodableTypes() throws {
        struct Envelope: Codable, Equatable {
            var page: Int
            var accounts: [Account]
            var byName: [String: Account]
        }
        let envelope = Envelope(
            page: 1, accounts: [Account(id: 1, owner: "a", address: nil)],
            byName: ["b": Account(id: 2, owner: "b", address: Address(street: "s", city: "c"))])
        let data = try JSONEncoder().encode(envelope, source: .remoteV2)
        #expect(try JSONDecoder().decode(Envelope.self, from: data, source: .remoteV2) == envelope)
    }
}
