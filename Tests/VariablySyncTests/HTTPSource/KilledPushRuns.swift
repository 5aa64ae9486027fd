import Foundation
import Testing
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Launches the test binary `executable` as an app, filtered to the child test `filter`, `runs` times
/// one after the other, each with `settings(run, killAt)` added to its environment, where `killAt` is the
/// successful write after which the child kills itself (1 to 9, drawn from `seed`). Each child's output
/// goes to `child-<run>.log` in `directory`. A child that ends neither killed nor with status 0 is an
/// issue, with the end of its log.
///
/// - Returns: How many runs were killed.
func launchKilledPushRuns(
    executable: String, filter: String, runs: Int, seed: UInt64, directory: ReliabilityTemporaryDirectory,
    settings: (_ run: Int, _ killAt: Int) -> [String: String]
) async throws -> Int {
    var random = ReliabilityRandom(seed: seed)
    var kills = 0
    for run in 1...runs {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(settings(run, Int.random(in: 1...9, using: &random))) { _, setting in setting }
        let log = directory.path("child-\(run).log")
        let output = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let child = try ChildProcess(
            executable: executable, arguments: ["--testing-library", "swift-testing", "--filter", filter],
            environment: environment, standardOutput: output, standardError: output)
        close(output)
        let end = await child.exit(within: .seconds(120))
        if end == .signaled(SIGKILL) {
            kills += 1
        } else if end != .exited(0) {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            Issue.record("run \(run): the child ended with \(end):\n\(text.suffix(3_000))")
        }
    }
    return kills
}
