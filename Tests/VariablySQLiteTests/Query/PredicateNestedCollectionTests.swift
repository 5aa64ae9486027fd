import Foundation
import Testing
import VariablyCodable
import VariablySQLite

// A struct stored as JSON text compares as that text. A `Set`, or a dictionary whose keys are not
// string-like, inside it is a JSON array in iteration order, which differs between equal values: `==`
// against a captured value holding one with two or more members is not translated.

private struct Shelf: Codable, Hashable, Sendable {
    var tags: Set<String> = []
    var stock: [UUID: Int] = [:]
    var counts: [String: Int] = [:]
}

private struct AgreementShelved: VariablyCodable, EmptyInitializable, SQLiteStorable, Identifiable, Equatable, Sendable
{
    var id: Int64 = 0
    var shelf = Shelf()

    init() {}
    init(_ id: Int64, _ shelf: Shelf) {
        (self.id, self.shelf) = (id, shelf)
    }

    static let keySets = KeySets<AgreementShelved>(defaultSource: .sqlite) {
        KeySet(.sqlite, style: .snakeCase) {
            Key(\.id); Key(\.shelf)
        }
    }
    static let sqliteTable = SQLiteTable<AgreementShelved>("agreement_shelved", primaryKey: \.id)
}

private let firstItem = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
private let secondItem = UUID(uuidString: "00000000-0000-0000-0000-000000000002")!

/// The tags `a` to `e`, inserted in another order into a larger set, so that they iterate in another order.
private let reorderedTags: Set<String> = {
    var tags = Set<String>(minimumCapacity: 64)
    for tag in ["e", "d", "c", "b", "a"] { tags.insert(tag) }
    return tags
}()
private let manyTags = Shelf(tags: reorderedTags)
private let twoItems = Shelf(stock: [secondItem: 2, firstItem: 1])
private let oneTagTwoCounts = Shelf(tags: ["x"], counts: ["b": 2, "a": 1])
private let oneItem = Shelf(stock: [firstItem: 1])

@Suite struct PredicateNestedCollectionTests {
    private func database() throws -> SQLiteDatabase {
        try agreementDatabase([
            AgreementShelved(1, Shelf(tags: ["a", "b", "c", "d", "e"])),
            AgreementShelved(2, Shelf(stock: [firstItem: 1, secondItem: 2])),
            AgreementShelved(3, Shelf(tags: ["x"], counts: ["a": 1, "b": 2])),
            AgreementShelved(4, Shelf(stock: [firstItem: 1])),
        ])
    }

    @Test func equalityWithAValueHoldingAnUnorderedCollectionIsUntranslatable() throws {
        let db = try database()
        let reason = "iteration order"
        try expectUntranslatable(db, #Predicate<AgreementShelved> { $0.shelf == manyTags }, mentioning: reason, [1])
        try expectUntranslatable(
            db, #Predicate<AgreementShelved> { $0.shelf != manyTags }, mentioning: reason, [2, 3, 4])
        try expectUntranslatable(db, #Predicate<AgreementShelved> { $0.shelf == twoItems }, mentioning: reason, [2])
        try expectUntranslatable(
            db, #Predicate<AgreementShelved> { [oneItem, manyTags].contains($0.shelf) }, mentioning: reason, [1, 4])
    }

    @Test func equalityWithValuesWhoseJSONIsCanonicalStaysTranslated() throws {
        let db = try database()
        // One member per set or array-encoded dictionary, and string keys (sorted in a JSON column).
        try expectAgreement(db, #Predicate<AgreementShelved> { $0.shelf == oneTagTwoCounts }, [3])
        try expectAgreement(db, #Predicate<AgreementShelved> { $0.shelf == oneItem }, [4])
        try expectAgreement(
            db, #Predicate<AgreementShelved> { [oneItem, oneTagTwoCounts].contains($0.shelf) }, [3, 4])
    }
}
