// NaivePipelineBenchmark: the repository's full and incremental sync from the simulated server, timed
// against the naive pipeline (synthesized Codable + one INSERT per record) in the same run, with memory.
// Moved here from the UserSync sample, which is the app alone.
//
//     swift run -c release --package-path Benchmarks NaivePipelineBenchmark [--users N]

import Foundation

let usage = """
    usage: swift run -c release --package-path Benchmarks NaivePipelineBenchmark [--users N]

      --users N   users on the simulated server (default 100000)
    """

var users = 100_000
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    switch flag {
    case "--users":
        guard let text = arguments.popFirst(), let count = Int(text), count > 0 else {
            print("NaivePipelineBenchmark: --users needs a positive number\n\n\(usage)")
            exit(2)
        }
        users = count
    case "--help", "-h":
        print(usage)
        exit(0)
    default:
        print("NaivePipelineBenchmark: unknown argument \(flag)\n\n\(usage)")
        exit(2)
    }
}

do {
    try await runBenchmark(
        users: users, folder: FileManager.default.temporaryDirectory.appendingPathComponent("NaivePipelineBenchmark"))
} catch {
    print("Benchmark failed: \(error)")
    exit(1)
}
