import Foundation
import VariablySQLite
import VariablySync

/// The "Incremental sync of realistic pages" group: what an app's everyday sync costs on a large cache,
/// the path real apps take. A Django REST Framework list over loopback HTTP (``RealisticFeed``), a
/// first sync of every user into a file (untimed), then incremental syncs of 0, 1 and 10 records other
/// clients changed, at two table sizes measured in the same run:
///
/// - with the recipe's look-back of 5 seconds, each sync asks from 5 s before its boundary and reads
///   that window again (about 4,000 records here, 1.25 ms apart), skipping those it has byte for byte:
///   the verification work lands here, on every sync, whatever changed;
/// - without look-back, a sync asks from its boundary only.
///
/// Target: the large table's sync takes at most 1.5x the small one's (a sync costs O(changes and the
/// window), not O(table)), as the "Sync scaling" group's. Full mode: 100,000 and 1,000,000 users, median
/// of 9 rounds; `--quick`: 10,000 and 50,000, one round (nothing fails on timing).
struct RealisticIncremental {
    static let name = "Incremental sync of realistic pages"

    let sizes: TableSizes
    let rounds: Int
    let changeCounts = [0, 1, 10]
    static let pageSize = 1_000

    init(configuration: Configuration) {
        sizes = TableSizes(configuration: configuration)
        rounds = configuration.isQuick ? 1 : 9
    }

    /// One repository on one table size, and what its incremental syncs measured.
    private final class Cell {
        let label: String
        let lookBack: Duration
        let file: TemporaryDatabase
        let repository: Repository<RealisticUser>
        /// Seconds of each sync, by the number of changes it pulled.
        var seconds: [Int: [Double]] = [:]
        /// The requests of the last sync of each number of changes: pages and check requests.
        var requests: [Int: Int] = [:]
        /// The records the last sync of each number of changes pulled (``SyncReport/pulled``: those of the
        /// look-back window it skipped, unchanged, are not counted).
        var pulled: [Int: Int] = [:]

        init(label: String, lookBack: Duration, origin: URL, users: Int) throws {
            self.label = label
            self.lookBack = lookBack
            file = try TemporaryDatabase()
            repository = try Repository<RealisticUser>(
                database: try SQLiteDatabase(path: file.path),
                remote: HTTPRemoteSource<RealisticUser>(baseURL: origin, api: RealisticUser.drfAPI(lookBack: lookBack)),
                configuration: SyncConfiguration(pageSize: RealisticIncremental.pageSize))
            let repository = self.repository
            let report = try runBlocking { try await repository.sync() }
            guard report.inserted == users else {
                throw BenchmarkError("\(label): synced \(report.inserted) of \(users)")
            }
        }

        /// One incremental sync that must find `changes` edited records.
        func sync(expecting changes: Int) throws {
            let repository = self.repository
            let start = DispatchTime.now().uptimeNanoseconds
            let report = try runBlocking { try await repository.sync() }
            seconds[changes, default: []].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            guard report.updated == changes, report.inserted == 0, report.isComplete else {
                throw BenchmarkError("\(label): expected \(changes) updates, got \(report)")
            }
            requests[changes] = report.pages + report.checkRequests
            pulled[changes] = report.pulled
        }
    }

    /// One table size: its feed, its server and a repository with each look-back.
    private struct Table {
        let users: Int
        let feed: RealisticFeed
        let server: LoopbackServer
        let cells: [Cell]

        init(users: Int, label: String) throws {
            self.users = users
            let feed = RealisticFeed(count: users, pageSize: RealisticIncremental.pageSize)
            self.feed = feed
            server = try LoopbackServer { feed.page(origin: $0, query: $1) }
            cells = [
                try Cell(label: "\(label), look-back 5 s", lookBack: .seconds(5), origin: server.origin, users: users),
                try Cell(label: "\(label), no look-back", lookBack: .zero, origin: server.origin, users: users),
            ]
        }
    }

    /// Measures both sizes and prints the group's table.
    func run() throws {
        let tables = [
            try Table(users: sizes.small, label: sizes.label(sizes.small)),
            try Table(users: sizes.large, label: sizes.label(sizes.large)),
        ]
        for round in 0..<rounds {
            for changes in changeCounts {
                for (offset, table) in tables.enumerated() {
                    // Each cell of a table sees the same edits; the order rotates round by round.
                    table.feed.edit(count: changes, round: round * 100 + changes)
                    for index in table.cells.indices {
                        try table.cells[(index + round + offset) % table.cells.count].sync(expecting: changes)
                    }
                }
            }
        }
        printTable(tables)
    }

    private func printTable(_ tables: [Table]) {
        let (small, large) = (tables[0], tables[1])
        print("")
        print(
            "| \(Self.name), DRF's shape over 127.0.0.1 | \(sizes.label(small.users)) | \(sizes.label(large.users)) | ratio | target | met |"
        )
        print("| --- | ---: | ---: | ---: | ---: | --- |")
        for (index, name) in ["look-back 5 s", "no look-back"].enumerated() {
            let (smallCell, largeCell) = (small.cells[index], large.cells[index])
            for changes in changeCounts {
                let (smallSeconds, largeSeconds) = (
                    median(smallCell.seconds[changes] ?? []), median(largeCell.seconds[changes] ?? [])
                )
                let ratio = largeSeconds / smallSeconds
                print(
                    String(
                        format:
                            "| %@, %@ (ms; requests, records pulled) | %.1f (%d, %d) | %.1f (%d, %d) | %.2f | <= 1.50 | %@ |",
                        name, changes == 1 ? "1 change" : "\(changes) changes", smallSeconds * 1e3,
                        smallCell.requests[changes] ?? 0,
                        smallCell.pulled[changes] ?? 0, largeSeconds * 1e3, largeCell.requests[changes] ?? 0,
                        largeCell.pulled[changes] ?? 0, ratio, sizes.met(ratio <= 1.5)))
            }
        }
    }
}
