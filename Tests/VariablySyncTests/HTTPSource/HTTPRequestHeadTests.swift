import Foundation
import Testing

import UserSyncModels
@testable import VariablySync

/// The pieces of a request and its answer that need no server: the query encoding, header text, the
/// push envelope and `Retry-After`.
@Suite struct HTTPRequestHeadTests {
    // MARK: - Requests

    @Test func queryValuesKeepOnlyUnreservedCharacters() {
        #expect(HTTPRequestHead.percentEncodedQueryValue("ab+c/d==") == "ab%2Bc%2Fd%3D%3D")
        #expect(HTTPRequestHead.percentEncodedQueryValue("AZaz09-._~") == "AZaz09-._~")
        #expect(HTTPRequestHead.percentEncodedQueryValue("é &?#%") == "%C3%A9%20%26%3F%23%25")
    }

    @Test func headerTextWithALineBreakOrANulIsUnsafe() {
        #expect(!HTTPRequestHead.isSafeHeaderText("a\r\nX-Injected: 1"))
        #expect(!HTTPRequestHead.isSafeHeaderText("a\0b"))
        #expect(HTTPRequestHead.isSafeHeaderText("Bearer x"))
    }

    @Test func pushedRecordsAreSplicedInAsTheirBytes() throws {
        let record = #"{"id": 7, "score": 1.10, "big": 123456789012345678901234567890, "name": "a\u0301"}"#
        let body = try HTTPChangesEnvelope<User.ID>.body([
            RemoteChange(idempotencyKey: "k1", id: 7, operation: .upsert(Data(record.utf8)), baseVersion: "3"),
            RemoteChange(idempotencyKey: "k2", id: 8, operation: .delete, baseVersion: nil, supersedes: ["k0"]),
        ])
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains(#","record":"# + record + "}"))
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let changes = try #require(object["changes"] as? [[String: Any]])
        #expect(changes.map { $0["idempotency_key"] as? String } == ["k1", "k2"])
        #expect(changes.map { $0["operation"] as? String } == ["upsert", "delete"])
        #expect(changes[1]["base_cursor"] is NSNull)
        #expect(changes[1]["supersedes"] as? [String] == ["k0"])
        #expect(throws: EncodingError.self) {
            try HTTPChangesEnvelope<User.ID>.body([
                RemoteChange(idempotencyKey: "k", id: 1, operation: .upsert(Data("[1]".utf8)), baseVersion: nil)
            ])
        }
    }

    // MARK: - Retry-After

    @Test func retryAfterReadsSecondsAndTheThreeDateForms() {
        let now = Date(timeIntervalSince1970: 784_111_767)  // Sun, 06 Nov 1994 08:49:27 GMT
        #expect(HTTPRetryAfter.delay("120", now: now) == .seconds(120))
        #expect(HTTPRetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == .seconds(10))
        #expect(HTTPRetryAfter.delay("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == .seconds(10))
        #expect(HTTPRetryAfter.delay("Sun Nov  6 08:49:37 1994", now: now) == .seconds(10))
        #expect(HTTPRetryAfter.delay("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == .zero)
        #expect(HTTPRetryAfter.delay("99999999999", now: now) == HTTPRetryAfter.maximum)
        #expect(HTTPRetryAfter.delay("-5", now: now) == nil)
        #expect(HTTPRetryAfter.delay("soon", now: now) == nil)
    }
}
