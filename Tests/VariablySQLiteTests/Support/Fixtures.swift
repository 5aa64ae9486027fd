import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablyTestSupport

/// A model with every mapped type.
struct AllTypes: VariablyCodable, EmptyInitializable, Equatable, Sendable {
    enum Mood: String, Codable, Sendable { case happy, sad }
    enum Level: Int, Codable, Sendable { case low = 1, high = 2 }
    struct Point: Codable, Equatable, Sendable { var x: Int; var y: Int }

    var id: Int64 = 0
    var int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var uint8: UInt8 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var bool = false
    var double = 0.0
    var float: Float = 0
    var string = ""
    var url = URL(string: "https://example.com")!
    var uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    var decimal = Decimal(0)
    var data = Data()
    var date = Date(timeIntervalSince1970: 0)
    var millisecondsDate = Date(timeIntervalSince1970: 0)
    var isoDate = Date(timeIntervalSince1970: 0)
    var strings: [String] = []
    var ints: [Int] = []
    var int64s: [Int64] = []
    var doubles: [Double] = []
    var bools: [Bool] = []
    var mood = Mood.happy
    var level = Level.low
    var point = Point(x: 0, y: 0)
    var counts: [String: Int] = [:]
    var optionalInt: Int?
    var optionalString: String?
    var optionalDate: Date?
    var optionalStrings: [String]?
    var optionalPoint: Point?

    static let keySets = KeySets<AllTypes>(defaultSource: .sqlite) {
        KeySet(.sqlite, style: .snakeCase) {
            Key(\.id)
            Key(\.int)
            Key(\.int8)
            Key(\.int16)
            Key(\.int32)
            Key(\.uint8)
            Key(\.uint32)
            Key(\.uint64)
            Key(\.bool)
            Key(\.double)
            Key(\.float)
            Key(\.string)
            Key(\.url)
            Key(\.uuid)
            Key(\.decimal)
            Key(\.data)
            Key(\.date)
            Key(\.millisecondsDate)
            Key(\.isoDate)
            Key(\.strings)
            Key(\.ints)
            Key(\.int64s)
            Key(\.doubles)
            Key(\.bools)
            Key(\.mood)
            Key(\.level)
            Key(\.point)
            Key(\.counts)
            Key(\.optionalInt)
            Key(\.optionalString)
            Key(\.optionalDate)
            Key(\.optionalStrings)
            Key(\.optionalPoint)
        }
    }

    static let full: AllTypes = {
        var value = AllTypes()
        value.id = 7
        value.int = -42
        value.int8 = -8
        value.int16 = 1600
        value.int32 = -320_000
        value.uint8 = 255
        value.uint32 = 4_000_000_000
        value.uint64 = UInt64(Int64.max)
        value.bool = true
        value.double = 3.141592653589793
        value.float = 1.5
        value.string = "héllo \"wörld\" 🎉"
        value.url = URL(string: "https://example.com/a?b=c&d=%20")!
        value.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        value.decimal = Decimal(string: "12345.6789")!
        value.data = Data([0, 1, 2, 0xFF])
        value.date = Date(timeIntervalSince1970: 1_700_000_000.25)
        value.millisecondsDate = Date(timeIntervalSince1970: 1_700_000_000.125)
        value.isoDate = Date(timeIntervalSince1970: 1_700_000_000.5)
        value.strings = ["a", "b \"quoted\"", "back\\slash", "new\nline", "", "ünï 🎉"]
        value.ints = [1, -2, Int.max]
        value.int64s = [Int64.min, 0]
        value.doubles = [0.5, -1e-5, 1e100]
        value.bools = [true, false]
        value.mood = .sad
        value.level = .high
        value.point = Point(x: 3, y: -4)
        value.counts = ["a": 1, "b": 2]
        value.optionalInt = 5
        value.optionalString = "present"
        value.optionalDate = Date(timeIntervalSince1970: 86_400)
        value.optionalStrings = ["x"]
        value.optionalPoint = Point(x: 1, y: 1)
        return value
    }()
}

extension AllTypes: SQLiteStorable {
    static let sqliteTable = SQLiteTable<AllTypes>(
        "all_types", primaryKey: \.id,
        [
            .dateEncoding(\.millisecondsDate, .millisecondsSince1970),
            .dateEncoding(\.isoDate, .iso8601),
        ])
}

/// Names that need quoting: a table and a column called `order`, a column with a quote in it.
struct Order: VariablyCodable, Identifiable, Equatable, Sendable {
    var id: Int64
    var order: Int
    var quoted: String

    init(id: Int64, order: Int, quoted: String) {
        self.id = id
        self.order = order
        self.quoted = quoted
    }

    init(from container: DecodingContainer<Order>) throws {
        id = try container.decode(\.id)
        order = try container.decode(\.order)
        quoted = try container.decode(\.quoted)
    }

    static let keySets = KeySets<Order>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id")
            Key(\.order, "order")
            Key(\.quoted, .verbatim("it\"s"))
        }
    }
}

extension Order: SQLiteStorable {
    static let sqliteTable = SQLiteTable<Order>("order", primaryKey: \.id, [.index(\.order)])
}

/// A model whose nested properties are flattened into columns.
struct Place: VariablyCodable, EmptyInitializable, Equatable, Sendable {
    struct Address: Codable, Equatable, Sendable {
        var city = ""
        var zip = ""
    }

    var id: Int64 = 0
    var address = Address()

    static let keySets = KeySets<Place>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id")
            Key(\.address.city, "address.city")
            Key(\.address.zip, "address.zip")
        }
    }
}

extension Place: SQLiteStorable {
    static let sqliteTable = SQLiteTable<Place>("places", primaryKey: \.id)
}

/// Records every statement a database runs.
final class SQLRecorder: @unchecked Sendable {
    // @unchecked Sendable: `statements` is only touched while `lock` is held.
    private let lock = NSLock()
    private var statements: [String] = []

    var recorded: [String] {
        lock.lock()
        defer { lock.unlock() }
        return statements
    }

    func record(_ sql: String) {
        lock.lock()
        statements.append(sql)
        lock.unlock()
    }

    func reset() {
        lock.lock()
        statements.removeAll()
        lock.unlock()
    }
}

enum TestDatabase {
    /// A fresh in-memory database with the `users` table, and the recorder of its statements.
    static func users(_ count: Int = 0) throws -> (SQLiteDatabase, SQLRecorder) {
        let recorder = SQLRecorder()
        var configuration = Configuration()
        configuration.trace = { recorder.record($0) }
        let db = try SQLiteDatabase.inMemory(configuration: configuration)
        try db.write { db in
            try db.migrate(User.self)
            if count > 0 { try db.insert(User.samples(count)) }
        }
        recorder.reset()
        return (db, recorder)
    }

    /// A path in a fresh temporary directory; the directory is removed by `cleanUp`.
    static func temporaryPath(_ name: String = "test.sqlite") throws -> (path: String, cleanUp: @Sendable () -> Void) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "variably-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory.appendingPathComponent(name).path, { try? FileManager.default.removeItem(at: directory) })
    }
}

/// A small deterministic generator, so that "random" test data is the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        // SplitMix64.
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension User {
    /// `count` users with random values drawn from small sets, so that filters match some of them,
    /// and with user names that contain LIKE wildcards.
    static func random(_ count: Int, seed: UInt64) -> [User] {
        var generator = SeededGenerator(seed: seed)
        let syllables = ["ab", "Ab", "c%", "d_", "e\\", "fo", "oo", "x"]
        return (0..<count).map { index in
            let nameLength = Int.random(in: 1...3, using: &generator)
            let name = (0..<nameLength).map { _ in syllables.randomElement(using: &generator)! }.joined()
            let tags = (0..<Int.random(in: 0...2, using: &generator)).map { _ in
                ["red", "green", "blue"].randomElement(using: &generator)!
            }
            return User(
                id: Int64(index + 1), userName: name, email: "u\(index)@example.com",
                age: Int.random(in: 10...70, using: &generator), isActive: Bool.random(using: &generator),
                score: Double(Int.random(in: 0...400, using: &generator)) / 4,
                updatedAt: Date(
                    timeIntervalSince1970: 1_700_000_000 + Double(Int.random(in: 0...1000, using: &generator))),
                tags: tags,
                nickname: Bool.random(using: &generator) ? nil : ["n1", "n2", "ab"].randomElement(using: &generator)!)
        }
    }
}
