import Testing
@testable import VariablyCodable

/// The order of a model's key paths, recorded on a reader's first row: later rows find each key path
/// at its place, and a model that reads in another order is recorded again, never answered wrongly.
@Suite struct KeyPathOrderTests {
    struct Point { var x = 0; var y = 0; var z = 0 }

    @Test func aKeyPathAtItsRecordedPlaceGivesItsEntry() {
        let order = KeyPathOrder()
        order.startRow()
        #expect(order.recordedEntry(of: \Point.x) == nil)
        order.record(\Point.x, entry: 0)
        #expect(order.recordedEntry(of: \Point.y) == nil)
        order.record(\Point.y, entry: 1)
        order.startRow()
        #expect(order.recordedEntry(of: \Point.x) == 0)
        #expect(order.recordedEntry(of: \Point.y) == 1)
    }

    @Test func anotherOrderIsRecordedAgain() {
        let x: AnyKeyPath = \Point.x
        let y: AnyKeyPath = \Point.y
        let order = KeyPathOrder()
        order.startRow()
        order.record(x, entry: 0)
        order.record(y, entry: 1)
        order.startRow()
        #expect(order.recordedEntry(of: y) == nil)
        order.record(y, entry: 1)
        #expect(order.recordedEntry(of: x) == nil)
        order.record(x, entry: 0)
        order.startRow()
        #expect(order.recordedEntry(of: y) == 1)
        #expect(order.recordedEntry(of: x) == 0)
    }
}
