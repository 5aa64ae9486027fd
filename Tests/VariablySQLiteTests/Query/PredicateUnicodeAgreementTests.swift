import Foundation
import Testing
import VariablyCodable
import VariablySQLite

// Swift compares strings by canonical equivalence (`"\u{E9}" == "e\u{301}"`), orders them by the
// scalars of their NFC forms, and searches them by `Character` (`"e\u{301}"` does not contain `"e"`,
// `"\r\n"` does not contain `"\n"`). Text is stored and bound in NFC and searches are decided by
// Swift's own `contains`/`starts(with:)`, so that SQL returns the rows `evaluate` selects.

private struct AgreementText: VariablyCodable, EmptyInitializable, SQLiteStorable, Identifiable, Equatable, Sendable {
    var id: Int64 = 0
    var body = ""
    var other = ""
    var tags: [String] = []

    init() {}
    init(_ id: Int64, _ body: String, _ other: String, tags: [String] = []) {
        (self.id, self.body, self.other, self.tags) = (id, body, other, tags)
    }

    static let keySets = KeySets<AgreementText>(defaultSource: .sqlite) {
        KeySet(.sqlite, style: .snakeCase) {
            Key(\.id); Key(\.body); Key(\.other); Key(\.tags)
        }
    }
    static let sqliteTable = SQLiteTable<AgreementText>("agreement_texts", primaryKey: \.id)
}

/// Each text of the comparisons: one form of a character and its canonical equivalents, emoji
/// sequences and fragments of them, and the line breaks.
private let unicodeTexts = [
    "\u{E9}", "e\u{301}", "e", "\u{C5}", "\u{212B}", "A\u{30A}", "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
    "\u{1F469}", "\u{1F1FA}\u{1F1F8}\u{1F1EB}\u{1F1F7}", "\u{1F1F8}\u{1F1EB}", "\r\n", "\n",
]

/// Every pair of texts, as the body and the other column of a row; the tags hold the body.
private let unicodeRows: [AgreementText] = unicodeTexts.enumerated().flatMap { first in
    unicodeTexts.enumerated().map { second in
        AgreementText(
            Int64(first.offset * unicodeTexts.count + second.offset + 1), first.element, second.element,
            tags: [first.element])
    }
}

/// The comparisons, with a captured text and with the other column.
private enum TextOperator: String, CaseIterable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual, contains, startsWith

    func predicate(_ needle: String) -> Predicate<AgreementText> {
        switch self {
        case .equal: return #Predicate<AgreementText> { $0.body == needle }
        case .notEqual: return #Predicate<AgreementText> { $0.body != needle }
        case .less: return #Predicate<AgreementText> { $0.body < needle }
        case .lessOrEqual: return #Predicate<AgreementText> { $0.body <= needle }
        case .greater: return #Predicate<AgreementText> { $0.body > needle }
        case .greaterOrEqual: return #Predicate<AgreementText> { $0.body >= needle }
        case .contains: return #Predicate<AgreementText> { $0.body.contains(needle) }
        case .startsWith: return #Predicate<AgreementText> { $0.body.starts(with: needle) }
        }
    }

    var columnPredicate: Predicate<AgreementText> {
        switch self {
        case .equal: return #Predicate<AgreementText> { $0.body == $0.other }
        case .notEqual: return #Predicate<AgreementText> { $0.body != $0.other }
        case .less: return #Predicate<AgreementText> { $0.body < $0.other }
        case .lessOrEqual: return #Predicate<AgreementText> { $0.body <= $0.other }
        case .greater: return #Predicate<AgreementText> { $0.body > $0.other }
        case .greaterOrEqual: return #Predicate<AgreementText> { $0.body >= $0.other }
        case .contains: return #Predicate<AgreementText> { $0.body.contains($0.other) }
        case .startsWith: return #Predicate<AgreementText> { $0.body.starts(with: $0.other) }
        }
    }
}

extension PredicateAgreementTests {
    /// 12 texts × 12 needles × 8 comparisons, the needle captured: every answer is Swift's, on the rows
    /// as stored (in NFC). `<`, `<=`, `>` and `>=` against a needle that is not in NFC are not
    /// translated: Swift orders such a string inconsistently (`"\u{212B}" < "\u{C5}d"` is false).
    @Test(arguments: TextOperator.allCases)
    fileprivate func textComparisonsSelectSwiftsRowsForCapturedText(_ comparison: TextOperator) throws {
        let db = try agreementDatabase(unicodeRows)
        for needle in unicodeTexts {
            let predicate = comparison.predicate(needle)
            let expected = try memoryIDs(db, predicate)
            let isOrdering = [.less, .lessOrEqual, .greater, .greaterOrEqual].contains(comparison)
            if isOrdering,
                !needle.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(needle.unicodeScalars)
            {
                try expectUntranslatable(db, predicate, mentioning: "not in NFC", expected)
            } else {
                try expectAgreement(db, predicate, expected)
                // As written, too: the stored form changes no answer for these texts.
                #expect(
                    try unicodeRows.filter { try predicate.evaluate($0) }.map(\.id) == expected,
                    "\(comparison) \(needle)")
            }
        }
    }

    @Test func orderingAgainstTextOutsideNFCIsLeftToMemory() throws {
        let db = try agreementDatabase([AgreementText(1, "\u{C5}d", ""), AgreementText(2, "\u{E9}a", "")])
        let angstrom = "\u{212B}"
        let decomposed = "e\u{301}"
        // Swift orders these against the stored texts neither as their NFC forms nor consistently with
        // `==`: the answer is whatever `evaluate` gives.
        for predicate in [
            #Predicate<AgreementText> { $0.body > angstrom }, #Predicate<AgreementText> { $0.body > decomposed },
            #Predicate<AgreementText> { $0.body <= decomposed },
        ] {
            try expectUntranslatable(db, predicate, mentioning: "not in NFC", try memoryIDs(db, predicate))
        }
        let normalized = decomposed.precomposedStringWithCanonicalMapping
        try expectAgreement(db, #Predicate<AgreementText> { $0.body > normalized }, [2])
    }

    @Test func textSortsInSwiftsOrder() throws {
        let db = try agreementDatabase(unicodeRows)
        for order in [SortOrder.forward, .reverse] {
            let sorted = try db.read {
                try $0.fetch(AgreementText.self, sortedBy: [SortDescriptor(\.body, order: order)])
            }
            let expected = unicodeRows.sorted(using: [SortDescriptor(\.body, order: order)])
            // Equal texts (canonically equivalent forms) may come in either order.
            #expect(sorted.count == expected.count)
            #expect(zip(sorted, expected).allSatisfy { $0.body == $1.body }, "\(order): \(sorted.map(\.body))")
        }
    }

    @Test func capturedListsAndArrayElementsCompareByCanonicalEquivalence() throws {
        let db = try agreementDatabase(unicodeRows)
        let decomposed = ["e\u{301}", "\u{212B}"]
        let inList = #Predicate<AgreementText> { decomposed.contains($0.body) }
        try expectAgreement(db, inList, try unicodeRows.filter { try inList.evaluate($0) }.map(\.id))
        for needle in unicodeTexts {
            let tagged = #Predicate<AgreementText> { $0.tags.contains(needle) }
            try expectAgreement(db, tagged, try unicodeRows.filter { try tagged.evaluate($0) }.map(\.id))
        }
    }

    /// The cost of the agreement: text reads back in NFC, equal to what was written in Swift's eyes.
    @Test func textIsStoredInNFC() throws {
        let db = try agreementDatabase([AgreementText(1, "e\u{301}", "\u{212B}", tags: ["A\u{30A}"])])
        let read = try #require(try db.read { try $0.fetch(AgreementText.self, id: 1) })
        #expect(read == AgreementText(1, "e\u{301}", "\u{212B}", tags: ["A\u{30A}"]))
        #expect(read.body.unicodeScalars.map(\.value) == [0xE9])
        #expect(read.other.unicodeScalars.map(\.value) == [0xC5])
        #expect(read.tags.first?.unicodeScalars.map(\.value) == [0xC5])
    }
}
