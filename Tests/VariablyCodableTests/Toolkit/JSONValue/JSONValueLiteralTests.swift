import Foundation
import Testing
import VariablyCodable

@Suite struct JSONValueLiteralTests {
    @Test func stringInterpolationMakesAString() {
        let count = 42
        let name = "Ada"
        let value: [String: JSONValue] = ["n": "\(count)", "greeting": "hi \(name)!", "plain": "x"]
        #expect(value["n"] == .string("42"))
        #expect(value["greeting"] == .string("hi Ada!"))
        #expect(value["plain"] == .string("x"))
        let array: JSONValue = ["\(count + 1)", 1]
        #expect(array == .array([.string("43"), .int(1)]))
    }
}
