import Foundation
import Testing
import VariablyCodable

@testable import VariablySync

/// Whether a server's record holds what a change sent: compared leaf by leaf at the changed paths
/// (`attributes.name`), so that members the server adds beside them (its stamps inside `attributes`)
/// are not taken for a difference.
@Suite struct RemoteChangeHoldsTests {
    static let sent = Data(#"{"id": "7", "attributes": {"name": "Ada", "age": 36}}"#.utf8)

    @Test func aServerRecordWithItsOwnStampsInsideTheChangedObjectHoldsTheChange() {
        let server = Data(
            #"{"id": "7", "attributes": {"name": "Ada", "age": 36, "updated_at": "2026-11-28T04:00:00Z"}}"#.utf8)
        #expect(RemoteChange<String>.record(server, holds: Self.sent, paths: [DataPath(dotted: "attributes.name")]))
        // The whole record, leaf by leaf: the server's extra member does not count.
        #expect(RemoteChange<String>.record(server, holds: Self.sent, paths: nil))
        // A changed object is compared by its members too.
        #expect(RemoteChange<String>.record(server, holds: Self.sent, paths: [DataPath(dotted: "attributes")]))
    }

    @Test func aDifferentLeafIsADifferenceOnlyWhereItWasChanged() {
        let server = Data(#"{"id": "7", "attributes": {"name": "Ada", "age": 40}}"#.utf8)
        #expect(RemoteChange<String>.record(server, holds: Self.sent, paths: [DataPath(dotted: "attributes.name")]))
        #expect(!RemoteChange<String>.record(server, holds: Self.sent, paths: [DataPath(dotted: "attributes.age")]))
        #expect(!RemoteChange<String>.record(server, holds: Self.sent, paths: nil))
        // A member the server lacks, or holds as null, is not held.
        let missing = Data(#"{"id": "7", "attributes": {"age": 36}}"#.utf8)
        #expect(!RemoteChange<String>.record(missing, holds: Self.sent, paths: [DataPath(dotted: "attributes.name")]))
    }

    @Test func nothingComparedHoldsNothing() {
        #expect(!RemoteChange<String>.record(Data("{}".utf8), holds: Data("{}".utf8), paths: nil))
        #expect(!RemoteChange<String>.record(Data("{}".utf8), holds: Self.sent, paths: []))
        #expect(!RemoteChange<String>.record(nil, holds: Self.sent, paths: nil))
    }
}
