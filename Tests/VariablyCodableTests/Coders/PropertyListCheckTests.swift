import Foundation
import Testing
@testable import VariablyCodable

/// The structure checks that guard `PropertyListDecoder.decode(_:from:source:)` (and `FileCache`).
@Suite struct PropertyListCheckTests {
    private func nested(_ depth: Int, prefix: String = "") -> Data {
        Data(
            (prefix + #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"#
                + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth) + "</plist>")
                .utf8)
    }

    @Test(arguments: ["", "\u{FEFF}", " \n\t", "\u{FEFF}\n"])
    func anXMLPropertyListNestedTooDeepIsRefusedWhateverComesBeforeIt(prefix: String) {
        #expect(throws: DecodingError.self) { try XMLPropertyListCheck.validate(nested(10_000, prefix: prefix)) }
        #expect(throws: DecodingError.self) {
            try PropertyListDecoder().decode([JSONValue].self, from: nested(10_000, prefix: prefix), source: .local)
        }
    }

    /// Found by `Fuzz/run local_plist`: Foundation traps on bytes that are not UTF-8 inside an element
    /// of an XML property list it reads as UTF-8.
    @Test(arguments: [
        #"<?xml version="1.0" encoding="UTF-8"?>"#, #"<?xml vers-8"?>"#, "", #"<?xml versioencoding=ncoding="UTF-6"?>"#,
    ])
    func anXMLPropertyListThatIsNotUTF8IsRefused(declaration: String) throws {
        var data = Data((declaration + #"<plist version="1.0"><dict><key>AGE</key><integer>"#).utf8)
        data.append(contentsOf: [UInt8](repeating: 0xFF, count: 21))
        data.append(contentsOf: Data("19</integer></dict></plist>".utf8))
        #expect(throws: DecodingError.self) { try XMLPropertyListCheck.validate(data) }
        #expect(throws: DecodingError.self) {
            try PropertyListDecoder().decode([String: Int].self, from: data, source: .local)
        }
        // The same document in valid UTF-8 reads.
        let valid = Data(
            (declaration + #"<plist version="1.0"><dict><key>AGE</key><integer>19</integer></dict></plist>"#).utf8)
        #expect(try PropertyListDecoder().decode([String: Int].self, from: valid, source: .local) == ["AGE": 19])
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        try XMLPropertyListCheck.validate(nested(XMLPropertyListCheck.maximumNesting))
        #expect(throws: DecodingError.self) {
            try XMLPropertyListCheck.validate(nested(XMLPropertyListCheck.maximumNesting + 1))
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
