import Foundation
import VariablyCodable

// Arbitrary names through every key style and the any-case converter: no crash; snake_case and
// kebab-case applied to their own output change nothing for ASCII letter-and-digit names. (The
// upper-case styles are not idempotent on names with digits, "r44r" -> "R44R" -> "R44_R", which is
// harmless: styles apply to Swift property names, not to their own output.)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyStyle(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let name = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    let styles: [KeyStyle] = [.snakeCase, .kebabCase, .camelCase, .pascalCase, .screamingSnakeCase]
    let isPlain = name.unicodeScalars.allSatisfy {
        $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
    }
    _ = KeyStyle.words(in: name)
    for style in styles {
        let once = style.apply(to: name)
        _ = KeyStyleConverter(style).convert(name)
        let isLowercaseStyle = style == .snakeCase || style == .kebabCase
        if isPlain, isLowercaseStyle, !name.isEmpty, style.apply(to: once) != once {
            fuzzFailure(
                "\(style.convention) is not idempotent on \(name.debugDescription): \(once) then \(style.apply(to: once))"
            )
        }
    }
    return 0
}
