import Foundation
import Testing
import VariablySync

/// A record's version is the server's text: coded as a JSON string, apart from a cursor, and a version
/// at a cursor carries the cursor's text.
@Suite struct RecordVersionTests {
    @Test func aVersionIsCodedAsTheServersText() throws {
        let version: RecordVersion = "W/\"a1b2\""
        let data = try JSONEncoder().encode([version])
        #expect(String(decoding: data, as: UTF8.self) == #"["W\/\"a1b2\""]"#)
        #expect(try JSONDecoder().decode([RecordVersion].self, from: data) == [version])
        #expect(RecordVersion(SyncCursor(rawValue: "1204")) == RecordVersion("1204"))
        #expect(RecordVersion(String(repeating: "v", count: 200)).description.hasSuffix("… (200 characters)"))
    }
}
