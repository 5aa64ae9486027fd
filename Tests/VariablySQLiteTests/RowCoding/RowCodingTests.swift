import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablyTestSupport

@Suite struct RowCodingTests {
    private func database() throws -> SQLiteDatabase {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.migrate(AllTypes.self)
            try db.migrate(User.self)
        }
        return db
    }

    @Test func everyMappedTypeRoundTrips() throws {
        let db = try database()
        try db.write { try $0.insert(AllTypes.full) }
        let fetched = try db.read { try $0.fetch(AllTypes.self, id: Int64(7)) }
        #expect(fetched == AllTypes.full)
    }

    @Test func nilOptionalsAreStoredAsNullAndReadBack() throws {
        let db = try database()
        var value = AllTypes.full
        value.optionalInt = nil
        value.optionalString = nil
        value.optionalDate = nil
        value.optionalStrings = nil
        value.optionalPoint = nil
        try db.write { try $0.insert(value) }
        let row = try db.read {
            try $0.fetch(
                sql:
                    "SELECT optional_int, optional_string, optional_date, optional_strings, optional_point FROM all_types"
            )
        }
        #expect(row.first?.values == [.null, .null, .null, .null, .null])
        #expect(try db.read { try $0.fetch(AllTypes.self, id: Int64(7)) } == value)
    }

    @Test func valuesAreStoredInTheirDocumentedStorageClasses() throws {
        let db = try database()
        try db.write { try $0.insert(AllTypes.full) }
        let row = try db.read {
            try $0.fetch(
                sql: """
                    SELECT int, bool, double, string, url, uuid, decimal, data, date, milliseconds_date, iso_date,
                           strings, ints, mood, level, point, counts, uint64
                    FROM all_types
                    """
            )[0]
        }
        #expect(row["int"] == .integer(-42))
        #expect(row["bool"] == .integer(1))
        #expect(row["double"] == .real(3.141592653589793))
        #expect(row["string"] == .text("héllo \"wörld\" 🎉"))
        #expect(row["url"] == .text("https://example.com/a?b=c&d=%20"))
        #expect(row["uuid"] == .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(row["decimal"] == .text("12345.6789"))
        #expect(row["data"] == .blob(Data([0, 1, 2, 0xFF])))
        #expect(row["date"] == .real(1_700_000_000.25))
        #expect(row["milliseconds_date"] == .integer(1_700_000_000_125))
        #expect(row["iso_date"] == .text("2023-11-14T22:13:20.500Z"))
        #expect(row["strings"] == .text(#"["a","b \"quoted\"","back\\slash","new\nline","","ünï 🎉"]"#))
        #expect(row["ints"] == .text("[1,-2,9223372036854775807]"))
        #expect(row["mood"] == .text("sad"))
        #expect(row["level"] == .integer(2))
        #expect(row["point"] == .text(#"{"x":3,"y":-4}"#))
        #expect(row["counts"] == .text(#"{"a":1,"b":2}"#))
        #expect(row["uint64"] == .integer(Int64.max))
    }

    @Test func stringArraysAreJSONThatSQLiteUnderstands() throws {
        let db = try database()
        try db.write { try $0.insert(AllTypes.full) }
        let elements = try db.read {
            try $0.fetch(sql: "SELECT value FROM all_types, json_each(all_types.strings)").map { $0[0] }
        }
        #expect(elements == AllTypes.full.strings.map { .text($0) })
    }

    @Test func jsonWrittenByOthersDecodes() throws {
        let db = try database()
        try db.write { try $0.insert(AllTypes.full) }
        try db.write {
            try $0.execute(
                sql: "UPDATE all_types SET strings = ?, ints = ?",
                arguments: [#"[ "\u00e9", "tab\there", "\ud83d\ude00" ]"#, "[ 1 , 2 ]"])
        }
        let fetched = try db.read { try $0.fetch(AllTypes.self, id: Int64(7)) }
        #expect(fetched?.strings == ["é", "tab\there", "😀"])
        #expect(fetched?.ints == [1, 2])
    }

    @Test func nullInARequiredColumnIsACodingErrorNamingTheProperty() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.execute(
                sql:
                    "CREATE TABLE users (id INTEGER PRIMARY KEY, user_name TEXT, email TEXT, age INTEGER, is_active INTEGER, score REAL, updated_at REAL, tags TEXT, nickname TEXT)"
            )
            try db.execute(
                sql:
                    "INSERT INTO users (id, user_name, email, age, is_active, score, updated_at) VALUES (1, NULL, 'e', 1, 1, 0, 0)"
            )
        }
        #expect {
            try db.read { try $0.fetchAll(User.self) }
        } throws: { error in
            guard let error = error as? VariablyCodingError else { return false }
            return error.reason == .valueNotFound && error.propertyName == "userName" && error.source == .sqlite
        }
    }

    @Test func missingOptionalColumnsDecodeAsNilAndDefaults() throws {
        let db = try database()
        try db.write { try $0.insert(User.sample(1)) }
        let users = try db.read {
            try $0.fetch(User.self, sql: "SELECT id, user_name, email, age, is_active, score, updated_at FROM users")
        }
        var expected = User.sample(1)
        expected.tags = []
        expected.nickname = nil
        #expect(users == [expected])
    }

    @Test func wrongStorageClassIsATypeMismatch() throws {
        let db = try database()
        try db.write { db in
            try db.insert(User.sample(1))
            try db.execute(sql: "UPDATE users SET age = 'old'")
        }
        #expect {
            try db.read { try $0.fetchAll(User.self) }
        } throws: { error in
            (error as? VariablyCodingError)?.reason == .typeMismatch
                && (error as? VariablyCodingError)?.propertyName == "age"
        }
    }

    @Test func unencodableValuesNameTheProperty() throws {
        let db = try database()
        var value = AllTypes.full
        value.uint64 = UInt64.max
        #expect {
            try db.write { try $0.insert(value) }
        } throws: { error in
            guard let error = error as? RecordEncodingError else { return false }
            return error.column == "uint64" && error.keyPath.contains("uint64")
        }
        #expect(try db.read { try $0.count(AllTypes.self) } == 0)
    }

    @Test func flattenedColumnsForNestedKeyPaths() throws {
        let db = try SQLiteDatabase.inMemory()
        var place = Place()
        place.id = 1
        place.address = .init(city: "Lyon", zip: "69001")
        try db.write { db in
            try db.migrate(Place.self)
            try db.insert(place)
        }
        #expect(
            try Database.createTableSQL(for: Place.self)
                == #"CREATE TABLE "places" ("id" INTEGER PRIMARY KEY NOT NULL, "address_city" TEXT NOT NULL, "address_zip" TEXT NOT NULL)"#
        )
        #expect(try db.read { try $0.fetchAll(Place.self) } == [place])
        #expect(try db.read { try $0.fetch(Place.self, where: #Predicate { $0.address.city == "Lyon" }) } == [place])
    }
}

@Suite struct RowDecodingErrorTests {
    @Test func aRowDecodingErrorNamesTheColumnAndTheSQL() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.migrate(User.self)
            try db.insert(User.samples(2))
            try db.execute(
                sql: #"UPDATE "users" SET "age" = 'forty' WHERE "id" = ?"#, arguments: [User.samples(2)[1].id])
        }
        #expect {
            _ = try db.read { try $0.fetchAll(User.self) }
        } throws: { error in
            let text = "\(error)"
            return text.contains(#"column "age""#) && text.contains("SELECT") && text.contains("age")
        }
        // A query without the column: the error names the column it looked for.
        #expect {
            _ = try db.read { try $0.fetch(User.self, sql: #"SELECT "id", "user_name" FROM "users""#) }
        } throws: { error in
            "\(error)".contains(#""email""#)
        }
    }
}
