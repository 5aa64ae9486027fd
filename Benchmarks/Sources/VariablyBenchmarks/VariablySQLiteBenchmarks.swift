import Foundation
import VariablyCodable
import VariablySQLite

extension BenchUser: SQLiteStorable {
    static let sqliteTable = SQLiteTable<BenchUser>(
        "users", primaryKey: \.id,
        [
            .index(\.userName),
            .dateEncoding(\.createdAt, .secondsSince1970),
        ])
}

/// VariablySQLite variants for the SQLite groups, appended after the C floor and the Swift loop over the C API.
enum VariablySQLiteVariants {
    /// A new file with the users' table; `checkpoints`, when given, in place of the default (in the
    /// background). The variants close the database before they return: their timing includes the
    /// checkpoints, wherever they run.
    static func open(prefill: [BenchUser] = [], checkpoints: CheckpointPolicy? = nil) throws
        -> (TemporaryDatabase, SQLiteDatabase)
    {
        let file = try TemporaryDatabase()
        var configuration = VariablySQLite.Configuration()
        if let checkpoints { configuration.checkpoints = checkpoints }
        let database = try SQLiteDatabase(path: file.path, configuration: configuration)
        try database.write { db in
            try db.create(table: BenchUser.self)
            if !prefill.isEmpty { try db.insert(prefill) }
        }
        return (file, database)
    }

    /// With `checkpoints`, the variant's name says so.
    static func insert(_ users: [BenchUser], checkpoints: CheckpointPolicy? = nil) -> Variant {
        Variant(name: "VariablySQLite batch insert" + named(checkpoints)) {
            let (file, database) = try open(checkpoints: checkpoints)
            try database.write { try $0.insert(users) }
            _ = file
            return users.count
        }
    }

    static func upsert(_ users: [BenchUser], existing: [BenchUser], checkpoints: CheckpointPolicy? = nil) -> Variant {
        Variant(name: "VariablySQLite batch upsert" + named(checkpoints)) {
            let (file, database) = try open(prefill: existing, checkpoints: checkpoints)
            try database.write { try $0.upsert(users) }
            _ = file
            return users.count
        }
    }

    static let onCommitSuffix = ", checkpoints on commit"

    private static func named(_ checkpoints: CheckpointPolicy?) -> String {
        checkpoints == nil ? "" : onCommitSuffix
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
