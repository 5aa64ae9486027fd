// A release client for Benchmarks/scripts/drf-first-sync.py: against the tests' Django REST Framework
// server, a first sync into an empty file, then a sync that pushes edits of `--edits` users; prints one
// JSON line with each phase's start and end (seconds since 1970, the clock the server's log uses).
//
//   DRFClient --base http://127.0.0.1:PORT/api/ --token TOKEN --users 100000 [--edits 100] [--page-size 1000]
import Foundation
import VariablySQLite
import VariablySync

let options = Dictionary(
    uniqueKeysWithValues: stride(from: 1, to: CommandLine.arguments.count - 1, by: 2).map {
        (CommandLine.arguments[$0], CommandLine.arguments[$0 + 1])
    })
guard let base = options["--base"].flatMap(URL.init(string:)), let token = options["--token"],
    let users = options["--users"].flatMap(Int.init)
else {
    FileHandle.standardError.write(
        Data("usage: DRFClient --base URL --token TOKEN --users N [--edits 100] [--page-size 1000]\n".utf8))
    exit(2)
}
let edits = options["--edits"].flatMap(Int.init) ?? 100
let pageSize = options["--page-size"].flatMap(Int.init) ?? 1_000

// The declaration of the tests' cursor endpoint (DRFServer.api(.cursor)): CursorPagination's next
// links, tombstones, changes since `updated_at` (so the order is checked), PATCH of the changed fields.
let api = HTTPAPI(
    pull: HTTPPullShape(
        path: "cursor/users/", records: "results", paging: .nextURL(at: "next"),
        deletions: .tombstones(flag: "deleted"),
        changedSince: .updatedSince(parameter: "updated_since", field: "updated_at", lookBack: .seconds(2)),
        limitParameter: "limit"),
    push: .perRecord(
        HTTPRecordEndpoints(
            path: "cursor/users", trailingSlash: true, update: .patch, body: .changedFields,
            readOnlyFields: ["id", "updated_at"], versionField: "updated_at")))

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("drf-client-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let database = try SQLiteDatabase(path: folder.appendingPathComponent("users.sqlite").path)
let remote = HTTPRemoteSource<DRFUser>(
    baseURL: base, api: api, headers: ["Authorization": "Token \(token)"], timeout: 120)
let repository = try Repository<DRFUser>(
    database: database, remote: remote, configuration: SyncConfiguration(pageSize: pageSize))

let pullStart = Date().timeIntervalSince1970
let first = try await repository.sync()
let pullEnd = Date().timeIntervalSince1970
guard first.inserted == users else {
    FileHandle.standardError.write(Data("the first sync inserted \(first.inserted) of \(users) users\n".utf8))
    exit(1)
}

// Untimed: the edits are saved (queued) before the sync that pushes them.
var edited = try database.read { try $0.fetchAll(DRFUser.self) }.sorted { $0.id < $1.id }.prefix(edits).map { $0 }
for index in edited.indices { edited[index].nickname = "edited \(Int(pullEnd)) \(edited[index].id)" }
try await repository.save(edited)
let pushStart = Date().timeIntervalSince1970
let push = try await repository.sync()
let pushEnd = Date().timeIntervalSince1970
guard push.pushed == edited.count, push.failed.isEmpty, push.conflicts.isEmpty else {
    FileHandle.standardError.write(Data("the push sync: \(push)\n".utf8))
    exit(1)
}

print(
    #"{"pull": {"start": \#(pullStart), "end": \#(pullEnd), "records": \#(first.pulled)}, "#
        + #""push": {"start": \#(pushStart), "end": \#(pushEnd), "pushed": \#(push.pushed), "pulled": \#(push.pulled)}}"#
)
