import Foundation
import SQLiteFloor

/// Users laid out for the C floor (`Sources/SQLiteFloor`), before any timing starts: an array of C
/// structs whose text points into one UTF-8 buffer, the tags already written as JSON text.
final class FloorRows {
    let rows: UnsafeMutableBufferPointer<sqlite_floor_user>
    /// The bytes of every row's text: a fetch of the same rows needs an arena this large.
    let textByteCount: Int
    private let text: UnsafeMutableRawBufferPointer

    init(_ users: some Collection<BenchUser>) {
        let tags = users.map { RawDatabase.jsonArray($0.tags) }
        textByteCount = zip(users, tags).reduce(0) {
            $0 + $1.0.userName.utf8.count + $1.0.email.utf8.count + $1.1.utf8.count
        }
        text = .allocate(byteCount: max(1, textByteCount), alignment: 1)
        rows = .allocate(capacity: users.count)
        var offset = 0
        func copy(_ string: String) -> (UnsafePointer<CChar>, Int32) {
            let start = text.baseAddress! + offset
            let count = string.utf8.count
            UnsafeMutableRawBufferPointer(start: start, count: count).copyBytes(from: string.utf8)
            offset += count
            return (UnsafePointer(start.assumingMemoryBound(to: CChar.self)), Int32(count))
        }
        for (index, (user, tags)) in zip(users, tags).enumerated() {
            let (userName, userNameLength) = copy(user.userName)
            let (email, emailLength) = copy(user.email)
            let (tagText, tagLength) = copy(tags)
            rows.initializeElement(
                at: index,
                to: sqlite_floor_user(
                    id: user.id, user_name: userName, user_name_length: userNameLength, email: email,
                    email_length: emailLength, age: Int64(user.age), is_active: user.isActive ? 1 : 0,
                    score: user.score,
                    created_at: user.createdAt.timeIntervalSince1970, tags: tagText, tags_length: tagLength))
        }
    }

    deinit {
        rows.deallocate()
        text.deallocate()
    }
}

/// The C floor's variants: each is one call into C for the whole job (opening the file, creating
/// the table, writing, closing), so no Swift runs inside the timed loop.
enum CFloor {
    static let name = "C floor (checkpoints in the background, as VariablySQLite's default)"
    static let onCommitName = "C floor, checkpoints on commit"

    /// Writes `rows` into a new file (after `prefill`, when given), committing every `pageSize` rows
    /// (every row in one transaction when `nil`); returns the number of rows written.
    static func write(
        _ rows: FloorRows, prefill: FloorRows? = nil, pageSize: Int? = nil, upsert: Bool = false,
        checkpoints: sqlite_floor_checkpoints
    ) throws -> Int {
        let file = try TemporaryDatabase()
        var error = [CChar](repeating: 0, count: 512)
        let code = sqlite_floor_write(
            file.path, checkpoints, prefill.map { UnsafePointer($0.rows.baseAddress) } ?? nil,
            Int64(prefill?.rows.count ?? 0), rows.rows.baseAddress, Int64(rows.rows.count),
            Int64(pageSize ?? rows.rows.count), upsert ? 1 : 0, &error, Int32(error.count))
        guard code == 0 else {
            throw BenchmarkError(
                "C floor: " + String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
        }
        return rows.rows.count
    }

    /// The two write variants, in the background (the default) and on commit.
    static func writeVariants(
        _ rows: FloorRows, prefill: FloorRows? = nil, pageSize: Int? = nil, upsert: Bool = false
    ) -> [Variant] {
        [
            Variant(name: name) {
                try write(
                    rows, prefill: prefill, pageSize: pageSize, upsert: upsert,
                    checkpoints: sqlite_floor_checkpoints_in_background)
            },
            Variant(name: onCommitName) {
                try write(
                    rows, prefill: prefill, pageSize: pageSize, upsert: upsert,
                    checkpoints: sqlite_floor_checkpoints_on_commit)
            },
        ]
    }
}

/// A read connection of the C floor with its output buffers, allocated before any timing.
final class FloorReader {
    private let reader: OpaquePointer
    private let rows: UnsafeMutableBufferPointer<sqlite_floor_user>
    private let arena: UnsafeMutableRawBufferPointer
    private var error = [CChar](repeating: 0, count: 512)

    /// Opens `path`; `capacity` rows and `arenaBytes` of text fit in the buffers.
    init(path: String, capacity: Int, arenaBytes: Int) throws {
        var message = [CChar](repeating: 0, count: 512)
        guard let reader = sqlite_floor_reader_open(path, &message, Int32(message.count)) else {
            throw BenchmarkError(
                "C floor: " + String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
        }
        self.reader = reader
        rows = .allocate(capacity: max(100, capacity))
        arena = .allocate(byteCount: max(1 << 16, arenaBytes), alignment: 1)
    }

    deinit {
        sqlite_floor_reader_close(reader)
        rows.deallocate()
        arena.deallocate()
    }

    func fetchAll() throws -> Int {
        let count = sqlite_floor_fetch_all(
            reader, rows.baseAddress, Int64(rows.count), arena.baseAddress?.assumingMemoryBound(to: CChar.self),
            Int64(arena.count), &error, Int32(error.count))
        guard count >= 0 else { throw failure() }
        return Int(count)
    }

    /// Runs the `LIMIT 100` query `repetitions` times; returns the rows read in all.
    func query(repetitions: Int) throws -> Int {
        let count = sqlite_floor_query(
            reader, Int64(repetitions), rows.baseAddress, arena.baseAddress?.assumingMemoryBound(to: CChar.self),
            Int64(arena.count), &error, Int32(error.count))
        guard count >= 0 else { throw failure() }
        return Int(count)
    }

    private func failure() -> BenchmarkError {
        BenchmarkError("C floor: " + String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
    }
}
