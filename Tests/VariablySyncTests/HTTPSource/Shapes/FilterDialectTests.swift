import Foundation
import Testing
import VariablyCodable
import UserSyncModels
import VariablySQLite
import VariablySync

/// docs/http.md's changed-since templates for PostgREST (and Supabase) and OData, declared as the
/// document has them, against a local server that parses each dialect and compares `updated_at` as
/// text: a first sync, then incremental syncs that ask from the server's own bytes and bring exactly
/// the edits, with and without a look-back.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct FilterDialectTests {
    enum Dialect: String, CaseIterable, CustomTestStringConvertible {
        case postgREST, oData

        var testDescription: String { rawValue }

        func api(lookBack: Duration) -> HTTPAPI {
            switch self {
            case .postgREST:
                HTTPAPI(
                    pull: HTTPPullShape(
                        path: "rest/users", paging: .offset(parameter: "offset"),
                        changedSince: .filter(
                            parameter: "updated_at", expression: "gte.{value}", field: "updated_at",
                            lookBack: lookBack),
                        limitParameter: "limit", query: ["order": "updated_at.asc,id.asc"]),
                    push: .none)
            case .oData:
                HTTPAPI(
                    pull: HTTPPullShape(
                        path: "odata/users", records: "value", paging: .offset(parameter: "$skip"),
                        changedSince: .filter(
                            parameter: "$filter", expression: "updated_at ge {value}", quoting: .doubledSingleQuotes,
                            field: "updated_at", lookBack: lookBack),
                        limitParameter: "$top", query: ["$orderby": "updated_at,id"]),
                    push: .none)
            }
        }
    }

    @Test(arguments: Dialect.allCases, [Duration.zero, .seconds(2)])
    func anIncrementalSyncAsksFromTheServersOwnBytes(dialect: Dialect, lookBack: Duration) async throws {
        let server = try await FilterDialectServer(
            records: (1...25).map { User.remoteObject(id: $0, userName: "user \($0)") })
        let users = try Repository<User>(
            database: .inMemory(),
            remote: HTTPRemoteSource<User>(baseURL: server.baseURL, api: dialect.api(lookBack: lookBack)),
            configuration: SyncConfiguration(pageSize: 10))

        let first = try await users.sync()
        #expect(first.isComplete)
        #expect(try await users.count() == 25)
        // Offset paging under a changed-since filter asks each page from the last value received: pages
        // 2 and 3, then the check that the short third page was the end.
        let firstSyncFilters = try server.state().filters
        #expect(firstSyncFilters.count == 3)
        #expect(first.checkRequests == 1)

        let edited = try server.put(
            [3, 7, 20].map { User.remoteObject(id: $0, userName: "edited \($0)") }
                + [User.remoteObject(id: 26, userName: "new")])
        let second = try await users.sync()
        #expect(second.isComplete)
        let cached = try await users.fetch(sortedBy: [SortDescriptor(\.id)]).map(\.userName)
        let onServer = edited.users.compactMap { $0["user_name"]?.text }
        #expect(cached == onServer)
        // Each filter value is a timestamp written as the server writes its own; without a look-back,
        // the first one is the largest `updated_at` the first sync received, byte for byte.
        let filters = try server.state().filters.dropFirst(firstSyncFilters.count)
        #expect(!filters.isEmpty)
        let serverTimestamp = #/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\+00:00/#
        #expect(filters.allSatisfy { $0.wholeMatch(of: serverTimestamp) != nil })
        if lookBack == .zero {
            let newestBefore = edited.users.compactMap { $0["updated_at"]?.text }.sorted()[21]
            #expect(filters.first == newestBefore)
            #expect(second.pulled <= 5)
        }

        let third = try await users.sync()
        #expect(third.isComplete)
        #expect(third.inserted + third.updated == 0)
    }

    /// A person of a JSON:API server: the id as text, the fields under `attributes`.
    struct Person: VariablyCodable, SQLiteStorable, Identifiable, Sendable {
        var id: Int
        var name: String
        var updatedAt: Date?

        init(from container: DecodingContainer<Person>) throws {
            id = try container.decode(\.id)
            name = try container.decode(\.name)
            updatedAt = try container.decode(\.updatedAt)
        }

        static let keySets = KeySets<Person>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.id, "id", transform: .numericString)
                Key(\.name, "attributes.name")
                Key(\.updatedAt, "attributes.updated_at")
            }
            KeySet(.sqlite, style: .snakeCase)
        }
        static let sqliteTable = SQLiteTable<Person>("people", primaryKey: \.id)
    }

    /// docs/http.md's JSON:API form: records under `data`, fields and the deletion flag under
    /// `attributes` (names as paths), text ids, `filter[updated_at.gte]`, page-number links at
    /// `links.next`: incremental syncs bring exactly the edits and the soft deletions.
    @Test func theJSONAPIFormSyncsEditsAndSoftDeletions() async throws {
        let server = try await FilterDialectServer(
            records: (1...25).map { User.remoteObject(id: $0, userName: "user \($0)") })
        let api = HTTPAPI(
            pull: HTTPPullShape(
                path: "jsonapi/people", records: "data", paging: .nextURL(at: "links.next"),
                deletions: .tombstones(flag: "attributes.deleted"),
                changedSince: .updatedSince(parameter: "filter[updated_at.gte]", field: "attributes.updated_at"),
                limitParameter: "page[size]", query: ["sort": "updated_at,id"]),
            push: .none)
        let people = try Repository<Person>(
            database: .inMemory(), remote: HTTPRemoteSource<Person>(baseURL: server.baseURL, api: api),
            configuration: SyncConfiguration(pageSize: 10))
        #expect(try await people.sync().isComplete)
        #expect(try await people.count() == 25)

        try server.put([User.remoteObject(id: 4, userName: "edited 4")])
        try server.softDelete([9, 17])
        let second = try await people.sync()
        #expect(second.isComplete)
        #expect(second.deleted == 2)
        #expect(second.pulled <= 4)
        #expect(try await people.count() == 23)
        #expect(try await people.fetch(id: 4)?.name == "edited 4")
        #expect(try await people.fetch(id: 9) == nil)
    }
}
