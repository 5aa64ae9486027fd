import Foundation

/// The progress of one sync as a single updating line: records so far, rate, ETA and the live count of
/// active users over 30.
///
/// On a terminal the line is rewritten in place (`\r`) at most 10 times a second. In a log (stdout is a
/// pipe or a file) a line is printed at most every 10% of the expected records or every 5 seconds,
/// so that a million users make about ten lines, not a thousand.
actor SyncDisplay {
    private let isTerminal: Bool
    private let expectedRecords: Int?
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var records = 0
    private var pages = 0
    private var retries = 0
    private var activeOver30: Int?
    private var lastPrinted: ContinuousClock.Instant
    private var nextTenth = 1
    private var lineIsOpen = false
    /// What the last printed line showed: the log repeats the final line only if it would differ.
    private var shown: (records: Int, activeOver30: Int?)?

    /// - Parameter expectedRecords: The records the sync should pull, for the percentage and the ETA;
    ///   `nil` when unknown (an incremental sync).
    init(expectedRecords: Int?, isTerminal: Bool = isatty(STDOUT_FILENO) != 0) {
        self.expectedRecords = expectedRecords.flatMap { $0 > 0 ? $0 : nil }
        self.isTerminal = isTerminal
        started = clock.now
        lastPrinted = started
    }

    /// A page was committed: `totalRecords` records so far.
    func pageApplied(totalRecords: Int) {
        records = totalRecords
        pages += 1
        update()
    }

    /// The observed count of active users over 30 changed.
    func observed(activeOver30 count: Int) {
        activeOver30 = count
        if isTerminal { update() }
    }

    /// A request is retried; counted on the line rather than printed alone.
    func retrying() {
        retries += 1
    }

    /// Prints `text` on its own line, below the progress line.
    func message(_ text: String) {
        closeLine()
        print(text)
    }

    /// Prints the final state of the line, if a page came, and ends it.
    func finish() {
        if pages > 0, isTerminal || shown?.records != records || shown?.activeOver30 != activeOver30 { show(line()) }
        closeLine()
    }

    // MARK: - Rendering

    private func update() {
        let now = clock.now
        if isTerminal {
            guard lastPrinted.duration(to: now) >= .milliseconds(100) else { return }
        } else {
            // The last page's line comes from finish(), with the settled count.
            if let expectedRecords, records >= expectedRecords { return }
            let reachedTenth = expectedRecords.map { records * 10 >= $0 * nextTenth } ?? false
            guard reachedTenth || lastPrinted.duration(to: now) >= .seconds(5) else { return }
            if let expectedRecords { nextTenth = records * 10 / expectedRecords + 1 }
        }
        lastPrinted = now
        show(line())
    }

    private func show(_ text: String) {
        shown = (records, activeOver30)
        if isTerminal {
            // Back to the start of the line, then clear what a longer previous line left.
            print("\r" + text + "\u{1B}[K", terminator: "")
            fflush(nil)
            lineIsOpen = true
        } else {
            print(text)
        }
    }

    private func closeLine() {
        guard lineIsOpen else { return }
        print("")
        lineIsOpen = false
    }

    private func line() -> String {
        let elapsed = started.duration(to: clock.now)
        let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = elapsedSeconds > 0 ? Double(records) / elapsedSeconds : 0
        var parts: [String]
        if let expectedRecords {
            let percent = min(100, records * 100 / expectedRecords)
            parts = ["  \(grouped(records)) of \(grouped(expectedRecords)) users (\(percent)%)"]
        } else {
            parts = ["  \(grouped(records)) user\(records == 1 ? "" : "s")"]
        }
        parts.append("\(grouped(Int(rate)))/s")
        if let expectedRecords, rate > 0, records < expectedRecords {
            parts.append("ETA \(Int((Double(expectedRecords - records) / rate).rounded(.up))) s")
        } else {
            parts.append(String(format: "%.1f s", elapsedSeconds))
        }
        if let activeOver30 { parts.append("active over 30: \(grouped(activeOver30))") }
        if retries > 0 { parts.append("\(retries) retr\(retries == 1 ? "y" : "ies")") }
        return parts.joined(separator: ", ")
    }
}
