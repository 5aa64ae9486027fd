import Foundation
import Testing
import VariablyCodable

/// `KeySetJSONDecoder` against Foundation's `JSONDecoder` on generated payloads: equal values or
/// equivalent errors (same kind, same model and property, same coding path), from fixed seeds.
@Suite("FastJSON differential")
struct FastJSONDifferentialTests {
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func arraysOfModelsDecodeAsFoundationDoes(seed: UInt64) {
        var generator = PayloadGenerator(seed: seed)
        var failures = 0
        var errors = 0
        for _ in 0..<1_000 {
            let json = generator.items(count: Int.random(in: 1...3, using: &generator.random))
            let (foundation, fast) = bothOutcomes([FastItem].self, Data(json.utf8))
            if case .failure = foundation { errors += 1 }
            if foundation != fast {
                failures += 1
                if failures <= 5 { Issue.record("\(json)\nFoundation: \(foundation)\nKeySetJSONDecoder: \(fast)") }
            }
        }
        #expect(failures == 0)
        // The generator must exercise both outcomes.
        #expect(errors > 100 && errors < 950, "\(errors) of 1000 payloads failed")
    }

    @Test(arguments: [UInt64(11), 12])
    func pagesDecodeAsFoundationDoes(seed: UInt64) {
        var generator = PayloadGenerator(seed: seed)
        var failures = 0
        for _ in 0..<500 {
            let json = generator.page()
            let (foundation, fast) = bothOutcomes(FastPage.self, Data(json.utf8))
            if foundation != fast {
                failures += 1
                if failures <= 5 { Issue.record("\(json)\nFoundation: \(foundation)\nKeySetJSONDecoder: \(fast)") }
            }
        }
        #expect(failures == 0)
    }

    @Test(arguments: [UInt64(21), 22])
    func singleModelsDecodeAsFoundationDoes(seed: UInt64) {
        var generator = PayloadGenerator(seed: seed)
        var failures = 0
        for _ in 0..<1_000 {
            let json = generator.item()
            let (foundation, fast) = bothOutcomes(FastItem.self, Data(json.utf8))
            if foundation != fast {
                failures += 1
                if failures <= 5 { Issue.record("\(json)\nFoundation: \(foundation)\nKeySetJSONDecoder: \(fast)") }
            }
        }
        #expect(failures == 0)
    }

    @Test(arguments: [UInt64(41), 42])
    func lenientDecodingAndItsReportMatchFoundation(seed: UInt64) {
        var generator = PayloadGenerator(seed: seed)
        var failures = 0
        var events = 0
        for index in 0..<500 {
            let json = generator.items(count: 1)
            let isStrict = index % 3 == 0
            let foundationReport = DecodeReport()
            let foundation = JSONDecoder(source: .remote)
            foundation.decodingOptions = DecodingOptions(isLenient: true, isStrict: isStrict, report: foundationReport)
            let fastReport = DecodeReport()
            var fast = KeySetJSONDecoder(source: .remote)
            fast.decodingOptions = DecodingOptions(isLenient: true, isStrict: isStrict, report: fastReport)
            let expected = outcome { try foundation.decode([FastItem].self, from: Data(json.utf8)) }
            let actual = outcome { try fast.decode([FastItem].self, from: Data(json.utf8)) }
            let expectedEvents = foundationReport.events.map {
                "\($0.kind) \($0.keyPath ?? "") \($0.codingPath.map(\.stringValue))"
            }
            let actualEvents = fastReport.events.map {
                "\($0.kind) \($0.keyPath ?? "") \($0.codingPath.map(\.stringValue))"
            }
            events += expectedEvents.count
            if expected != actual || expectedEvents != actualEvents {
                failures += 1
                if failures <= 5 {
                    Issue.record(
                        "\(json)\nFoundation: \(expected) \(expectedEvents)\nKeySetJSONDecoder: \(actual) \(actualEvents)"
                    )
                }
            }
        }
        #expect(failures == 0)
        #expect(events > 10, "lenient decoding must have coerced something")
    }

    @Test(arguments: [UInt64(31), 32])
    func scalarsAndPlainValuesDecodeAsFoundationDoes(seed: UInt64) {
        var generator = PayloadGenerator(seed: seed)
        var failures = 0
        func check<T: Decodable & Equatable>(_ type: T.Type, _ json: String) {
            let (foundation, fast) = bothOutcomes(T.self, Data(json.utf8))
            if foundation != fast {
                failures += 1
                if failures <= 10 {
                    Issue.record("\(T.self) \(json)\nFoundation: \(foundation)\nKeySetJSONDecoder: \(fast)")
                }
            }
        }
        for _ in 0..<400 {
            let number = generator.pick2(generator.integer(), generator.double())
            check(Int.self, number)
            check(Int8.self, number)
            check(UInt8.self, number)
            check(Int32.self, number)
            check(UInt32.self, number)
            check(Int64.self, number)
            check(UInt64.self, number)
            check(UInt.self, number)
            check(Double.self, number)
            check(Float.self, number)
            check(Decimal.self, number)
            check(Date.self, number)
            check([Int].self, "[\(number)]")
            check([Double].self, "[\(number)]")
            let text = generator.string()
            check(String.self, text)
            check([String].self, "[\(text),\(text)]")
            check([String: String].self, "{\(text):\(text)}")
            let any = generator.anyValue(depth: 0)
            check(JSONValue.self, any)
            check([String: Int].self, generator.object(of: { $0.scalar() }))
            check([Int?].self, any)
            check(Set<String>.self, any)
            check([[Double]].self, any)
            check(Bool.self, any)
            check(Data.self, generator.base64())
            check(URL.self, generator.url())
            check(UUID.self, generator.uuid())
            check(Role.self, generator.role())
            check(FastChild.self, generator.child())
            check([FastChild].self, generator.array(of: { $0.child() }))
        }
        #expect(failures == 0)
    }
}

extension PayloadGenerator {
    /// One of two values, each half of the time.
    mutating func pick2(_ first: String, _ second: String) -> String {
        Bool.random(using: &random) ? first : second
    }
}
