import Foundation
import VariablyCodable

// Arbitrary names through every key style and the any-case converter: no crash; a style applied
// to its own output changes nothing for ASCII letter-and-digit names.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyStyle(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let name = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    let styles: [KeyStyle] = [.snakeCase, .kebabCase, .camelCase, .pascalCase, .screamingSnakeCase]
    let isPlain = name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    _ = KeyStyle.words(in: name)
    for style in styles {
        let once = style.apply(to: name)
        _ = KeyStyleConverter(style).convert(name)
        if isPlain, !name.isEmpty, style.apply(to: once) != once {
            fuzzFailure("\(style.convention) is not idempotent on \(name.debugDescription): \(once) then \(style.apply(to: once))")
        }
    }
    return 0
}
