import Foundation

let configuration = Configuration.parse(CommandLine.arguments)
let users = (0..<configuration.records).map(BenchUser.make)
print("VariablyCodable benchmarks: \(configuration.records) users, \(configuration.rounds) round(s), warm-up: \(configuration.warmUp)")

var groups: [Group] = []
groups += try jsonGroups(users: users)
groups += try sqliteGroups(users: users)

var rows: [ResultRow] = []
for group in groups where configuration.filter.map({ group.name.localizedCaseInsensitiveContains($0) }) ?? true {
    let measured = try measure(group, configuration: configuration)
    rows += measured
    FileHandle.standardError.write(Data("measured \(group.name)\n".utf8))
}
printTable(rows)
