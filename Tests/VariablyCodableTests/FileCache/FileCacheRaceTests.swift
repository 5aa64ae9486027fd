import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablyTestSupport

/// Readers against writers, for thousands of rounds: a reader that read a damaged file moves that file
/// aside, never the good one a writer stored after its read (the file system reuses a freed file's
/// inode number at once, so the good file may carry the number of the damaged file it replaced).
@Suite struct FileCacheRaceTests {
    /// Bytes that do not decode, as a crashed foreign writer might leave them.
    static let damaged = Data("[{\"USER_NAME\": ".utf8)
    static let good = User.samples(3)

    @Test(.timeLimit(.minutes(1)))
    func aReaderNeverMovesAsideAGoodFileAWriterStoredAfterItsRead() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "FileCacheRaceTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("users.json")
        let cache = FileCache<User>(url: url)
        try cache.store(Self.good)
        // The readers count themselves done on their own threads: the writers stop without waiting for
        // a cooperative thread, which the other suites may hold for long.
        let readersDone = Counter()

        async let firstWrites = onThreadOfItsOwn { try Self.write(to: cache, until: readersDone, reaches: 2) }
        async let secondWrites = onThreadOfItsOwn { try Self.write(to: cache, until: readersDone, reaches: 2) }
        async let firstReads = onThreadOfItsOwn { Self.read(cache, times: 6_000, thenCount: readersDone) }
        async let secondReads = onThreadOfItsOwn { Self.read(cache, times: 6_000, thenCount: readersDone) }
        let reads = try await [firstReads, secondReads]
        let rounds = try await firstWrites + secondWrites

        #expect(reads.allSatisfy { $0.isEmpty }, "a read returned a value that was never stored: \(reads)")
        #expect(try cache.loadAll() == Self.good, "the last write stored a good file; it must load")
        let keptAside = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.contains(".corrupt-") }
        for name in keptAside {
            let kept = try Data(contentsOf: folder.appendingPathComponent(name))
            #expect(kept == Self.damaged, "\(name), moved aside as corrupt, was a good file")
        }
        #expect(rounds > 10, "the writer must race the readers, not finish first")
    }

    /// Writes, in turn, damaged bytes directly (replacing the file, or overwriting it in place) and the
    /// good value twice through the cache, until `done` reaches `count` and the last write was a good one.
    ///
    /// - Returns: The number of writes.
    private static func write(to cache: FileCache<User>, until done: Counter, reaches count: Int) throws -> Int {
        var round = 0
        repeat {
            // Two good writes in a row: the second one's new file may take the inode number that the
            // first one freed, the number of the damaged file a reader has just read.
            switch round % 6 {
            case 0: try damaged.write(to: cache.url, options: .atomic)
            case 3: try damaged.write(to: cache.url)
            default: try cache.store(good)
            }
            round += 1
        } while done.value < count || round % 3 == 1
        return round
    }

    /// Loads `times` times, then adds one to `done`; a load may find the good value, a corrupt file or no
    /// file.
    ///
    /// - Returns: The loads that returned anything else.
    private static func read(_ cache: FileCache<User>, times: Int, thenCount done: Counter) -> [String] {
        defer { done.add() }
        var unexpected: [String] = []
        for _ in 0..<times {
            do {
                let users = try cache.loadAll()
                if users != good && !users.isEmpty { unexpected.append("\(users.count) users") }
            } catch FileCacheError.corrupt, FileCacheError.readFailed {
                continue
            } catch {
                unexpected.append("\(error)")
            }
        }
        return unexpected
    }
}

/// A count some threads add to and others read.
private final class Counter: @unchecked Sendable {
    // @unchecked: `count` is only read and written while `lock` is held.
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func add() { lock.withLock { count += 1 } }
}
