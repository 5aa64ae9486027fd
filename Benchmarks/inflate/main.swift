import Foundation

// The driver of `Benchmarks/inflate-speed`: decodes each file given after the plain body (gzip for
// `.gz`, zlib for `.zlib`) 7 times, checks the bytes, and prints the best output rate next to the rate
// python3's zlib reached on the same file (`zlib-speeds.txt`, written by the script).
let arguments = CommandLine.arguments
let plain = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
let folder = URL(fileURLWithPath: arguments[1]).deletingLastPathComponent()
var reference: [String: Double] = [:]
for line in try String(contentsOf: folder.appendingPathComponent("zlib-speeds.txt"), encoding: .utf8).split(separator: "\n") {
    let fields = line.split(separator: " ")
    if fields.count == 2, let speed = Double(fields[1]) { reference[String(fields[0])] = speed }
}
print("| stream (\(plain.count / 1_000_000) MB of JSON) | compressed | this decoder | python3 zlib | ratio |")
print("| --- | ---: | ---: | ---: | ---: |")
for path in arguments.dropFirst(2) {
    let name = URL(fileURLWithPath: path).lastPathComponent
    let input = try Data(contentsOf: URL(fileURLWithPath: path))
    var best = Double.infinity
    for _ in 0..<7 {
        let start = ContinuousClock.now
        let output = input.withUnsafeBytes { raw in
            Result { () throws(InflateError) in
                name.hasSuffix(".gz") ? try GzipReader.decode(raw, limit: 1 << 30) : try ZlibReader.decode(raw, limit: 1 << 30)
            }
        }
        let elapsed = ContinuousClock.now - start
        guard case .success(let data) = output, data == plain else { fatalError("\(name): wrong output \(output)") }
        best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    let speed = Double(plain.count) / best / 1e6
    let zlib = reference[name] ?? .nan
    print(String(format: "| %@ | %.1f MB | %.0f MB/s | %.0f MB/s | %.2f |", name, Double(input.count) / 1e6, speed, zlib, speed / zlib))
}
