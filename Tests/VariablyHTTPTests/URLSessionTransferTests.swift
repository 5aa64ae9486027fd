import Foundation
import Testing
import VariablyHTTP

/// How `URLSessionTransfer` tells a body URLSession decoded from one it handed over as it came: the
/// first bytes of the body, against the `Content-Encoding` label.
@Suite struct URLSessionTransferTests {
    @Test func gzipAndZlibBodiesStillEncodedAreRecognised() {
        #expect(URLSessionTransfer.isStillEncoded(CompressionFixtures.recordsGzip, coding: "gzip"))
        #expect(URLSessionTransfer.isStillEncoded(CompressionFixtures.recordsGzip, coding: " X-GZIP"))
        #expect(URLSessionTransfer.isStillEncoded(CompressionFixtures.recordsZlib, coding: "deflate"))
    }

    @Test(arguments: ["gzip", "deflate", "br", "identity"])
    func decodedJSONReadsAsDecodedWhateverItsLabel(coding: String) {
        for json in [#"{"records": []}"#, "[1, 2]", " \n{}", "\"text\""] {
            #expect(!URLSessionTransfer.isStillEncoded(Data(json.utf8), coding: coding), "\(json)")
        }
        #expect(!URLSessionTransfer.isStillEncoded(CompressionFixtures.recordsDeflate, coding: coding))
        #expect(!URLSessionTransfer.isStillEncoded(Data([0x1F]), coding: coding))
    }
}
