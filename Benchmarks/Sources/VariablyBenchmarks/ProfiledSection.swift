import Foundation

/// Profiling aid: lets `perf record` sample one section of a run and nothing else (the set-up of a
/// 1M-row table otherwise drowns the few milliseconds being profiled).
///
/// ```sh
/// mkfifo /tmp/perf.ctl /tmp/perf.ack
/// VARIABLY_PROFILE_SECTION="incremental sync 1M" VARIABLY_PERF_CONTROL=/tmp/perf.ctl \
///   VARIABLY_PERF_ACK=/tmp/perf.ack perf record -g -D -1 --control fifo:/tmp/perf.ctl,/tmp/perf.ack \
///   $BIN --filter scaling
/// ```
///
/// A section whose name equals `VARIABLY_PROFILE_SECTION` turns perf's sampling on before its body
/// and off after it; every other section, and every run without the variables, just runs the body.
enum ProfiledSection {
    private static let environment = ProcessInfo.processInfo.environment
    private static let wanted = environment["VARIABLY_PROFILE_SECTION"]

    static func run<Result>(_ name: String, _ body: () throws -> Result) rethrows -> Result {
        guard name == wanted, let control = environment["VARIABLY_PERF_CONTROL"],
            let acknowledgement = environment["VARIABLY_PERF_ACK"]
        else { return try body() }
        send("enable", to: control, waitingOn: acknowledgement)
        defer { send("disable", to: control, waitingOn: acknowledgement) }
        return try body()
    }

    /// Writes a perf control command and waits for perf's acknowledgement.
    private static func send(_ command: String, to control: String, waitingOn acknowledgement: String) {
        guard let writer = FileHandle(forWritingAtPath: control),
            let reader = FileHandle(forReadingAtPath: acknowledgement)
        else { return }
        writer.write(Data((command + "\n").utf8))
        _ = reader.availableData
        try? writer.close()
        try? reader.close()
    }
}

/// The CPU time (user and system, every thread) the process has used so far, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
