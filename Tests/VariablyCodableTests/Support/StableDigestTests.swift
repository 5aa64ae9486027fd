import Testing

@testable import VariablyCodable

@Suite struct StableDigestTests {
    /// The FNV-1a reference values (http://www.isthe.com/chongo/tech/comp/fnv/), zero-padded.
    @Test(arguments: [("", "cbf29ce484222325"), ("a", "af63dc4c8601ec8c"), ("foobar", "85944171f73967e8")])
    func matchesTheReferenceValues(text: String, digest: String) {
        #expect(StableDigest.hex(of: text) == digest)
        #expect(Array(text.utf8).withUnsafeBytes(StableDigest.hex(of:)) == digest)
    }
}
