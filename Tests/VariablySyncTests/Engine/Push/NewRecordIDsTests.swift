import Foundation
import Testing
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// `create(_:)` for models whose id the device makes: the id takes the form the source declares, is
/// unused in the cache, and the record is queued as a create; a form that cannot make ids is refused
/// with a declaration error.
struct NewRecordIDsTests {
    private func repository(newIDs: NewRecordIDs) throws -> Repository<PocketBaseUser> {
        let endpoints = HTTPRecordEndpoints(path: "api/collections/users/records", newIDs: newIDs)
        let remote = HTTPRemoteSource<PocketBaseUser>(
            baseURL: URL(string: "http://127.0.0.1:9/")!,
            api: HTTPAPI(
                pull: HTTPPullShape(path: "api/collections/users/records", paging: .page(parameter: "page")),
                push: .perRecord(endpoints)))
        return try Repository(database: .inMemory(), remote: remote)
    }

    @Test func aRecordCreatedOnTheDeviceTakesThePocketBaseForm() async throws {
        let users = try repository(newIDs: .pocketBase)
        var ids: Set<String> = []
        for number in 0..<200 {
            let user = try await users.create { PocketBaseUser(id: $0, userName: "user \(number)") }
            #expect(user.id.count == 15)
            #expect(user.id.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) })
            ids.insert(user.id)
        }
        #expect(ids.count == 200)
        #expect(try await users.fetch().count == 200)
        let unsent = try await users.unsentChanges()
        #expect(unsent.count == 200)
        #expect(unsent.allSatisfy { $0.isNew })
    }

    @Test func theDefaultFormIsALowerCaseUUID() async throws {
        let users = try repository(newIDs: .uuid)
        let user = try await users.create { PocketBaseUser(id: $0, userName: "ada") }
        #expect(UUID(uuidString: user.id) != nil)
        #expect(user.id == user.id.lowercased())
        let server = try SimulatedServer<PocketBaseUser>(records: [], seed: 1)
        #expect(server.newRecordIDs == .uuid)
    }

    @Test func aShortFormDrawsAgainUntilTheIDIsUnused() async throws {
        let users = try repository(newIDs: .random(length: 1, characters: "ab"))
        let first = try await users.create { PocketBaseUser(id: $0, userName: "first") }
        let second = try await users.create { PocketBaseUser(id: $0, userName: "second") }
        #expect(Set([first.id, second.id]) == ["a", "b"])
    }

    @Test(arguments: [
        NewRecordIDs.random(length: 0, characters: "abc"), .random(length: 4, characters: "a"),
        .random(length: 4, characters: "abca"),
    ])
    func aFormThatCannotMakeIDsIsADeclarationError(form: NewRecordIDs) async throws {
        let error = #expect(throws: DeclarationError.self) { try repository(newIDs: form) }
        #expect(error?.description.contains("newIDs") == true)
        #expect(error?.modelType == "PocketBaseUser")
    }
}
