import Foundation

// The sample's number formats; NaivePipelineBenchmark (Benchmarks/) links this file too.

/// `number` with a comma between groups of three digits: `1,000,000`.
func grouped(_ number: Int) -> String {
    let digits = String(number)
    var result = ""
    for (offset, character) in digits.enumerated() {
        if offset > 0, (digits.count - offset) % 3 == 0 { result += "," }
        result.append(character)
    }
    return result
}

/// `duration` in seconds with three decimals: `1.250`.
func seconds(_ duration: Duration) -> String {
    let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    return String(format: "%.3f", value)
}
