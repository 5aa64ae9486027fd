import Foundation
import VariablyCodable

// Arbitrary bytes as JSONValue: a DecodingError or a value whose text parses back to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONValue(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let value: JSONValue
    do {
        value = try JSONValue(parsing: data)
    } catch is DecodingError {
        return 0
    } catch {
        fuzzFailure("untyped error \(type(of: error)): \(error)")
    }
    // Known, reported: a number beyond Double's range reads as ±infinity and is written as null
    // (see ReliabilityBadInputCorpusTests.jsonValueKeepsOutOfRangeNumbersThroughARoundTrip).
    if value.containsNonFiniteNumber { return 0 }
    let text = value.jsonString()
    do {
        let again = try JSONValue(parsing: text)
        if again != value { fuzzFailure("round trip changed \(value) into \(again)") }
    } catch {
        fuzzFailure("its own output does not parse: \(text.prefix(200)): \(error)")
    }
    return 0
}

extension JSONValue {
    var containsNonFiniteNumber: Bool {
        switch self {
        case .double(let number): return !number.isFinite
        case .array(let elements): return elements.contains { $0.containsNonFiniteNumber }
        case .object(let members): return members.values.contains { $0.containsNonFiniteNumber }
        default: return false
        }
    }
}
