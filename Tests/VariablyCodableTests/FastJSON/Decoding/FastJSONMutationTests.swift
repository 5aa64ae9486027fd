import Foundation
import Testing
import VariablyCodable

/// Broken documents: every truncation and random byte mutations of valid payloads. The reader must
/// never crash, and must agree with `JSONDecoder` except where it is documented to be stricter.
@Suite struct FastJSONMutationTests {
    @Test func everyTruncationFailsInBothDecoders() {
        var generator = PayloadGenerator(seed: 51)
        for _ in 0..<5 {
            let bytes = Array(generator.items(count: 2).utf8)
            for length in 0..<bytes.count {
                let data = Data(bytes[0..<length])
                let (foundation, fast) = bothOutcomes([FastItem].self, data)
                guard case .failure(let fastError) = fast, case .failure(let foundationError) = foundation else {
                    // A prefix can still be a valid document only if it is empty of structure, which ours never are.
                    Issue.record("prefix of \(length) bytes decoded: \(String(decoding: data, as: UTF8.self))")
                    continue
                }
                #expect(fastError == foundationError, "\(String(decoding: data, as: UTF8.self))")
            }
        }
    }

    @Test(arguments: [UInt64(61), 62])
    func randomByteMutationsNeverCrashAndMatchFoundation(seed: UInt64) {
        var generator = PayloadGenerator(seed: seed)
        let interesting: [UInt8] =
            Array("{}[],:\"\\ 0123456789-+.eEtrufalsn".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC3, 0xE2, 0xF0, 0xFF]
        var failures = 0
        for _ in 0..<1_500 {
            var bytes = Array(generator.items(count: 1).utf8)
            for _ in 0..<Int.random(in: 1...3, using: &generator.random) {
                let position = Int.random(in: 0..<bytes.count, using: &generator.random)
                switch Int.random(in: 0..<3, using: &generator.random) {
                case 0: bytes[position] = interesting.randomElement(using: &generator.random)!
                case 1: bytes.remove(at: position)
                default: bytes.insert(interesting.randomElement(using: &generator.random)!, at: position)
                }
                if bytes.isEmpty { bytes = [0x20] }
            }
            let data = Data(bytes)
            let (foundation, fast) = bothOutcomes([FastItem].self, data)
            if foundation != fast && !isDocumentedStrictness(fast: fast, bytes: bytes) {
                failures += 1
                if failures <= 5 {
                    Issue.record(
                        "\(String(decoding: data, as: UTF8.self))\nFoundation: \(foundation)\nKeySetJSONDecoder: \(fast)"
                    )
                }
            }
        }
        #expect(failures == 0)
    }

    /// Where `KeySetJSONDecoder` refuses a document up front that `JSONDecoder` accepts, or only refuses
    /// when (and where) it decodes the value concerned: trailing commas, and strings and numbers, which
    /// `JSONDecoder` scans loosely and validates when it converts them (invalid UTF-8, escapes, unpaired
    /// surrogates, control characters; malformed numbers such as `6-76` or `1.e5`).
    private let numberCharacters = Set("0123456789+-.eE".utf8)

    private func isDocumentedStrictness(fast: Outcome<[FastItem]>, bytes: [UInt8]) -> Bool {
        guard case .failure = fast else { return false }
        let fastDecoder = KeySetJSONDecoder(source: .remote)
        do {
            _ = try fastDecoder.decode([FastItem].self, from: Data(bytes))
            return false
        } catch DecodingError.dataCorrupted(let context) {
            guard let syntax = context.underlyingError as? JSONSyntaxError else { return false }
            switch syntax.reason {
            case .invalidUTF8, .invalidEscape, .loneSurrogate, .unescapedControlCharacter, .invalidNumber:
                return true
            case .unexpectedCharacter(let byte) where byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}"):
                let before = bytes[..<syntax.offset].last { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
                return before == UInt8(ascii: ",")
            case .unexpectedCharacter(let byte) where numberCharacters.contains(byte):
                // A number followed by more number characters (`6-76`): one malformed number to Foundation.
                return syntax.offset > 0 && numberCharacters.contains(bytes[syntax.offset - 1])
            default:
                return false
            }
        } catch {
            return false
        }
    }
}
