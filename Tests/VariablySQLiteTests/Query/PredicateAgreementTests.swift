import Foundation
import Testing
import VariablyCodable
import VariablySQLite

// A predicate selects in SQL the rows it selects in memory (`Predicate.evaluate` on the rows read
// back), or its translation throws `QueryTranslationError`, after which `.evaluateInMemory` gives the
// in-memory answer. Never other rows.

// MARK: - Support

func agreementDatabase<Model: SQLiteStorable>(_ rows: [Model]) throws -> SQLiteDatabase {
    let db = try SQLiteDatabase.inMemory()
    try db.write { db in
        try db.migrate(Model.self)
        try db.insert(rows)
    }
    return db
}

func memoryIDs<Model: SQLiteStorable & Identifiable>(
    _ db: SQLiteDatabase, _ predicate: Predicate<Model>
) throws -> [Model.ID] where Model.ID: Comparable {
    try db.read { try $0.fetchAll(Model.self) }.filter { try predicate.evaluate($0) }.map(\.id).sorted()
}

/// SQL selects and counts the rows memory selects, which are `expected`.
func expectAgreement<Model: SQLiteStorable & Identifiable>(
    _ db: SQLiteDatabase, _ predicate: Predicate<Model>, _ expected: [Model.ID],
    sourceLocation: SourceLocation = #_sourceLocation
) throws where Model.ID: Comparable {
    let memory = try memoryIDs(db, predicate)
    let sql = try db.read { try $0.fetch(Model.self, where: predicate) }.map(\.id).sorted()
    let count = try db.read { try $0.count(Model.self, where: predicate) }
    let condition = try SQLQuery.condition(predicate)
    #expect(memory == expected, "memory", sourceLocation: sourceLocation)
    #expect(sql == memory, "SQL: \(condition.sql) \(condition.arguments)", sourceLocation: sourceLocation)
    #expect(count == memory.count, "count: \(condition.sql)", sourceLocation: sourceLocation)
}

/// The translation throws `QueryTranslationError` with a reason that mentions `reason`; the in-memory
/// fallback selects `expected`, as evaluating the predicate does.
func expectUntranslatable<Model: SQLiteStorable & Identifiable>(
    _ db: SQLiteDatabase, _ predicate: Predicate<Model>, mentioning reason: String, _ expected: [Model.ID],
    sourceLocation: SourceLocation = #_sourceLocation
) throws where Model.ID: Comparable {
    do {
        let query = try SQLQuery.condition(predicate)
        Issue.record("translated to \(query.sql)", sourceLocation: sourceLocation)
    } catch let error as QueryTranslationError {
        #expect(error.reason.contains(reason), "\(error)", sourceLocation: sourceLocation)
    }
    #expect(throws: QueryTranslationError.self, sourceLocation: sourceLocation) {
        try db.read { try $0.fetch(Model.self, where: predicate) }
    }
    let fallback = try db.read { try $0.fetch(Model.self, where: predicate, ifUntranslatable: .evaluateInMemory) }
    #expect(fallback.map(\.id).sorted() == expected, sourceLocation: sourceLocation)
    #expect(try memoryIDs(db, predicate) == expected, "memory", sourceLocation: sourceLocation)
}

/// One extension per translation problem: the models, the rows with their edge values, the tests.
@Suite struct PredicateAgreementTests {}

// MARK: - Bug 8: LIKE wildcards followed by a combining mark

/// Text and arrays, for the text search and optional chain tests.
private struct AgreementNote: VariablyCodable, EmptyInitializable, SQLiteStorable, Identifiable, Equatable, Sendable {
    var id: Int64 = 0
    var body = ""
    var prefix = ""
    var tags: [String] = []
    var labels: [String]?
    var optBody: String?

    init() {}
    init(
        _ id: Int64, _ body: String, _ prefix: String = "", tags: [String] = [], labels: [String]? = nil,
        optBody: String? = nil
    ) {
        (self.id, self.body, self.prefix, self.tags, self.labels, self.optBody) = (
            id, body, prefix, tags, labels, optBody
        )
    }

    static let keySets = KeySets<AgreementNote>(defaultSource: .sqlite) {
        KeySet(.sqlite, style: .snakeCase) {
            Key(\.id); Key(\.body); Key(\.prefix); Key(\.tags); Key(\.labels); Key(\.optBody)
        }
    }
    static let sqliteTable = SQLiteTable<AgreementNote>("agreement_notes", primaryKey: \.id)
}

private let wildcardRows = [
    AgreementNote(1, "x\u{301}"),
    AgreementNote(2, "%\u{301}"),
    AgreementNote(3, "_\u{301}y"),
    AgreementNote(4, "\\\u{301}"),
    AgreementNote(5, "a%\u{301}"),
]

private let percentAcute = "%\u{301}"
private let underscoreAcute = "_\u{301}"
private let backslashAcute = "\\\u{301}"

extension PredicateAgreementTests {
    @Test func wildcardsWithACombiningMarkAreEscaped() throws {
        let db = try agreementDatabase(wildcardRows)
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.starts(with: percentAcute) }, [2])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.starts(with: underscoreAcute) }, [3])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.starts(with: backslashAcute) }, [4])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.contains(percentAcute) }, [2, 5])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.contains(underscoreAcute) }, [3])
        let query = try SQLQuery.condition(#Predicate<AgreementNote> { $0.body.starts(with: percentAcute) })
        #expect(query.arguments == [.text("\\%\u{301}%"), .text(percentAcute)])
        let underscore = try SQLQuery.condition(#Predicate<AgreementNote> { $0.body.starts(with: underscoreAcute) })
        #expect(underscore.arguments == [.text("\\_\u{301}%"), .text(underscoreAcute)])
    }
}

// MARK: - Bug 7: NUL characters in the stored text

private let textRows = [
    AgreementNote(1, "a\u{0}bc", "a\u{0}"),
    AgreementNote(2, "abc", ""),
    AgreementNote(3, "", ""),
    AgreementNote(4, "xbc", "xbcd"),
    AgreementNote(5, "a\u{0}", "a\u{0}b"),
    AgreementNote(6, "ab\u{0}c", "ab"),
    AgreementNote(7, "\u{0}", "\u{0}"),
    AgreementNote(8, "a%c", "a_"),
]

private let emptyText = ""
private let nul = "\u{0}"

extension PredicateAgreementTests {
    @Test func containsComparesTheStoredBytesPastANul() throws {
        let db = try agreementDatabase(textRows)
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.contains("bc") }, [1, 2, 4])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.contains("c") }, [1, 2, 4, 6, 8])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.contains(nul) }, [1, 5, 6, 7])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.contains("%") }, [8])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.contains("_") }, [])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.contains(emptyText) }, [1, 2, 3, 4, 5, 6, 7, 8])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.contains($0.prefix) }, [1, 2, 3, 6, 7])
        try expectAgreement(db, #Predicate<AgreementNote> { !$0.body.contains("a") }, [3, 4, 7])
        let query = try SQLQuery.condition(#Predicate<AgreementNote> { $0.body.contains("bc") })
        #expect(query.sql == #"instr(CAST("body" AS BLOB), ?) > 0 AND variably_contains("body", ?)"#)
        #expect(query.arguments == [.blob(Data("bc".utf8)), "bc"])
    }

    @Test func startsWithComparesTheStoredBytesPastANul() throws {
        let db = try agreementDatabase(textRows)
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.starts(with: $0.prefix) }, [1, 2, 3, 6, 7])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.starts(with: "ab") }, [2, 6])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.starts(with: "a") }, [1, 2, 5, 6, 8])
        try expectAgreement(
            db, #Predicate<AgreementNote> { $0.body.starts(with: emptyText) }, [1, 2, 3, 4, 5, 6, 7, 8])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.starts(with: "a\u{0}") }, [1, 5])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.starts(with: nul) }, [7])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.starts(with: "a%") }, [8])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.body.starts(with: "a_") }, [])
        // Negated, an empty text (whose BLOB `substr` would make NULL) is selected too.
        try expectAgreement(db, #Predicate<AgreementNote> { !$0.body.starts(with: $0.prefix) }, [4, 5, 8])
        try expectAgreement(db, #Predicate<AgreementNote> { !$0.body.starts(with: "a\u{0}") }, [2, 3, 4, 6, 7, 8])
        let columns = try SQLQuery.condition(#Predicate<AgreementNote> { $0.body.starts(with: $0.prefix) })
        #expect(
            columns.sql
                == #"instr(CAST("body" AS BLOB), CAST("prefix" AS BLOB)) = 1 AND variably_starts_with("body", "prefix")"#
        )
        let nulPrefix = try SQLQuery.condition(#Predicate<AgreementNote> { $0.body.starts(with: "a\u{0}") })
        #expect(nulPrefix.sql == #"instr(CAST("body" AS BLOB), ?) = 1 AND variably_starts_with("body", ?)"#)
        #expect(nulPrefix.arguments == [.blob(Data("a\u{0}".utf8)), "a\u{0}"])
        // A captured prefix without a NUL stays a LIKE, which can use an index; Swift's starts(with:) decides.
        let captured = try SQLQuery.condition(#Predicate<AgreementNote> { $0.body.starts(with: "ab") })
        #expect(captured.sql == #""body" LIKE ? ESCAPE '\' AND variably_starts_with("body", ?)"#)
        #expect(captured.arguments == ["ab%", "ab"])
    }
}

// MARK: - Bug 2: ordering on values stored as JSON, raw values or text

private struct AgreementSemver: Codable, Comparable, Hashable, Sendable {
    var major: Int
    var minor: Int
    static func < (a: Self, b: Self) -> Bool { (a.major, a.minor) < (b.major, b.minor) }
}

/// Synthesized Codable (`{"small":{}}`) and Comparable (declaration order).
private enum AgreementSize: Codable, Comparable, Sendable { case small, medium, large }

/// A single-value wrapper, stored as the number.
private struct AgreementMeters: Codable, Comparable, Sendable {
    var value: Int
    init(_ value: Int) { self.value = value }
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Int.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
    static func < (a: Self, b: Self) -> Bool { a.value < b.value }
}

/// Ordered by severity, not by raw value ("high" < "low" < "medium" as text).
private enum AgreementPriority: String, Codable, Comparable, CaseIterable, Sendable {
    case low, medium, high
    static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
}

/// Ordered like its raw values: SQL would agree, but the translation cannot know.
private enum AgreementLevel: Int, Codable, Comparable, Sendable {
    case low = 1, mid = 5, high = 10
    static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

private struct AgreementRelease: VariablyCodable, EmptyInitializable, SQLiteStorable, Identifiable, Equatable, Sendable
{
    var id: Int64 = 0
    var version = AgreementSemver(major: 0, minor: 0)
    var optVersion: AgreementSemver?
    var size = AgreementSize.small
    var priority = AgreementPriority.low
    var level = AgreementLevel.low
    var price = Decimal(0)

    init() {}
    init(
        _ id: Int64, _ version: AgreementSemver, _ optVersion: AgreementSemver?, _ size: AgreementSize,
        _ priority: AgreementPriority, _ level: AgreementLevel, _ price: String
    ) {
        (self.id, self.version, self.optVersion, self.size) = (id, version, optVersion, size)
        (self.priority, self.level, self.price) = (priority, level, Decimal(string: price)!)
    }

    static let keySets = KeySets<AgreementRelease>(defaultSource: .sqlite) {
        KeySet(.sqlite, style: .snakeCase) {
            Key(\.id)
            Key(\.version)
            Key(\.optVersion)
            Key(\.size)
            Key(\.priority)
            Key(\.level)
            Key(\.price)
        }
    }
    static let sqliteTable = SQLiteTable<AgreementRelease>("agreement_releases", primaryKey: \.id)
}

private let releaseRows = [
    AgreementRelease(1, .init(major: 1, minor: 10), nil, .large, .high, .high, "12345.6789"),
    AgreementRelease(2, .init(major: 1, minor: 9), .init(major: 2, minor: 0), .medium, .medium, .mid, "9"),
    AgreementRelease(3, .init(major: 0, minor: 99), .init(major: 1, minor: 10), .small, .low, .low, "-1.5"),
]

/// Only translated, not stored.
private struct AgreementDistance: VariablyCodable, EmptyInitializable, SQLiteStorable, Identifiable, Equatable, Sendable
{
    var id: Int64 = 0
    var meters = AgreementMeters(0)
    static let keySets = KeySets<AgreementDistance>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id"); Key(\.meters, "meters")
        }
    }
    static let sqliteTable = SQLiteTable<AgreementDistance>("agreement_distances", primaryKey: \.id)
}

private let versionOneNine = AgreementSemver(major: 1, minor: 9)
private let versionZero = AgreementSemver(major: 0, minor: 0)
private let sizeMedium = AgreementSize.medium
private let metersNine = AgreementMeters(9)
private let priorityMedium = AgreementPriority.medium
private let levelMid = AgreementLevel.mid
private let priceTen = Decimal(10)

extension PredicateAgreementTests {
    @Test func orderingOnAValueStoredAsJSONOrARawValueIsUntranslatable() throws {
        let db = try agreementDatabase(releaseRows)
        let reason = "not the Swift values' order"
        try expectUntranslatable(
            db, #Predicate<AgreementRelease> { $0.version > versionOneNine }, mentioning: reason, [1])
        try expectUntranslatable(
            db, #Predicate<AgreementRelease> { $0.version >= versionOneNine }, mentioning: reason, [1, 2])
        try expectUntranslatable(
            db, #Predicate<AgreementRelease> { $0.version < versionOneNine }, mentioning: reason, [3])
        try expectUntranslatable(
            db, #Predicate<AgreementRelease> { $0.version <= versionOneNine }, mentioning: reason, [2, 3])
        try expectUntranslatable(
            db, #Predicate<AgreementRelease> { versionOneNine < $0.version }, mentioning: reason, [1])
        try expectUntranslatable(
            db, #Predicate<AgreementRelease> { ($0.optVersion ?? versionZero) > versionOneNine }, mentioning: reason,
            [2, 3])
        try expectUntranslatable(db, #Predicate<AgreementRelease> { $0.size > sizeMedium }, mentioning: reason, [1])
        try expectUntranslatable(
            db, #Predicate<AgreementRelease> { $0.priority > priorityMedium }, mentioning: reason, [1])
        try expectUntranslatable(db, #Predicate<AgreementRelease> { $0.level >= levelMid }, mentioning: reason, [1, 2])
        try expectUntranslatable(db, #Predicate<AgreementRelease> { $0.price > priceTen }, mentioning: reason, [1])
        // A single-value wrapper is stored as its value, which need not order like the wrapper.
        #expect(throws: QueryTranslationError.self) {
            try SQLQuery.condition(#Predicate<AgreementDistance> { $0.meters > metersNine })
        }
        #expect(
            try SQLQuery.condition(#Predicate<AgreementDistance> { $0.meters == metersNine }).sql == #""meters" = ?"#)
    }

    @Test func sortsOnAValueStoredAsJSONTextARawValueOrDecimalTextAreUntranslatable() throws {
        let db = try agreementDatabase(releaseRows)
        let rows = try db.read { try $0.fetchAll(AgreementRelease.self) }
        for descriptor in [SortDescriptor(\AgreementRelease.price), SortDescriptor(\AgreementRelease.level)] {
            #expect(throws: QueryTranslationError.self) {
                try db.read { try $0.fetch(AgreementRelease.self, sortedBy: [descriptor]) }
            }
            let inMemory = try db.read {
                try $0.fetch(
                    AgreementRelease.self, sortedBy: [descriptor, SortDescriptor(\.id)],
                    ifUntranslatable: .evaluateInMemory)
            }
            #expect(inMemory.map(\.id) == rows.sorted(using: [descriptor, SortDescriptor(\.id)]).map(\.id))
        }
        #expect(
            try db.read { try $0.fetch(AgreementRelease.self, sortedBy: [SortDescriptor(\.id, order: .reverse)]) }.map(
                \.id) == [3, 2, 1])
    }

    @Test func equalityOnAValueStoredAsJSONOrARawValueStaysTranslated() throws {
        let db = try agreementDatabase(releaseRows)
        try expectAgreement(db, #Predicate<AgreementRelease> { $0.version == versionOneNine }, [2])
        try expectAgreement(db, #Predicate<AgreementRelease> { $0.version != versionOneNine }, [1, 3])
        try expectAgreement(db, #Predicate<AgreementRelease> { $0.optVersion == nil }, [1])
        try expectAgreement(db, #Predicate<AgreementRelease> { $0.optVersion != nil }, [2, 3])
        try expectAgreement(db, #Predicate<AgreementRelease> { $0.size == sizeMedium }, [2])
        try expectAgreement(db, #Predicate<AgreementRelease> { $0.priority != priorityMedium }, [1, 3])
        try expectAgreement(db, #Predicate<AgreementRelease> { $0.level == levelMid }, [2])
        try expectAgreement(db, #Predicate<AgreementRelease> { $0.price == priceTen || $0.id == 2 }, [2])
    }
}

// MARK: - Bug 3: equality on Set columns

/// An OptionSet is stored as its raw value: equality on it stays translated.
private struct AgreementPermissions: OptionSet, Codable, Hashable, Sendable {
    let rawValue: Int
    static let read = AgreementPermissions(rawValue: 1)
    static let write = AgreementPermissions(rawValue: 2)
}

private struct AgreementLabeled: VariablyCodable, EmptyInitializable, SQLiteStorable, Identifiable, Equatable, Sendable
{
    var id: Int64 = 0
    var labels: Set<String> = []
    var optLabels: Set<String>?
    var permissions: AgreementPermissions = []

    init() {}
    init(_ id: Int64, _ labels: Set<String>, _ optLabels: Set<String>?, _ permissions: AgreementPermissions) {
        (self.id, self.labels, self.optLabels, self.permissions) = (id, labels, optLabels, permissions)
    }

    static let keySets = KeySets<AgreementLabeled>(defaultSource: .sqlite) {
        KeySet(.sqlite, style: .snakeCase) {
            Key(\.id); Key(\.labels); Key(\.optLabels); Key(\.permissions)
        }
    }
    static let sqliteTable = SQLiteTable<AgreementLabeled>("agreement_labeled", primaryKey: \.id)
}

/// The same elements as `["a", "b", "c", "d", "e"]`, in another iteration order.
private let reorderedLabels: Set<String> = {
    var labels = Set<String>(minimumCapacity: 64)
    for label in ["e", "d", "c", "b", "a"] { labels.insert(label) }
    return labels
}()
private let labelSets: [Set<String>] = [reorderedLabels, ["z"]]
private let readWrite: AgreementPermissions = [.read, .write]

extension PredicateAgreementTests {
    @Test func equalityOnASetColumnIsUntranslatable() throws {
        let rows = [
            AgreementLabeled(1, ["a", "b", "c", "d", "e"], ["a", "b", "c", "d", "e"], [.read]),
            AgreementLabeled(2, [], nil, readWrite),
            AgreementLabeled(3, ["z"], [], []),
        ]
        let db = try agreementDatabase(rows)
        let reason = "iteration order"
        try expectUntranslatable(
            db, #Predicate<AgreementLabeled> { $0.labels == reorderedLabels }, mentioning: reason, [1])
        try expectUntranslatable(
            db, #Predicate<AgreementLabeled> { $0.labels != reorderedLabels }, mentioning: reason, [2, 3])
        try expectUntranslatable(
            db, #Predicate<AgreementLabeled> { $0.optLabels == reorderedLabels }, mentioning: reason, [1])
        try expectUntranslatable(
            db, #Predicate<AgreementLabeled> { labelSets.contains($0.labels) }, mentioning: reason, [1, 3])
        try expectUntranslatable(
            db, #Predicate<AgreementLabeled> { ($0.optLabels ?? reorderedLabels) == reorderedLabels },
            mentioning: reason, [1, 2])
        // Comparing with nil, and a raw-value OptionSet, stay translated.
        try expectAgreement(db, #Predicate<AgreementLabeled> { $0.optLabels == nil }, [2])
        try expectAgreement(db, #Predicate<AgreementLabeled> { $0.optLabels != nil }, [1, 3])
        try expectAgreement(db, #Predicate<AgreementLabeled> { $0.permissions == readWrite }, [2])
    }
}

// MARK: - Bug 4: dates in different encodings

private struct AgreementBooking: VariablyCodable, EmptyInitializable, SQLiteStorable, Identifiable, Equatable, Sendable
{
    var id: Int64 = 0
    /// REAL seconds.
    var created = Date(timeIntervalSince1970: 0)
    /// REAL seconds too.
    var confirmed = Date(timeIntervalSince1970: 0)
    /// INTEGER milliseconds.
    var starts = Date(timeIntervalSince1970: 0)
    /// INTEGER milliseconds.
    var ends: Date?
    /// ISO 8601 text with fractional seconds.
    var stamped = Date(timeIntervalSince1970: 0)
    /// Whole-second ISO 8601 text, the key's date strategy.
    var seen = Date(timeIntervalSince1970: 0)

    init() {}
    init(_ id: Int64, created: Double, confirmed: Double, starts: Double, ends: Double?, stamped: Double, seen: Double)
    {
        self.id = id
        self.created = Date(timeIntervalSince1970: created)
        self.confirmed = Date(timeIntervalSince1970: confirmed)
        self.starts = Date(timeIntervalSince1970: starts)
        self.ends = ends.map { Date(timeIntervalSince1970: $0) }
        self.stamped = Date(timeIntervalSince1970: stamped)
        self.seen = Date(timeIntervalSince1970: seen)
    }

    static let keySets = KeySets<AgreementBooking>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id")
            Key(\.created, "created")
            Key(\.confirmed, "confirmed")
            Key(\.starts, "starts")
            Key(\.ends, "ends")
            Key(\.stamped, "stamped")
            Key(\.seen, "seen").dates(.iso8601)
        }
    }
    static let sqliteTable = SQLiteTable<AgreementBooking>(
        "agreement_bookings", primaryKey: \.id,
        [
            .dateEncoding(\.starts, .millisecondsSince1970), .dateEncoding(\.ends, .millisecondsSince1970),
            .dateEncoding(\.stamped, .iso8601),
        ])
}

// Whole seconds, so that every encoding stores each date exactly.
private let bookingRows = [
    AgreementBooking(
        1, created: 1_700_000_000, confirmed: 1_700_000_000, starts: 1_700_000_000, ends: nil, stamped: 1_700_000_000,
        seen: 1_700_000_000),
    AgreementBooking(
        2, created: 1_000_000_000, confirmed: 1_100_000_000, starts: 1_700_000_000, ends: 1_800_000_000,
        stamped: 1_600_000_000, seen: 1_000_000_000),
    AgreementBooking(
        3, created: 1_650_000_000, confirmed: 1_600_000_000, starts: 1_200_000_000, ends: 1_300_000_000,
        stamped: 1_650_000_000, seen: 1_700_000_000),
]

private let bookingCut = Date(timeIntervalSince1970: 1_500_000_000)

extension PredicateAgreementTests {
    @Test func datesInDifferentEncodingsAreNotComparedInSQL() throws {
        let db = try agreementDatabase(bookingRows)
        let reason = "different encodings"
        try expectUntranslatable(db, #Predicate<AgreementBooking> { $0.created == $0.starts }, mentioning: reason, [1])
        try expectUntranslatable(
            db, #Predicate<AgreementBooking> { $0.created != $0.starts }, mentioning: reason, [2, 3])
        try expectUntranslatable(db, #Predicate<AgreementBooking> { $0.created < $0.starts }, mentioning: reason, [2])
        try expectUntranslatable(
            db, #Predicate<AgreementBooking> { $0.starts >= $0.stamped }, mentioning: reason, [1, 2])
        try expectUntranslatable(db, #Predicate<AgreementBooking> { $0.stamped == $0.seen }, mentioning: reason, [1])
        try expectUntranslatable(db, #Predicate<AgreementBooking> { $0.seen > $0.created }, mentioning: reason, [3])
        try expectUntranslatable(
            db, #Predicate<AgreementBooking> { ($0.ends ?? $0.created) > bookingCut }, mentioning: reason, [1, 2])
        try expectUntranslatable(
            db, #Predicate<AgreementBooking> { ($0.id < 2 ? $0.created : $0.starts) > bookingCut }, mentioning: reason,
            [1, 2])
    }

    @Test func datesInTheSameEncodingStayTranslated() throws {
        let db = try agreementDatabase(bookingRows)
        try expectAgreement(db, #Predicate<AgreementBooking> { $0.created == $0.confirmed }, [1])
        try expectAgreement(db, #Predicate<AgreementBooking> { $0.created > $0.confirmed }, [3])
        try expectAgreement(db, #Predicate<AgreementBooking> { $0.starts < ($0.ends ?? $0.starts) }, [2, 3])
        try expectAgreement(db, #Predicate<AgreementBooking> { ($0.ends ?? $0.starts) > bookingCut }, [1, 2])
        try expectAgreement(db, #Predicate<AgreementBooking> { ($0.ends ?? bookingCut) <= bookingCut }, [1, 3])
        try expectAgreement(
            db, #Predicate<AgreementBooking> { ($0.id < 2 ? $0.created : $0.confirmed) > bookingCut }, [1, 3])
        try expectAgreement(db, #Predicate<AgreementBooking> { $0.seen >= bookingCut }, [1, 3])
    }
}

// MARK: - Bug 6: optional chains that must stay nil

private let arrayRows = [
    AgreementNote(1, "", labels: nil, optBody: nil),
    AgreementNote(2, "", tags: ["red"], labels: ["x"], optBody: "b"),
    AgreementNote(3, "", tags: ["blue"], labels: ["red", "x"], optBody: "ab"),
    AgreementNote(4, "", labels: [], optBody: ""),
]

private let noFlag = false

extension PredicateAgreementTests {
    @Test func containsOnAnOptionalArrayIsNilWhenTheArrayIs() throws {
        let db = try agreementDatabase(arrayRows)
        try expectAgreement(db, #Predicate<AgreementNote> { $0.labels?.contains("red") == false }, [2, 4])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.labels?.contains("red") == true }, [3])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.labels?.contains("red") == nil }, [1])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.labels?.contains("red") != true }, [1, 2, 4])
        try expectAgreement(db, #Predicate<AgreementNote> { !($0.labels?.contains("red") ?? true) }, [2, 4])
        try expectAgreement(
            db, #Predicate<AgreementNote> { if let labels = $0.labels { labels.contains("red") } else { false } }, [3])
        let optional = try SQLQuery.condition(#Predicate<AgreementNote> { $0.labels?.contains("red") == nil })
        #expect(
            optional.sql
                == #"CASE WHEN "labels" IS NULL THEN NULL ELSE EXISTS (SELECT 1 FROM json_each("labels") WHERE json_each.value = ?) END IS NULL"#
        )
        // A non-optional array keeps its plain EXISTS.
        try expectAgreement(db, #Predicate<AgreementNote> { $0.tags.contains("red") }, [2])
        let plain = try SQLQuery.condition(#Predicate<AgreementNote> { $0.tags.contains("red") })
        #expect(plain.sql == #"EXISTS (SELECT 1 FROM json_each("tags") WHERE json_each.value = ?)"#)
    }

    @Test func optionalChainsWhoseSQLIsNotNullForNullAreTestedForNull() throws {
        let db = try agreementDatabase(arrayRows)
        // `NULL AND 0` is 0, not NULL.
        try expectAgreement(
            db, #Predicate<AgreementNote> { $0.optBody.flatMap { $0.contains("b") && noFlag } == false }, [2, 3, 4])
        try expectAgreement(
            db, #Predicate<AgreementNote> { $0.optBody.flatMap { $0.contains("b") || !noFlag } == nil }, [1])
        // Operators that give NULL on NULL keep their plain SQL.
        try expectAgreement(db, #Predicate<AgreementNote> { $0.optBody?.contains("b") == false }, [4])
        let plain = try SQLQuery.condition(#Predicate<AgreementNote> { $0.optBody?.contains("b") == false })
        #expect(plain.sql == #"(instr(CAST("opt_body" AS BLOB), ?) > 0 AND variably_contains("opt_body", ?)) IS ?"#)
        try expectAgreement(db, #Predicate<AgreementNote> { $0.optBody.flatMap { $0 == "b" } == false }, [3, 4])
        try expectAgreement(db, #Predicate<AgreementNote> { $0.optBody.flatMap { $0.starts(with: "a") } == nil }, [1])
    }
}
