import Foundation
import GRDBSQLite

/// The baseline: SQLite's C API used by hand, one reused prepared statement, columns by index.
final class RawDatabase {
    let handle: OpaquePointer

    init(path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let handle
        else {
            throw BenchmarkError("cannot open \(path)")
        }
        self.handle = handle
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchmarkError(String(cString: sqlite3_errmsg(handle)) + " in " + sql)
        }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
            let statement
        else { throw BenchmarkError(String(cString: sqlite3_errmsg(handle)) + " in " + sql) }
        return statement
    }

    static let createTable = """
        CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY NOT NULL, user_name TEXT NOT NULL, email TEXT NOT NULL, \
        age INTEGER NOT NULL, is_active INTEGER NOT NULL, score REAL NOT NULL, created_at REAL NOT NULL, tags TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS users_user_name ON users(user_name);
        """

    static let insertSQL =
        "INSERT INTO users (id, user_name, email, age, is_active, score, created_at, tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    static let upsertSQL =
        insertSQL + """
             ON CONFLICT(id) DO UPDATE SET user_name = excluded.user_name, email = excluded.email, age = excluded.age, \
            is_active = excluded.is_active, score = excluded.score, created_at = excluded.created_at, tags = excluded.tags
            """

    /// Writes `users` with one reused statement in one transaction.
    func write(_ users: [BenchUser], sql: String) throws -> Int {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        try execute("BEGIN IMMEDIATE")
        for user in users {
            try step(statement, binding: user)
        }
        try execute("COMMIT")
        return users.count
    }

    /// Binds `user`'s eight columns to `statement`, steps it and resets it.
    private func step(_ statement: OpaquePointer, binding user: BenchUser) throws {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_int64(statement, 1, user.id)
        sqlite3_bind_text(statement, 2, user.userName, -1, transient)
        sqlite3_bind_text(statement, 3, user.email, -1, transient)
        sqlite3_bind_int64(statement, 4, Int64(user.age))
        sqlite3_bind_int64(statement, 5, user.isActive ? 1 : 0)
        sqlite3_bind_double(statement, 6, user.score)
        sqlite3_bind_double(statement, 7, user.createdAt.timeIntervalSince1970)
        sqlite3_bind_text(statement, 8, RawDatabase.jsonArray(user.tags), -1, transient)
        guard sqlite3_step(statement) == SQLITE_DONE else {
            throw BenchmarkError(String(cString: sqlite3_errmsg(handle)))
        }
        sqlite3_reset(statement)
    }

    /// Inserts `pages` with one statement prepared once and reused, one transaction per page.
    func insert(pages: [[BenchUser]]) throws -> Int {
        let statement = try prepare(Self.insertSQL)
        defer { sqlite3_finalize(statement) }
        var count = 0
        for users in pages {
            try execute("BEGIN IMMEDIATE")
            for user in users {
                try step(statement, binding: user)
            }
            try execute("COMMIT")
            count += users.count
        }
        return count
    }

    /// Reads rows of `sql` by column index.
    func fetch(_ sql: String) throws -> [BenchUser] {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        var users: [BenchUser] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            users.append(
                BenchUser(
                    id: sqlite3_column_int64(statement, 0),
                    userName: String(cString: sqlite3_column_text(statement, 1)),
                    email: String(cString: sqlite3_column_text(statement, 2)),
                    age: Int(sqlite3_column_int64(statement, 3)),
                    isActive: sqlite3_column_int64(statement, 4) != 0,
                    score: sqlite3_column_double(statement, 5),
                    createdAt: Date(timeIntervalSince1970: sqlite3_column_double(statement, 6)),
                    tags: RawDatabase.parseArray(String(cString: sqlite3_column_text(statement, 7)))))
        }
        return users
    }

    /// A JSON array of plain strings, the way a careful hand-written layer would write it.
    static func jsonArray(_ strings: [String]) -> String {
        var text = "["
        for (index, string) in strings.enumerated() {
            if index > 0 { text += "," }
            text += "\""
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case _ where scalar.value < 0x20: text += String(format: "\\u%04x", scalar.value)
                default: text.unicodeScalars.append(scalar)
                }
            }
            text += "\""
        }
        return text + "]"
    }

    /// Parses what `jsonArray` writes (no escapes in the benchmark data), byte by byte.
    static func parseArray(_ text: String) -> [String] {
        var result: [String] = []
        var utf8 = text.utf8[...]
        guard utf8.first == UInt8(ascii: "[") else { return [] }
        utf8 = utf8.dropFirst()
        while let open = utf8.firstIndex(of: UInt8(ascii: "\"")) {
            let rest = utf8[utf8.index(after: open)...]
            guard let close = rest.firstIndex(of: UInt8(ascii: "\"")) else { break }
            result.append(String(decoding: rest[..<close], as: UTF8.self))
            utf8 = rest[rest.index(after: close)...]
        }
        return result
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A database file in its own temporary folder, removed with its WAL files when released.
final class TemporaryDatabase {
    let directory: URL
    let path: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("variably-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("bench.sqlite").path
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}
