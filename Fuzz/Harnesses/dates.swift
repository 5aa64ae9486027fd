import Foundation
import VariablyCodable

// Arbitrary text through the flexible date strategies: nil or a date; a date in years 1...9999
// written as ISO 8601 with milliseconds reads back within a millisecond.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDates(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let buffer = UnsafeBufferPointer(start: start, count: count)
    let text = String(decoding: buffer, as: UTF8.self)
    let strategies: [DateCodingStrategy] = [.flexible, .secondsSince1970, .millisecondsSince1970, .dateOnly]
    for strategy in strategies {
        guard let date = strategy.date(from: text) else { continue }
        let seconds = date.timeIntervalSince1970
        _ = strategy.encodedValue(for: date)
        guard seconds.isFinite, seconds > -62_135_596_800, seconds < 253_402_300_799 else { continue }
        guard case .string(let written) = DateCodingStrategy.iso8601WithFractionalSeconds.encodedValue(for: date) else {
            fuzzFailure("ISO 8601 output is not a string")
        }
        guard let back = DateCodingStrategy.flexible.date(from: written) else {
            fuzzFailure("\(text.debugDescription) read as \(seconds), written as \(written), which does not read back")
        }
        if abs(back.timeIntervalSince1970 - seconds) > 0.001 {
            fuzzFailure(
                "\(text.debugDescription) read as \(seconds), written as \(written), read back as \(back.timeIntervalSince1970)"
            )
        }
    }
    if count >= 8 {
        let bits = UnsafeRawPointer(start).loadUnaligned(as: UInt64.self)
        _ = DateCodingStrategy.flexible.date(fromNumber: Double(bitPattern: bits))
    }
    return 0
}
