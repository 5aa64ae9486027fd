import Foundation
import VariablyCodable
import VariablySQLite

extension BenchUser: SQLiteStorable {
    static let sqliteTable = SQLiteTable<BenchUser>("users", primaryKey: \.id, [
        .index(\.userName),
        .dateEncoding(\.createdAt, .secondsSince1970),
    ])
}

/// VariablySQLite variants for the SQLite groups, appended after the raw C baseline.
enum VariablySQLiteVariants {
    static func open(prefill: [BenchUser] = []) throws -> (TemporaryDatabase, SQLiteDatabase) {
        let file = try TemporaryDatabase()
        let database = try SQLiteDatabase(path: file.path)
        try database.write { db in
            try db.create(table: BenchUser.self)
            if !prefill.isEmpty { try db.insert(prefill) }
        }
        return (file, database)
    }

    static func insert(_ users: [BenchUser]) -> Variant {
        Variant(name: "VariablySQLite batch insert") {
            let (file, database) = try open()
            try database.write { try $0.insert(users) }
            _ = file
            return users.count
        }
    }

    static func upsert(_ users: [BenchUser], existing: [BenchUser]) -> Variant {
        Variant(name: "VariablySQLite batch upsert") {
            let (file, database) = try open(prefill: existing)
            try database.write { try $0.upsert(users) }
            _ = file
            return users.count
        }
    }

    static func fetchAll(path: String) throws -> Variant {
        let database = try SQLiteDatabase(path: path)
        return Variant(name: "VariablySQLite fetchAll") { try database.read { try $0.fetchAll(BenchUser.self).count } }
    }

    static func query(path: String, count: Int) throws -> Variant {
        let database = try SQLiteDatabase(path: path)
        return Variant(name: "VariablySQLite #Predicate") {
            try database.read { db in
                for _ in 0..<count {
                    _ = try db.fetch(
                        BenchUser.self, where: #Predicate { $0.age > 30 && $0.isActive },
                        sortedBy: [SortDescriptor(\.userName)], limit: 100)
                }
            }
            return count
        }
    }
}
