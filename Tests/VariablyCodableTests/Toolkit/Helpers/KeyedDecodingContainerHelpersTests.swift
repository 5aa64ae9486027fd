import Foundation
import Testing
import VariablyCodable

@Suite struct KeyedDecodingContainerHelpersTests {
    struct Person: Decodable {
        let age: Int
        let nickname: String?
        let retries: Int

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyCodingKey.self)
            age = try container.decode("age")
            nickname = try container.decodeIfPresent("nickname")
            retries = try container.decode("retries", default: 3)
        }
    }

    @Test func decodeInfersTheTypeFromTheContext() throws {
        let person = try JSONDecoder().decode(Person.self, from: Data(#"{"age": 30, "nickname": null}"#.utf8))
        #expect(person.age == 30)
        #expect(person.nickname == nil)
        #expect(person.retries == 3)
    }

    @Test func errorsKeepTheirCodingPath() throws {
        do {
            _ = try JSONDecoder().decode([Person].self, from: Data(#"[{"age": "x"}]"#.utf8))
            Issue.record("expected an error")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["Index 0", "age"])
        }
    }

    @Test func anyCodingKeyIsExpressibleByStringAndIntegerLiterals() {
        let name: AnyCodingKey = "name"
        let index: AnyCodingKey = 3
        #expect(name.stringValue == "name" && name.intValue == nil)
        #expect(index.intValue == 3 && index.stringValue == "3")
    }
}
