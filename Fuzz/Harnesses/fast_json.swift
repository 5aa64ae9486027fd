import Foundation
import VariablyCodable

// Arbitrary bytes through KeySetJSONDecoder: a typed error or the value JSONDecoder gives.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFastJSON(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let fast: User?
    do {
        fast = try KeySetJSONDecoder(source: .remote).decode(User.self, from: data)
    } catch is VariablyCodingError {
        fast = nil
    } catch is DecodingError {
        fast = nil
    } catch {
        fuzzFailure("untyped error \(type(of: error)): \(error)")
    }
    if let fast, let foundation = try? JSONDecoder().decode(User.self, from: data, source: .remote),
        fast != foundation
    {
        fuzzFailure("KeySetJSONDecoder read \(fast), JSONDecoder \(foundation)")
    }
    return 0
}
