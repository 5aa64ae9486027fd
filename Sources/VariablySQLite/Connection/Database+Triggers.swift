internal import CSQLite
import Foundation

// MARK: - Writing without triggers

extension Database {
    /// Runs `body` with SQLite's triggers turned off on this connection, when the only triggers that a
    /// write to `table` can start are those whose names begin with `ownTriggerPrefix`; otherwise runs it
    /// with triggers on.
    ///
    /// A trigger costs every row it watches, even when its `WHEN` clause says no: SQLite runs the
    /// trigger's program in a new frame per row and gives the statement a statement journal
    /// (https://www.sqlite.org/lang_createtrigger.html). A caller that knows its own triggers have
    /// nothing to do for `body`'s writes (the capture triggers of a sync, while it writes the server's
    /// data) skips that cost, as long as no other trigger could fire: there is none other in the schema,
    /// or none other on `table` and no foreign key of another table refers to `table` (its actions could
    /// reach that table's triggers). Foreign key actions (a cascade) still run with triggers off.
    /// TEMP triggers keep firing: since SQLite 3.35.0 the option leaves them on, and before that
    /// version triggers are never turned off here.
    /// The answer is kept per connection until the schema changes (`PRAGMA schema_version`).
    ///
    /// Turning the option on or off expires the connection's prepared statements, which SQLite
    /// prepares again on their next use (https://www.sqlite.org/c3ref/c_dbconfig_defensive.html).
    ///
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    /// - Complexity: O(1) while the schema is unchanged; one read of the schema after a change.
    package func withoutOwnTriggers<T>(on table: String, ownTriggerPrefix: String, _ body: () throws -> T) throws -> T {
        // Before 3.35.0 the option also turned TEMP triggers off, which this check does not look for.
        guard sqlite3_libversion_number() >= 3_035_000,
            try onlyOwnTriggers(on: table, ownTriggerPrefix: ownTriggerPrefix)
        else { return try body() }
        guard variably_sqlite_enable_triggers(handle, 0) == 0 else { return try body() }
        defer { _ = variably_sqlite_enable_triggers(handle, 1) }
        return try body()
    }

    /// Whether every trigger a write to `table` can start is named with `ownTriggerPrefix`.
    private func onlyOwnTriggers(on table: String, ownTriggerPrefix: String) throws -> Bool {
        let version = try fetchValue(sql: "PRAGMA schema_version")
        let key = table + "\u{0}" + ownTriggerPrefix
        if let known = triggerChecks[key], known.schemaVersion == version { return known.isOnlyOwn }
        // With no trigger but the caller's own in the whole schema, nothing else can fire, whatever a
        // foreign key's action reaches (the actions themselves are not triggers: they run with the
        // option off).
        let foreign = try fetch(
            sql: #"""
                SELECT 1 FROM "sqlite_master" WHERE "type" = 'trigger' AND substr("name", 1, length(?1)) IS NOT ?1 LIMIT 1
                """#,
            arguments: [ownTriggerPrefix])
        if foreign.isEmpty {
            triggerChecks[key] = (version, true)
            return true
        }
        // https://www.sqlite.org/schematab.html, https://www.sqlite.org/pragma.html#pragfunc
        let others = try fetch(
            sql: #"""
                SELECT 1 FROM "sqlite_master" WHERE "type" = 'trigger' AND "tbl_name" = ?1 COLLATE NOCASE
                    AND substr("name", 1, length(?2)) IS NOT ?2
                UNION ALL
                SELECT 1 FROM "sqlite_master" AS "t", pragma_foreign_key_list("t"."name") AS "f"
                    WHERE "t"."type" = 'table' AND "f"."table" = ?1 COLLATE NOCASE
                LIMIT 1
                """#,
            arguments: [table, ownTriggerPrefix])
        triggerChecks[key] = (version, others.isEmpty)
        return others.isEmpty
    }
}
