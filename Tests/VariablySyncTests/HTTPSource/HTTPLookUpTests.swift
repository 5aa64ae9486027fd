import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
@testable import VariablySync

/// How a look-up of creates in doubt asks a collection for several values: the query it writes, the
/// values it keeps apart, and the declarations it refuses when the repository opens. Against real
/// servers: `DRFExactlyOnceTests.createsInDoubtAreLookedUpManyInOneRequest`,
/// `PocketBaseBatchTests.createsInDoubtAreFoundByOneFilterOfTheirIDs` and `JSONAPIRecipeTests`.
@Suite struct HTTPLookUpTests {
    @Test func eachFormWritesItsQuery() {
        #expect(HTTPLookUp.parameter("client_id").queryItem(for: ["a1"]) == "client_id=a1")
        #expect(HTTPLookUp.list(parameter: "client_id__in").queryItem(for: ["a1", "b2"]) == "client_id__in=a1%2Cb2")
        #expect(
            HTTPLookUp.list(parameter: "filter[client_id.in]").queryItem(for: ["a1"])
                == "filter%5Bclient_id.in%5D=a1")
        #expect(
            HTTPLookUp.filter(parameter: "filter", each: "id='{value}'", separator: "||").queryItem(for: ["a1", "b2"])
                == "filter=%28id%3D%27a1%27%7C%7Cid%3D%27b2%27%29")
    }

    @Test func onlyTheListAndFilterFormsTakeMany() {
        #expect(!HTTPLookUp.parameter("client_id").takesMany)
        #expect(HTTPLookUp.list(parameter: "client_id__in").takesMany)
        #expect(!HTTPLookUp.list(parameter: "client_id__in", maximum: 1).takesMany)
        #expect(HTTPLookUp.filter(parameter: "filter", each: "id='{value}'", separator: "||").maximum == 50)
        // The one-a-request form is what `ClientReference(field:query:)` declares.
        #expect(HTTPRecordEndpoints.ClientReference(field: "client_id").lookUp == .parameter("client_id"))
        #expect(HTTPRecordEndpoints.ClientReference(field: "meta.ref", query: "ref").lookUp == .parameter("ref"))
    }

    /// A value a separator or a quote could cut goes alone, in a request of its own.
    @Test(arguments: [
        ("6f9619ff-8b86-d011-b42d-00c04fc964ff", true), ("k3v7x9q2m4p8r1t", true), ("42", true), ("a.b:c_d", true),
        ("a,b", false), ("o'clock", false), ("a||b", false), ("", false), ("é", false), ("a b", false),
    ])
    func aValueGoesWithOthersOnlyWhenNothingCanMisreadIt(value: String, isPlain: Bool) {
        #expect(HTTPLookUp.isPlain(value) == isPlain)
    }

    @Test(arguments: [
        HTTPRecordEndpoints(
            path: "users", clientReference: .init(field: "email_address", lookUp: .list(parameter: "", maximum: 5))),
        HTTPRecordEndpoints(
            path: "users", clientReference: .init(field: "email_address", lookUp: .list(parameter: "in", maximum: 0))),
        HTTPRecordEndpoints(path: "users").lookingUpChosenIDs(
            .filter(parameter: "filter", each: "id=x", separator: "||")),
    ])
    func aLookUpThatCannotWorkIsRefusedWhenTheRepositoryOpens(endpoints: HTTPRecordEndpoints) throws {
        let pull = HTTPPullShape(path: "users", paging: .page(parameter: "page"))
        let remote = HTTPRemoteSource<User>(
            baseURL: URL(string: "https://example.com/")!, api: HTTPAPI(pull: pull, push: .perRecord(endpoints)))
        let error = #expect(throws: DeclarationError.self) {
            try Repository(database: .inMemory(), remote: remote)
        }
        guard case .invalidSetting(let setting, _)? = error?.reason else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(setting.hasPrefix("HTTPRecordEndpoints.clientReference") || setting.hasSuffix("lookingUpChosenIDs"))
        #expect(error?.fix.isEmpty == false)
    }
}
