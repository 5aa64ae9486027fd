import Testing
import VariablyHTTP

/// What the transport's errors say, and which of them a retry may cure.
@Suite struct HTTPTransportErrorTests {
    @Test func onlyTimeoutsAndConnectionsThatFailedOrBrokeAreTransient() {
        let request = "GET /users/changes"
        #expect(HTTPTransportError.timedOut(request: request, seconds: 30).isTransient)
        #expect(HTTPTransportError.cannotConnect(request: request, reason: "refused").isTransient)
        #expect(HTTPTransportError.connectionLost(request: request, reason: "closed").isTransient)
        #expect(!HTTPTransportError.tlsFailure(request: request, reason: "expired").isTransient)
        #expect(!HTTPTransportError.proxyRefused(request: request, reason: "CONNECT answered 403").isTransient)
        #expect(!HTTPTransportError.invalidResponse(request: request, reason: "bad").isTransient)
        #expect(!HTTPTransportError.tooLarge(limit: 1).isTransient)
        #expect(!HTTPTransportError.libraryUnavailable(reason: "no TLS", install: "libcurl4-openssl-dev").isTransient)
    }

    @Test func descriptionsNameTheRequestAndWhatToInstall() {
        #expect(
            HTTPTransportError.timedOut(request: "GET /users/changes", seconds: 0.5).description
                == "GET /users/changes: no complete answer within 0.5 s")
        let missing = HTTPTransportError.libraryUnavailable(
            reason: "GET /users: libcurl 7.88.1 was built without TLS",
            install: "libcurl4-openssl-dev (Debian, Ubuntu) or libcurl-devel (Fedora)")
        #expect(missing.description.contains("install libcurl4-openssl-dev"))
    }
}
