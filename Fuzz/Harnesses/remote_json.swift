import Foundation
import VariablyCodable

// Arbitrary bytes as a key-set model from remote JSON through Foundation's JSONDecoder: a value or
// a typed error (VariablyCodingError, DecodingError), never a crash or another error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRemoteJSON(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    for shape in [0, 1] {
        do {
            if shape == 0 {
                _ = try JSONDecoder().decode(User.self, from: data, source: .remote)
            } else {
                _ = try JSONDecoder().decode([User].self, from: data, source: .remote)
            }
        } catch is VariablyCodingError {
        } catch is DecodingError {
        } catch {
            fuzzFailure("untyped error \(type(of: error)): \(error)")
        }
    }
    return 0
}
