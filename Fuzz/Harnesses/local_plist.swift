import Foundation
import VariablyCodable

// Arbitrary bytes as a key-set model from a property list (binary, XML or OpenStep) in the local
// source: a value or a typed error, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLocalPlist(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    do {
        _ = try PropertyListDecoder().decode(User.self, from: data, source: .local)
    } catch is VariablyCodingError {
    } catch is DecodingError {
    } catch {
        fuzzFailure("untyped error \(type(of: error)): \(error)")
    }
    return 0
}
