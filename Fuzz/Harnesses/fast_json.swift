import Foundation
import VariablyCodable

// Arbitrary bytes through KeySetJSONDecoder: a typed error or the value JSONDecoder gives.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFastJSON(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let fast: FuzzUser?
    do {
        fast = try KeySetJSONDecoder(source: .remote).decode(FuzzUser.self, from: data)
    } catch is VariablyCodingError {
        fast = nil
    } catch is DecodingError {
        fast = nil
    } catch {
        fuzzFailure("untyped error \(type(of: error)): \(error)")
    }
    if let fast, let foundation = try? JSONDecoder().decode(FuzzUser.self, from: data, source: .remote),
        fast != foundation
    {
        fuzzFailure("KeySetJSONDecoder read \(fast), JSONDecoder \(foundation)")
    }
    return 0
}
