import Foundation
import GRDB

/// SQLite groups. The baseline is the C floor (`Sources/SQLiteFloor`): plain C on rows prepared
/// before the timing, one call for the whole job, with VariablySQLite's settings (WAL,
/// `synchronous = NORMAL`, the same checkpoints). Swift calling the C API by hand, one reused
/// statement, is the second reference.
func sqliteGroups(users: [BenchUser]) throws -> [Group] {
    let floorUsers = FloorRows(users)
    return try sqliteWriteGroups(users: users, floorUsers: floorUsers)
        + sqliteReadGroups(users: users, floorUsers: floorUsers)
}

/// A new file with the users' table, driven by `body` through the C API.
private func raw(_ body: (RawDatabase) throws -> Int) throws -> Int {
    let file = try TemporaryDatabase()
    let database = try RawDatabase(path: file.path)
    try database.execute(RawDatabase.createTable)
    return try body(database)
}

/// A new file with the users' table and `prefill` in it, driven by `body` through GRDB.
private func grdb(prefill: [BenchUser] = [], _ body: (DatabaseQueue) throws -> Int) throws -> Int {
    let file = try TemporaryDatabase()
    do {
        let seed = try RawDatabase(path: file.path)
        try seed.execute(RawDatabase.createTable)
        if !prefill.isEmpty { _ = try seed.write(prefill, sql: RawDatabase.insertSQL) }
    }
    return try body(try DatabaseQueue(path: file.path))
}

/// "SQLite insert" and "SQLite upsert, half existing".
private func sqliteWriteGroups(users: [BenchUser], floorUsers: FloorRows) throws -> [Group] {
    let half = users.count / 2
    // Upserts write every user into a table that already holds the first half (changed).
    let existing = users[..<half].map { user -> BenchUser in
        var changed = user
        changed.score += 1
        return changed
    }
    let floorExisting = FloorRows(existing)
    let swiftCallingC = "Swift calling the C API, one reused statement (checkpoints on commit)"
    let batchInsert = "VariablySQLite batch insert"
    let batchUpsert = "VariablySQLite batch upsert"
    let onCommit = VariablySQLiteVariants.onCommitSuffix

    var groups: [Group] = []
    groups.append(
        Group(
            name: "SQLite insert",
            variants: CFloor.writeVariants(floorUsers) + [
                Variant(name: swiftCallingC) { try raw { try $0.write(users, sql: RawDatabase.insertSQL) } },
                VariablySQLiteVariants.insert(users),
                VariablySQLiteVariants.insert(users, checkpoints: .onCommit(afterPages: 1_000)),
                Variant(name: "GRDB Codable record") {
                    try grdb { queue in
                        try queue.write { db in for user in users { try GRDBCodableUser(user).insert(db) } };
                        return users.count
                    }
                },
                Variant(name: "GRDB hand-written record") {
                    try grdb { queue in
                        try queue.write { db in for user in users { try GRDBManualUser(user).insert(db) } };
                        return users.count
                    }
                },
            ], targets: [batchInsert: 0.9],
            comparisons: [(batchInsert + onCommit, CFloor.onCommitName, 0.9), (batchInsert, swiftCallingC, nil)]))
    groups.append(
        Group(
            name: "SQLite upsert, half existing",
            variants: CFloor.writeVariants(floorUsers, prefill: floorExisting, upsert: true) + [
                Variant(name: swiftCallingC) {
                    try raw { database in
                        _ = try database.write(existing, sql: RawDatabase.insertSQL)
                        return try database.write(users, sql: RawDatabase.upsertSQL)
                    }
                },
                VariablySQLiteVariants.upsert(users, existing: existing),
                VariablySQLiteVariants.upsert(users, existing: existing, checkpoints: .onCommit(afterPages: 1_000)),
                Variant(name: "GRDB Codable record") {
                    try grdb(prefill: existing) { queue in
                        try queue.write { db in for user in users { try GRDBCodableUser(user).upsert(db) } };
                        return users.count
                    }
                },
            ], targets: [batchUpsert: 0.9],
            comparisons: [(batchUpsert + onCommit, CFloor.onCommitName, 0.9), (batchUpsert, swiftCallingC, nil)]))
    return groups
}

/// "SQLite fetch all" and "SQLite query LIMIT 100 (queries)".
private func sqliteReadGroups(users: [BenchUser], floorUsers: FloorRows) throws -> [Group] {
    let queryCount = max(users.count / 100, 10)
    let querySQL =
        "SELECT id, user_name, email, age, is_active, score, created_at, tags FROM users WHERE age > 30 AND is_active ORDER BY user_name LIMIT 100"
    var groups: [Group] = []
    // Read groups share one filled file; the closures keep it alive until they are released.
    let file = try TemporaryDatabase()
    let database = try RawDatabase(path: file.path)
    try database.execute(RawDatabase.createTable)
    _ = try database.write(users, sql: RawDatabase.insertSQL)
    let queue = try DatabaseQueue(path: file.path)
    let variablyFetchAll = try VariablySQLiteVariants.fetchAll(path: file.path)
    let variablyQuery = try VariablySQLiteVariants.query(path: file.path, count: queryCount)
    let floorReader = try FloorReader(path: file.path, capacity: users.count, arenaBytes: floorUsers.textByteCount)
    let swiftCallingCRead = "Swift calling the C API, columns by index"
    do {
        groups.append(
            Group(
                name: "SQLite fetch all",
                variants: [
                    Variant(name: "C floor, columns by index into C structs, text copied into an arena") {
                        try floorReader.fetchAll()
                    },
                    Variant(name: swiftCallingCRead) {
                        _ = file
                        return try database.fetch(
                            "SELECT id, user_name, email, age, is_active, score, created_at, tags FROM users"
                        ).count
                    },
                    variablyFetchAll,
                    Variant(name: "GRDB Codable record") { try queue.read { try GRDBCodableUser.fetchAll($0).count } },
                    Variant(name: "GRDB hand-written record") {
                        try queue.read {
                            try GRDBManualUser.fetchAll(
                                $0,
                                sql: "SELECT id, user_name, email, age, is_active, score, created_at, tags FROM users"
                            ).count
                        }
                    },
                ], targets: ["VariablySQLite fetchAll": 0.85],
                comparisons: [("VariablySQLite fetchAll", swiftCallingCRead, nil)]))
        groups.append(
            Group(
                name: "SQLite query LIMIT 100 (queries)",
                variants: [
                    Variant(name: "C floor, hand-written SQL, rows into C structs") {
                        _ = try floorReader.query(repetitions: queryCount)
                        return queryCount
                    },
                    Variant(name: "Swift calling the C API, hand-written SQL") {
                        for _ in 0..<queryCount { _ = try database.fetch(querySQL) }
                        return queryCount
                    },
                    variablyQuery,
                    Variant(name: "GRDB query interface, Codable") {
                        try queue.read { db in
                            for _ in 0..<queryCount {
                                _ = try GRDBCodableUser.filter(Column("age") > 30 && Column("is_active")).order(
                                    Column("user_name")
                                ).limit(100).fetchAll(db)
                            }
                        }
                        return queryCount
                    },
                ], targets: [:],
                comparisons: [("VariablySQLite #Predicate", "Swift calling the C API, hand-written SQL", 0.9)]))
    }
    _ = file
    return groups
}
