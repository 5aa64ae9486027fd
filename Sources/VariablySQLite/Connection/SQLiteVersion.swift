internal import CSQLite

/// The version of the SQLite library linked at run time, e.g. `"3.40.1"`.
package var sqliteLibraryVersion: String {
    String(cString: sqlite3_libversion())
}
