import Foundation
import VariablySQLite

// MARK: - One run of the store's tables

extension SyncStore {
    /// Starts `step` as the store's one running run and waits for it.
    func start(_ step: RunStep) async throws -> SyncStoreReport {
        let sync = RunningSync(Task { try await self.perform(step) }, isResync: step.isResync)
        running = sync
        defer { running = nil }
        return try await sync.join()
    }

    /// Runs `step` over every table in one run, once no other run holds them: `.started`, the push in
    /// rounds, the pull, `.finished` (or `.failed`), and keeps the report.
    private func perform(_ step: RunStep) async throws -> SyncStoreReport {
        let clock = ContinuousClock()
        let start = clock.now
        let tables = members.map(\.table)
        let (feedRetries, feedChecks) = (RunCounter(), RunCounter())
        let (report, error) = try await database.tableRegistry.withRun(of: tables.map(\.name)) {
            var error: (any Error)?
            do {
                try await self.runSteps(of: step, over: tables, feedRetries: feedRetries, feedChecks: feedChecks)
            } catch let failure {
                error = failure
            }
            for table in tables { table.endRun(error, duration: start.duration(to: clock.now)) }
            let report = SyncStoreReport(
                reports: Dictionary(tables.map { ($0.model, $0.runReport) }) { first, _ in first },
                tables: tables.map { ($0.name, $0.model) }, feedRetries: feedRetries.value,
                feedCheckRequests: feedChecks.value)
            return (report, error)
        }
        lastReport = report
        if let error {
            broadcaster.yield(.failed("\(error)", partialReport: report))
            throw error
        }
        broadcaster.yield(.finished(report))
        return report
    }

    /// The steps of one run: every table's run begun, the push, then the pull or the listing.
    private func runSteps(
        of step: RunStep, over tables: [any EngineTable], feedRetries: RunCounter, feedChecks: RunCounter
    ) async throws {
        var pending = 0
        for table in tables { pending += try await table.beginRun() }
        broadcaster.yield(.started(pendingChanges: pending))
        if case .removeDeleted(let deletions) = step {
            for table in tables { try await table.removeRecordsNotListed(allowing: deletions) }
            return
        }
        try await push(tables)
        let fromStart = step.isResync
        let deletions = step.deletions
        if let feed {
            try await pullFeed(feed, fromStart: fromStart, retries: feedRetries, checks: feedChecks)
            let engine = database.tableRegistry.engine(over: tables, on: database)
            try await engine.settleMissingParents()
            for table in tables { try await table.countParkedRecords() }
            return
        }
        // Parents first; a record whose parent is not here yet (written on the server after its table
        // was pulled, or served after it) is parked by the engine and applied when the parent comes.
        let broadcaster = self.broadcaster
        let total = RunCounter()
        for table in tables {
            let name = table.name
            try await table.pull(fromStart: fromStart, deletions: deletions) { records in
                total.add(records)
                broadcaster.yield(.applied(table: name, records: records, totalRecords: total.value))
            }
        }
    }

    /// Pushes the changes of every table in the order of the local transactions that made them: for
    /// each round of transaction groups, saves parents first, again while a pass sent something and
    /// something still waits for a parent (a record completed after a cycle, a parent table's record
    /// freed by a child's create); then deletions, children first.
    private func push(_ tables: [any EngineTable]) async throws {
        let names = tables.map(\.name)
        let rounds = try await database.write { try SyncStateStore.pushRounds(of: names, $0) }
        for group in rounds {
            for _ in 0...tables.count {
                var sent = 0
                var waiting = 0
                for table in tables {
                    let pushed = try await table.push([.upsert], throughGroup: group)
                    broadcaster.yield(
                        .pushed(table: table.name, accepted: pushed.pushed, waitingForParent: pushed.waiting))
                    sent += pushed.pushed
                    waiting += pushed.waiting
                }
                if sent == 0 || waiting == 0 { break }
            }
            for table in tables.reversed() {
                let pushed = try await table.push([.delete], throughGroup: group)
                broadcaster.yield(.pushed(table: table.name, accepted: pushed.pushed, waitingForParent: pushed.waiting))
            }
        }
    }
}
