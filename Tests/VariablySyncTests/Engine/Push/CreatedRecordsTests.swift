import Foundation
import Testing

@testable import VariablySync

/// A create in doubt keeps every record it was sent with (`created_record`): one as itself, several as a
/// JSON array, the first and the latest at most ``PendingChange/maximumCreatedRecords``. Against a real
/// server: `PocketBaseSyncTests.aCreateInDoubtWhoseAdoptionWasCutShortKeepsTheEdit`.
@Suite struct CreatedRecordsTests {
    private func record(_ index: Int) -> Data { Data(#"{"id":"a","body":"\#(index)"}"#.utf8) }

    @Test func oneRecordIsKeptAsItselfAndARepeatAddsNothing() {
        let first = PendingChange.storing(record(0), besides: nil)
        #expect(first == record(0))
        #expect(PendingChange.createdRecords(in: first) == [record(0)])
        #expect(PendingChange.storing(record(0), besides: first) == first)
        // A record stored by an earlier version, as itself, reads as one.
        #expect(PendingChange.createdRecords(in: record(3)) == [record(3)])
        #expect(PendingChange.createdRecords(in: nil).isEmpty)
    }

    @Test func laterSendsAreKeptBesideTheFirstUpToTheLimit() {
        var stored: Data? = nil
        for index in 0..<12 { stored = PendingChange.storing(record(index), besides: stored) }
        let records = PendingChange.createdRecords(in: stored)
        #expect(records.count == PendingChange.maximumCreatedRecords)
        #expect(records.first == record(0))
        #expect(records.last == record(11))
        #expect(records.dropFirst().first == record(5))
    }
}
