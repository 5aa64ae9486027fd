import Foundation
import Testing
@testable import VariablyCodable

/// The structure checks that guard `PropertyListDecoder.decode(_:from:source:)` (and `FileCache`).
@Suite struct PropertyListCheckTests {
    private func nested(_ depth: Int, prefix: String = "") -> Data {
        Data(
            (prefix + #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"#
                + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth) + "</plist>").utf8)
    }

    @Test(arguments: ["", "\u{FEFF}", " \n\t", "\u{FEFF}\n"])
    func anXMLPropertyListNestedTooDeepIsRefusedWhateverComesBeforeIt(prefix: String) {
        #expect(throws: DecodingError.self) { try XMLPropertyListNestingCheck.validate(nested(10_000, prefix: prefix)) }
        #expect(throws: DecodingError.self) {
            try PropertyListDecoder().decode([JSONValue].self, from: nested(10_000, prefix: prefix), source: .local)
        }
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        try XMLPropertyListNestingCheck.validate(nested(XMLPropertyListNestingCheck.maximumNesting))
        #expect(throws: DecodingError.self) {
            try XMLPropertyListNestingCheck.validate(nested(XMLPropertyListNestingCheck.maximumNesting + 1))
        }
    }

    @Test func aValidBinaryPropertyListPassesAndADamagedTrailerDoesNot() throws {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let data = try encoder.encode(["a": [1, 2, 3]])
        try BinaryPropertyListCheck.validate(data)
        var damaged = [UInt8](data)
        damaged[damaged.count - 1] = 0xFF  // the offset table's start, past the end of the file
        #expect(throws: DecodingError.self) { try BinaryPropertyListCheck.validate(Data(damaged)) }
        #expect(throws: DecodingError.self) {
            try PropertyListDecoder().decode([String: [Int]].self, from: Data(damaged), source: .local)
        }
    }
}
