import Foundation

if let index = CommandLine.arguments.firstIndex(of: "--memory"), index + 1 < CommandLine.arguments.count {
    // A child process measuring one job's peak memory (see Memory.swift).
    let job = MemoryJob(rawValue: CommandLine.arguments[index + 1])!
    let records =
        CommandLine.arguments.firstIndex(of: "--records").map { Int(CommandLine.arguments[$0 + 1])! } ?? 100_000
    try job.run(records: records)
    exit(0)
}

let configuration = Configuration.parse(CommandLine.arguments)
let users = (0..<configuration.records).map(BenchUser.make)
print(
    "VariablyCodable benchmarks: \(configuration.records) users, \(configuration.rounds) round(s), warm-up: \(configuration.warmUp)"
)

// Each builder with the names of the groups it makes: a filter skips the set-up of the groups it
// leaves out (some start processes, which tools such as valgrind do not run).
let builders: [(names: [String], build: ([BenchUser]) throws -> [Group])] = [
    (
        ["JSON decode", "JSON encode", "JSON decode, pages of 1,000 users", "JSON decode, one user per call"],
        { try jsonGroups(users: $0) }
    ),
    (["JSON decode, key strategies", "JSON decode, ISO 8601 dates"], { try toolkitGroups(users: $0) }),
    (
        ["SQLite insert", "SQLite upsert, half existing", "SQLite fetch all", "SQLite query LIMIT 100 (queries)"],
        { try sqliteGroups(users: $0) }
    ),
    (["Sync into an empty file"], { try syncGroups(users: $0) }),
    (["Sync with observers"], { try observationGroups(users: $0) }),
    (["Sync over loopback HTTP", "Sync over loopback HTTP, gzip"], { try httpGroups(users: $0) }),
    (["Sync over loopback HTTPS, gzip"], { try httpsGroups(users: $0) }),
    (
        [RealisticBenchmarks.pullName, RealisticBenchmarks.pushName],
        { users in
            [
                try RealisticBenchmarks.pullGroup(count: users.count),
                try RealisticBenchmarks.pushGroup(counts: configuration.isQuick ? [100] : [100, 1_000]),
            ]
        }
    ),
]
var groups: [Group] = []
for builder in builders
where configuration.filter.map({ filter in builder.names.contains { $0.localizedCaseInsensitiveContains(filter) } })
    ?? true
{
    groups += try builder.build(users)
}

var rows: [ResultRow] = []
for group in groups where configuration.filter.map({ group.name.localizedCaseInsensitiveContains($0) }) ?? true {
    let measured = try measure(group, configuration: configuration)
    rows += measured
    FileHandle.standardError.write(Data("measured \(group.name)\n".utf8))
}
if !rows.isEmpty { printTable(rows) }

if configuration.variant == nil,
    configuration.filter.map({
        "sync".localizedCaseInsensitiveContains($0) || "memory".localizedCaseInsensitiveContains($0)
    }) ?? true
{
    let (pulled, seconds) = try measureIncrementalSync(users: users)
    print("")
    print(String(format: "Incremental sync of 1%% after a full sync: %d records pulled in %.3f s", pulled, seconds))
    print("")
    print("| peak memory (RSS, MiB), \(configuration.records) users | before the job | peak | added by the job |")
    print("| --- | ---: | ---: | ---: |")
    for job in MemoryJob.allCases {
        let (peak, before) = try job.measure(records: configuration.records)
        print(String(format: "| %@ | %.1f | %.1f | %.1f |", job.title, before, peak, peak - before))
    }
}

if configuration.variant == nil, configuration.filter.map({ "observers".localizedCaseInsensitiveContains($0) }) ?? true
{
    let samples = configuration.isQuick ? 20 : 500
    let latencies = try measureObservationLatency(users: users, samples: samples).sorted()
    let median = latencies[latencies.count / 2]
    let p99 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
    print("")
    print(
        String(
            format: "Observed LIMIT 100 query on %d rows, write to emission (%d samples): median %.2f ms, p99 %.2f ms",
            configuration.records, samples, median * 1e3, p99 * 1e3))
}

if configuration.variant == nil,
    configuration.filter.map({ SyncScaling.name.localizedCaseInsensitiveContains($0) }) ?? true
{
    try SyncScaling(configuration: configuration).run()
}

if configuration.variant == nil,
    configuration.filter.map({ RealisticIncremental.name.localizedCaseInsensitiveContains($0) }) ?? true
{
    try RealisticIncremental(configuration: configuration).run()
}

if configuration.variant == nil,
    configuration.filter.map({ PushConcurrency.name.localizedCaseInsensitiveContains($0) }) ?? true
{
    try PushConcurrency(configuration: configuration).run()
}

if configuration.variant == nil,
    configuration.filter.map({ RelatedModelsBenchmark.name.localizedCaseInsensitiveContains($0) }) ?? true
{
    try RelatedModelsBenchmark(configuration: configuration).run()
}
