import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Records the server numbers

extension SyncTable where Model.ID: FixedWidthInteger & SignedInteger {
    /// A provisional id for a record the server will number: negative, below every id in the cache and
    /// in the queue.
    func provisionalID(_ db: Database) throws -> Model.ID {
        let lowest = try db.fetchValue(
            sql: """
                SELECT min("id") FROM (SELECT min(\(primaryKey.quotedColumn)) AS "id" FROM \(primaryKey.quotedTable)
                UNION ALL SELECT min(CAST("record_id" AS INTEGER)) FROM "variably_pending_changes"
                WHERE "table_name" = ?)
                """,
            arguments: [primaryKey.table])
        var provisional: Int64 = -1
        if case .integer(let value)? = lowest, value <= 0 { provisional = value == .min ? value : value - 1 }
        guard let id = Model.ID(exactly: provisional) else {
            throw SyncError.invalidResponse("no provisional id is left below \(provisional) for \(Model.self)")
        }
        return id
    }
}

// MARK: - Records the device names

extension SyncTable where Model.ID == String {
    /// The form of the ids this device makes, as the source declares it.
    ///
    /// - Throws: `DeclarationError` when the form cannot make an id.
    func newRecordIDs() throws(DeclarationError) -> NewRecordIDs {
        let form = remote.newRecordIDs
        if let problem = form.problem {
            throw DeclarationError(
                .invalidSetting("\(type(of: remote)).newRecordIDs", requirement: "a form that can make ids"),
                model: Model.self, fix: "declare new ids with \(problem)")
        }
        return form
    }

    /// A new id in `form`, unused in the cache and the queue.
    func newID(in form: NewRecordIDs, _ db: Database) throws -> String {
        var generator = SystemRandomNumberGenerator()
        var id = form.make(using: &generator)
        // A repeat is next to impossible with the default forms, but not with a short declared one.
        while try db.fetch(Model.self, id: id) != nil
            || db.fetchValue(
                sql: #"SELECT 1 FROM "variably_pending_changes" WHERE "table_name" = ? AND "record_id" = ?"#,
                arguments: [primaryKey.table, StoredRecordID(rawValue: StoredRecordID.quoted(id))]) != nil
        {
            id = form.make(using: &generator)
        }
        return id
    }
}

// MARK: - Records created here, adopted from the server's answer

extension SyncTable {
    /// Writes the record a `create(_:)` closure built for `id` (and queues it, through the capture).
    /// A record with another id is misuse inside the call, and traps.
    static func insertCreated(_ model: Model, id: Model.ID, _ db: Database) throws -> Model {
        precondition(
            model.id == id,
            "Repository.create(_:) gave \(id) as the new \(Model.self)'s id, and the closure returned a record "
                + "with id \(model.id): build the record with the id it is given.")
        try db.upsert([model])
        return model
    }

    /// Takes the server's copy of a record this device created, in the push's transaction: its id (when
    /// the server assigned another one) replaces the provisional one in the row and in the queue, and
    /// its pulled columns are written unless the record was edited again meanwhile.
    ///
    /// - Parameter recordID: The provisional id, as the queue keeps it.
    /// - Returns: The record's id as the queue keeps it now.
    @discardableResult
    static func adopt(
        _ server: Model, createdAs recordID: StoredRecordID, state: SyncStateStore, primaryKey: PrimaryKey<Model>,
        pulledEntries: [Int], _ db: Database
    ) throws -> StoredRecordID {
        guard let oldKey = recordID.key else { return recordID }
        let newKey = try primaryKey.sqlValue(of: server.id)
        return try state.withCapturePaused(db) {
            var newRecordID = recordID
            if newKey != oldKey {
                guard let serverID = StoredRecordID(key: newKey) else { return recordID }
                newRecordID = serverID
                // A pull (or a parent's look-up) may have stored the server's row before this answer: the
                // server's id names one record, so that row gives way. Its children move to the provisional
                // row first: deleted with them, its `ON DELETE` rules would empty or delete them, inside
                // this pause, with nothing queued to mend them. The id's update then takes every child
                // along (`ON UPDATE CASCADE`).
                var carried: (columns: [String], values: [SQLValue]) = ([], [])
                if try db.fetchValue(
                    sql: "SELECT 1 FROM \(primaryKey.quotedTable) WHERE \(primaryKey.quotedColumn) = ?",
                    arguments: [newKey]) != nil
                {
                    carried = try Self.editedColumns(
                        ofCopy: newKey, copyID: newRecordID, createdAs: recordID, state: state, primaryKey: primaryKey,
                        db)
                    for (child, column) in try Self.references(to: primaryKey.table, db) {
                        try db.execute(
                            sql:
                                "UPDATE \(SQL.quote(child)) SET \(SQL.quote(column)) = ? WHERE \(SQL.quote(column)) = ?",
                            arguments: [oldKey, newKey])
                    }
                    try db.execute(
                        sql: "DELETE FROM \(primaryKey.quotedTable) WHERE \(primaryKey.quotedColumn) = ?",
                        arguments: [newKey])
                }
                try db.execute(
                    sql:
                        "UPDATE \(primaryKey.quotedTable) SET \(primaryKey.quotedColumn) = ? WHERE \(primaryKey.quotedColumn) = ?",
                    arguments: [newKey, oldKey])
                if !carried.columns.isEmpty {
                    let assignments = carried.columns.map { "\(SQL.quote($0)) = ?" }.joined(separator: ", ")
                    try db.execute(
                        sql: "UPDATE \(primaryKey.quotedTable) SET \(assignments) WHERE \(primaryKey.quotedColumn) = ?",
                        arguments: StatementArguments((carried.values + [newKey]).map { $0 as any SQLValueConvertible })
                    )
                }
                try state.rewriteRecordID(from: recordID, to: newRecordID, db)
                // The carried edit was made on the copy, whose only later write is this create: it is
                // based on the create's accepted version now, or it would conflict with it.
                if !carried.columns.isEmpty { try state.rebaseOnAcknowledged(newRecordID, db) }
            }
            // Edited again while the create was on its way: the newer local values stay, queued.
            guard try state.change(of: newRecordID, db) == nil else { return newRecordID }
            try db.upsert([server], primaryKeys: [newKey], updatingEntries: pulledEntries)
            return newRecordID
        }
    }

    /// The columns an edit here changed in the cached server copy `key` of a record created here, with
    /// their values: the copy gives way to the created row, and the edit must not go with it. None when
    /// the created row has a change queued after the copy's (a record keeps the queue position of its
    /// first change, so an edit of the created row after the copy's edit still counts as older).
    ///
    /// - Parameters:
    ///   - copyID: The copy's id as the queue keeps it.
    ///   - recordID: The created row's provisional id, as the queue keeps it.
    static func editedColumns(
        ofCopy key: SQLValue, copyID: StoredRecordID, createdAs recordID: StoredRecordID, state: SyncStateStore,
        primaryKey: PrimaryKey<Model>, _ db: Database
    ) throws -> (columns: [String], values: [SQLValue]) {
        guard let edit = try state.change(of: copyID, db), edit.operation == .upsert else { return ([], []) }
        if let own = try state.change(of: recordID, db), own.sequence > edit.sequence { return ([], []) }
        let columns: [String]
        if let changed = edit.changedColumns {
            columns = changed
        } else {
            columns = try db.fetch(
                sql: "SELECT name FROM pragma_table_info(?) WHERE pk = 0", arguments: [primaryKey.table]
            )
            .compactMap { $0.text("name") }
        }
        guard !columns.isEmpty,
            let row = try db.fetch(
                sql: "SELECT \(columns.map(SQL.quote).joined(separator: ", ")) FROM \(primaryKey.quotedTable) "
                    + "WHERE \(primaryKey.quotedColumn) = ?",
                arguments: [key]
            ).first
        else { return ([], []) }
        return (columns, row.values)
    }

    /// The tables and columns whose foreign keys reference `table`, its own included
    /// (https://www.sqlite.org/pragma.html#pragma_foreign_key_list).
    static func references(to table: String, _ db: Database) throws -> [(table: String, column: String)] {
        var found: [(table: String, column: String)] = []
        let tables = try db.fetch(
            sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
        .compactMap { $0.text("name") }
        for child in tables {
            for row in try db.fetch(
                sql: "SELECT \"table\", \"from\" FROM pragma_foreign_key_list(?)", arguments: [child])
            {
                guard let parent = row.text("table"), let column = row.text("from"),
                    parent.lowercased() == table.lowercased()
                else { continue }
                found.append((child, column))
            }
        }
        return found
    }

    /// `json` (an object) with the members `keys` set to `null`, byte for byte elsewhere.
    static func nulling(_ keys: Set<String>, in json: Data) throws -> Data {
        guard !keys.isEmpty, let body = try? JSONBody(json), let members = try body.members(of: body.root) else {
            return json
        }
        var out: [UInt8] = [UInt8(ascii: "{")]
        for member in members {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            out += body.bytes[member.key]
            out.append(UInt8(ascii: ":"))
            if case .string(let key) = try body.value(member.key), keys.contains(key) {
                out += Array("null".utf8)
            } else {
                out += body.bytes[member.value]
            }
        }
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }
}
