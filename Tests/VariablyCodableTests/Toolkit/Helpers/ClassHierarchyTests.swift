import Foundation
import Testing
import VariablyCodable

class Animal: Codable {
    var name: String

    init(name: String) {
        self.name = name
    }

    static let animalKeys = KeySets<Animal>(defaultSource: .remote) {
        KeySet(.remote) { Key(\.name, "animal_name") }
        KeySet(.local) { Key(\.name, "NAME") }
    }

    required init(from decoder: any Decoder) throws {
        let container = try DecodingContainer(decoder: decoder, keySets: Animal.animalKeys)
        name = try container.decode(\.name)
    }

    func encode(to encoder: any Encoder) throws {
        try Animal.animalKeys.encode(self, to: encoder)
    }
}

final class Dog: Animal {
    var breed: String
    var birthday: Date

    init(name: String, breed: String, birthday: Date) {
        self.breed = breed
        self.birthday = birthday
        super.init(name: name)
    }

    static let dogKeys = KeySets<Dog>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.breed, "dog_breed")
            Key(\.birthday, "born").dates(.dateOnly)
        }
        // Key paths of class properties do not print their names, so class key sets name every key.
        KeySet(.local) {
            Key(\.breed, "BREED")
            Key(\.birthday, "BIRTHDAY")
        }
    }

    required init(from decoder: any Decoder) throws {
        let container = try DecodingContainer(decoder: decoder, keySets: Dog.dogKeys)
        breed = try container.decode(\.breed)
        birthday = try container.decode(\.birthday)
        try super.init(from: decoder)
    }

    override func encode(to encoder: any Encoder) throws {
        try Dog.dogKeys.encode(self, to: encoder)
        try super.encode(to: encoder)
    }
}

@Suite struct ClassHierarchyTests {
    @Test(arguments: [CodingSource.remote, .local])
    func aSubclassCodesItsOwnKeysAndItsSuperclasses(source: CodingSource) throws {
        let dog = Dog(name: "Rex", breed: "collie", birthday: Date(timeIntervalSince1970: 1_714_521_600))
        let data = try JSONEncoder().encode(dog, source: source)
        let object = try toolkitObject(data)
        if source == .remote {
            #expect(object["animal_name"] as? String == "Rex")
            #expect(object["dog_breed"] as? String == "collie")
            #expect(object["born"] as? String == "2024-05-01")
        } else {
            #expect(Set(object.keys) == ["NAME", "BREED", "BIRTHDAY"])
        }
        let decoded = try JSONDecoder().decode(Dog.self, from: data, source: source)
        #expect(decoded.name == "Rex")
        #expect(decoded.breed == "collie")
        #expect(decoded.birthday == dog.birthday)
    }

    @Test func aMissingSuperclassPropertyNamesTheSuperclass() throws {
        let error = try #require(throws: VariablyCodingError.self) {
            try JSONDecoder().decode(Dog.self, from: Data(#"{"dog_breed": "pug", "born": "2020-01-01"}"#.utf8))
        }
        // Key paths of class properties print no name, so the message names the class and the key.
        #expect("\(error)".hasPrefix("Animal."))
        #expect("\(error)".hasSuffix(#"(remote, key "animal_name"): key not found at top level"#))
    }

    @Test func anUnknownSourceIsAClearError() throws {
        let error = try #require(throws: VariablyCodingError.self) {
            try JSONDecoder().decode(Dog.self, from: Data("{}".utf8), source: .sqlite)
        }
        #expect(error.reason == .noKeySet(declared: [.remote, .local]))
    }
}
