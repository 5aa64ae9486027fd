import CallgrindControl
import Foundation

/// How many records and rounds a run uses.
struct Configuration: Sendable {
    var records: Int
    var rounds: Int
    var warmUp: Bool
    var filter: String?
    var variant: String?
    /// Variants whose name contains one of these texts are left out (never a group's baseline): e.g.
    /// `GRDB,naive`, to time a 1,000,000-row run of the floor and our variants in minutes.
    var skippedVariants: [String] = []
    /// Only checks that every variant runs (CI): no timing claims.
    var isQuick = false

    static func parse(_ arguments: [String]) -> Configuration {
        var configuration = Configuration(records: 100_000, rounds: 5, warmUp: true, filter: nil, variant: nil)
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--quick":
                configuration.records = 10_000
                configuration.rounds = 1
                configuration.warmUp = false
                configuration.isQuick = true
            case "--records": configuration.records = Int(iterator.next() ?? "") ?? configuration.records
            case "--rounds": configuration.rounds = Int(iterator.next() ?? "") ?? configuration.rounds
            case "--filter": configuration.filter = iterator.next()
            case "--variant": configuration.variant = iterator.next()
            case "--skip-variants":
                configuration.skippedVariants = (iterator.next() ?? "").split(separator: ",").map(String.init)
            case "--no-warm-up": configuration.warmUp = false
            default: print("unknown argument \(argument)"); exit(2)
            }
        }
        return configuration
    }
}

/// One way of doing a group's job; `run` returns how many records it processed.
struct Variant {
    let name: String
    /// Untimed work before each run (e.g. saving the edits that the run's sync then pushes).
    let prepare: (() throws -> Void)?
    let run: () throws -> Int

    init(name: String, prepare: (() throws -> Void)? = nil, run: @escaping () throws -> Int) {
        self.name = name
        self.prepare = prepare
        self.run = run
    }

    /// Prepares a run (untimed), then times it: its seconds and how many records it processed.
    func timedRun() throws -> (seconds: Double, count: Int) {
        try prepare?()
        let start = DispatchTime.now().uptimeNanoseconds
        let count = try run()
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, count)
    }
}

/// A comparison: the first variant is the baseline (1.00), the others are reported as ratios to it.
struct Group {
    let name: String
    var variants: [Variant]
    /// Minimum ratio per variant name, the project's target; `nil` when a row has no target.
    let targets: [String: Double]
    /// Ratios to another variant than the first, reported as extra rows: (variant, baseline, minimum).
    var comparisons: [(variant: String, baseline: String, minimum: Double?)] = []
}

struct ResultRow {
    let group: String
    let variant: String
    let recordsPerSecond: Double
    let ratio: Double
    let target: Double?
}

/// Runs every variant of a group interleaved: round after round, each variant once, in rotating order,
/// so that drift on a shared machine hits all of them alike; reports medians.
func measure(_ group: Group, configuration: Configuration) throws -> [ResultRow] {
    var group = group
    if !configuration.skippedVariants.isEmpty {
        group.variants = group.variants.enumerated().filter { variant in
            variant.offset == 0
                || !configuration.skippedVariants.contains { variant.element.name.localizedCaseInsensitiveContains($0) }
        }.map(\.element)
    }
    if let wanted = configuration.variant {
        // Profiling aid: run one variant once (e.g. under valgrind), report nothing; under perf, the
        // section "variant" is the run alone, without the group's set-up (see ProfiledSection), and
        // under `valgrind --tool=callgrind --instr-atstart=no` callgrind counts that run alone. A name
        // given in full picks that variant only, not the longer names that contain it. As in a timed
        // run, a first run warms up what a process does once (conformance lookups, key-set
        // resolution, statement caches) unless `--no-warm-up` says otherwise.
        let exact = group.variants.filter { $0.name == wanted }
        for variant in exact.isEmpty
            ? group.variants.filter({ $0.name.localizedCaseInsensitiveContains(wanted) }) : exact
        {
            if configuration.warmUp { _ = try variant.timedRun() }
            try variant.prepare?()
            _ = try ProfiledSection.run("variant") {
                callgrind_section_begin()
                defer { callgrind_section_end() }
                return try variant.run()
            }
        }
        return []
    }
    if configuration.warmUp {
        for variant in group.variants { _ = try variant.timedRun() }
    }
    var seconds = Array(repeating: [Double](), count: group.variants.count)
    var counts = Array(repeating: 0, count: group.variants.count)
    for round in 0..<configuration.rounds {
        for offset in 0..<group.variants.count {
            let index = (offset + round) % group.variants.count
            let (elapsed, count) = try group.variants[index].timedRun()
            counts[index] = count
            seconds[index].append(elapsed)
        }
    }
    let rates = zip(seconds, counts).map { Double($1) / median($0) }
    let rows = group.variants.indices.map { index in
        ResultRow(
            group: group.name, variant: group.variants[index].name, recordsPerSecond: rates[index],
            ratio: rates[index] / rates[0], target: group.targets[group.variants[index].name])
    }
    let names = group.variants.map(\.name)
    return rows
        + group.comparisons.compactMap { comparison in
            guard let variant = names.firstIndex(of: comparison.variant),
                let baseline = names.firstIndex(of: comparison.baseline)
            else { return nil }
            return ResultRow(
                group: group.name + ", ratio to " + comparison.baseline, variant: comparison.variant,
                recordsPerSecond: rates[variant], ratio: rates[variant] / rates[baseline], target: comparison.minimum)
        }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Peak resident memory of this process so far, in MiB (Linux: VmHWM).
func peakResidentMiB() -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kib = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
        return kib / 1024
    }
    return nil
}

func printTable(_ rows: [ResultRow]) {
    func pad(_ text: String, _ width: Int) -> String {
        text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0)
    }
    print("| group | variant | records/s | ratio | target | met |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for row in rows {
        let rate =
            row.recordsPerSecond >= 1e6
            ? String(format: "%.2fM", row.recordsPerSecond / 1e6) : String(format: "%.0fk", row.recordsPerSecond / 1e3)
        let target = row.target.map { String(format: ">= %.2f", $0) } ?? ""
        let met = row.target.map { row.ratio >= $0 ? "yes" : "no" } ?? ""
        print(
            "| \(row.group) | \(pad(row.variant, 0)) | \(rate) | \(String(format: "%.2f", row.ratio)) | \(target) | \(met) |"
        )
    }
}
