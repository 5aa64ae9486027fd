internal import CSQLite
package import Foundation

/// A prepared SQLite statement: bind parameters, step through rows, read columns by index.
///
/// A statement belongs to the ``Database`` that prepared it and to the thread using that database:
/// it is not `Sendable`. The package's own: `Database.makeStatement(sql:)` prepares one,
/// `cachedStatement(sql:)` reuses it; users run SQL through `execute`, `fetch` and `forEach(sql:)`.
///
/// ```swift
/// let statement = try db.cachedStatement(sql: "SELECT name FROM users WHERE age > ?")
/// try statement.bind([30])
/// while try statement.step() {
///     print(statement.string(at: 0))
/// }
/// ```
package final class Statement {
    /// The SQL the statement was prepared from.
    package let sql: String
    let handle: OpaquePointer
    unowned let database: Database
    /// The number of parameters (`?`, `:name`, ...), https://www.sqlite.org/c3ref/bind_parameter_count.html.
    package let parameterCount: Int32
    /// The number of result columns.
    package let columnCount: Int32
    private var needsReset = false
    /// The bytes of the text that the record paths bind `SQLITE_STATIC` for the current row
    /// (``bindRecordText(_:at:)``): SQLite reads bound text only while it steps, so one buffer reused
    /// row after row replaces the allocation, copy and free per text that `SQLITE_TRANSIENT` costs.
    private var arena: UnsafeMutableRawPointer?
    private var arenaCapacity = 0
    private var arenaUsed = 0
    /// Buffers the current row outgrew: the row's earlier binds still point into them.
    private var retiredArenas: [UnsafeMutableRawPointer] = []

    init(database: Database, sql: String) throws {
        var handle: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        // https://www.sqlite.org/c3ref/prepare.html: PERSISTENT hints that the statement is reused.
        let code = sql.withCString { text in
            sqlite3_prepare_v3(database.handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, &tail)
        }
        guard code == SQLITE_OK, let handle else {
            throw database.error(code: code, sql: sql)
        }
        if let tail, tail.pointee != 0, !String(cString: tail).allSatisfy(\.isWhitespace) {
            sqlite3_finalize(handle)
            throw SQLiteError(
                code: .misuse, message: "Only one statement can be prepared at a time; use execute(sql:) for several.",
                sql: sql)
        }
        self.sql = sql
        self.handle = handle
        self.database = database
        self.parameterCount = sqlite3_bind_parameter_count(handle)
        self.columnCount = sqlite3_column_count(handle)
    }

    deinit {
        // Finalized first: until then the statement may point into the arena.
        sqlite3_finalize(handle)
        arena?.deallocate()
        for buffer in retiredArenas { buffer.deallocate() }
    }

    /// The names of the result columns, in order.
    package var columnNames: [String] {
        (0..<columnCount).map { String(cString: sqlite3_column_name(handle, $0)) }
    }

    /// Whether the statement only reads (https://www.sqlite.org/c3ref/stmt_readonly.html).
    package var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    // MARK: - Binding

    /// Resets the statement so that it runs again from the start, keeping its bindings.
    package func reset() {
        // The error of a failed step is reported by step itself; reset repeats it, so it is ignored here.
        sqlite3_reset(handle)
        needsReset = false
    }

    /// Resets the statement and binds `arguments`: positional ones to `?1...`, named ones by name.
    ///
    /// - Throws: ``SQLiteError`` with code `SQLITE_RANGE` when the count or a name does not match.
    package func bind(_ arguments: StatementArguments) throws {
        reset()
        sqlite3_clear_bindings(handle)
        if arguments.named.isEmpty, arguments.positional.count != Int(parameterCount) {
            throw SQLiteError(
                code: .range,
                message: "The statement has \(parameterCount) parameters, \(arguments.positional.count) were given.",
                sql: sql, arguments: arguments)
        }
        for (offset, value) in arguments.positional.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
        for (name, value) in arguments.named {
            try bind(value, named: name)
        }
    }

    /// Binds `value` to parameter `index` (1-based, https://www.sqlite.org/c3ref/bind_blob.html).
    ///
    /// - Throws: ``SQLiteError`` when the index is out of range.
    package func bind(_ value: SQLValue, at index: Int32) throws {
        if needsReset { reset() }
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let value): code = sqlite3_bind_int64(handle, index, value)
        case .real(let value): code = sqlite3_bind_double(handle, index, value)
        case .text(let value): code = bindText(value, at: index)
        case .blob(let data): code = bindBlob(data, at: index)
        }
        guard code == SQLITE_OK else { throw database.error(code: code, sql: sql) }
    }

    /// Binds `value` to the parameter `:name`, `@name` or `$name`.
    ///
    /// - Throws: ``SQLiteError`` with code `SQLITE_RANGE` when the statement has no such parameter.
    package func bind(_ value: SQLValue, named name: String) throws {
        let candidates = name.first.map { ":@$".contains($0) } == true ? [name] : [":" + name, "@" + name, "$" + name]
        for candidate in candidates {
            let index = sqlite3_bind_parameter_index(handle, candidate)
            if index > 0 { return try bind(value, at: index) }
        }
        throw SQLiteError(code: .range, message: "No parameter named \(name).", sql: sql)
    }

    // MARK: - Binding a record's text

    /// Resets the statement for the next row of a record write: the arena's bytes, which only the
    /// previous row's bindings pointed to, are free again.
    @inline(__always)
    func beginRecordRow() {
        reset()
        arenaUsed = 0
        if !retiredArenas.isEmpty {
            // Bindings into an outgrown buffer must not outlive it, even if a row's binds fail halfway.
            sqlite3_clear_bindings(handle)
            for buffer in retiredArenas { buffer.deallocate() }
            retiredArenas.removeAll()
        }
    }

    /// Room for `count` bytes of the current row's text, valid until the next ``beginRecordRow()``
    /// or the statement's end.
    @inline(__always)
    private func reserveText(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        if arenaUsed &+ count > arenaCapacity || arena == nil { growArena(toHold: count) }
        let start = arena.unsafelyUnwrapped.advanced(by: arenaUsed).assumingMemoryBound(to: UInt8.self)
        arenaUsed &+= count
        return start
    }

    private func growArena(toHold count: Int) {
        // Bindings (this row's, or the previous row's not bound again yet) point into the old buffer:
        // it lives until the next row starts, which clears them.
        if let arena { retiredArenas.append(arena) }
        arenaCapacity = Swift.max(arenaCapacity * 2, count, 256)
        arena = UnsafeMutableRawPointer.allocate(byteCount: arenaCapacity, alignment: 1)
        arenaUsed = 0
    }

    /// Binds `bytes`, which ``reserveText(_:)`` gave, without SQLite copying them.
    @inline(__always)
    private func bindArenaText(_ bytes: UnsafeMutablePointer<UInt8>, count: Int, at index: Int32) -> Int32 {
        // SQLITE_STATIC (https://www.sqlite.org/c3ref/bind_blob.html): the bytes stay until this
        // parameter is bound again, which comes after `sqlite3_reset`, or the statement is finalized.
        sqlite3_bind_text(
            handle, index, UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self), Int32(count),
            variably_sqlite_static())
    }

    /// Binds a record's `text` in NFC (see ``TextNormalization``), copied once into the row's arena;
    /// the copy also checks whether the text is in NFC already.
    ///
    /// Binding `SQLITE_STATIC` from the `String` itself is not safe: a small string's bytes only live
    /// inside `withUTF8`.
    @inline(__always)
    func bindRecordText(_ text: String, at index: Int32) -> Int32 {
        var text = text
        let bound: Int32? = text.withUTF8 { utf8 in
            let bytes = reserveText(utf8.count)
            guard TextNormalization.copyIfLatin(utf8, to: bytes) else {
                arenaUsed &-= utf8.count
                return nil
            }
            return bindArenaText(bytes, count: utf8.count, at: index)
        }
        if let bound { return bound }
        var normalized = text.precomposedStringWithCanonicalMapping
        return normalized.withUTF8 { utf8 in
            let bytes = reserveText(utf8.count)
            if let source = utf8.baseAddress { bytes.update(from: source, count: utf8.count) }
            return bindArenaText(bytes, count: utf8.count, at: index)
        }
    }

    /// Binds `strings` as their JSON array text (``ScalarArrayJSON``), in NFC, written straight into
    /// the row's arena.
    func bindRecordJSON(_ strings: [String], at index: Int32) -> Int32 {
        var length = ScalarArrayJSON.unescapedLength(strings)
        var bytes = reserveText(length)
        let written: (count: Int, isASCII: Bool)
        if let plain = ScalarArrayJSON.writeUnescaped(strings, to: bytes) {
            written = plain
        } else {
            arenaUsed &-= length
            length = ScalarArrayJSON.encodedLength(strings)
            bytes = reserveText(length)
            written = ScalarArrayJSON.write(strings, to: bytes)
        }
        // Unused room goes back to the arena.
        arenaUsed &-= length &- written.count
        if written.isASCII
            || TextNormalization.isLatin(UnsafeBufferPointer(start: bytes, count: written.count), allowingCRLF: true)
        {
            return bindArenaText(bytes, count: written.count, at: index)
        }
        arenaUsed &-= written.count
        return bindRecordText(
            String(decoding: UnsafeBufferPointer(start: bytes, count: written.count), as: UTF8.self), at: index)
    }

    @inline(__always)
    func bindText(_ value: String, at index: Int32) -> Int32 {
        var value = value
        return value.withUTF8 { buffer in
            // SQLITE_TRANSIENT: SQLite copies the bytes, which only live for this closure.
            guard let base = buffer.baseAddress else {
                // An empty string is text, not NULL: bind a static empty C string.
                return sqlite3_bind_text(handle, index, "", 0, variably_sqlite_transient())
            }
            return sqlite3_bind_text(
                handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(buffer.count),
                variably_sqlite_transient())
        }
    }

    @inline(__always)
    func bindBlob(_ data: Data, at index: Int32) -> Int32 {
        data.withUnsafeBytes { buffer in
            // A zero-length blob is not NULL: bind_zeroblob keeps it a blob.
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return sqlite3_bind_zeroblob(handle, index, 0)
            }
            return sqlite3_bind_blob(handle, index, base, Int32(buffer.count), variably_sqlite_transient())
        }
    }

    // MARK: - Stepping

    /// Advances to the next row: `true` when a row is available, `false` when the statement is done.
    ///
    /// - Throws: ``SQLiteError`` with SQLite's code and message.
    @discardableResult
    package func step() throws -> Bool {
        // https://www.sqlite.org/c3ref/step.html
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            needsReset = true
            return false
        default:
            let error = database.error(code: code, sql: sql, arguments: nil)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs the statement to completion with `arguments`, ignoring any rows.
    ///
    /// - Throws: ``SQLiteError``.
    package func execute(_ arguments: StatementArguments = []) throws {
        try bind(arguments)
        do {
            while try step() {}
        } catch let error as SQLiteError {
            throw SQLiteError(code: error.code, message: error.message, sql: sql, arguments: arguments)
        }
    }

    // MARK: - Columns

    /// Whether column `index` of the current row is NULL.
    package func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` as an integer (https://www.sqlite.org/c3ref/column_blob.html converts other types).
    @inline(__always)
    package func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` as a double.
    @inline(__always)
    package func double(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// Column `index` as text.
    @inline(__always)
    package func string(at index: Int32) -> String {
        // text before bytes: https://www.sqlite.org/c3ref/column_blob.html ("the safest policy").
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Column `index` as bytes.
    package func data(at index: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// Column `index` as a ``SQLValue`` of its storage class.
    package func value(at index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(int64(at: index))
        case SQLITE_FLOAT: .real(double(at: index))
        case SQLITE_TEXT: .text(string(at: index))
        case SQLITE_BLOB: .blob(data(at: index))
        default: .null
        }
    }
}

// A statement's handle must only be used by the connection's current user: see Database.
@available(*, unavailable)
extension Statement: Sendable {}
