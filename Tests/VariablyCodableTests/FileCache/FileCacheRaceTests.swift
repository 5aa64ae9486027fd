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

    // Synchronous, on threads of its own joined here: the test ends when the race does, not when a
    // cooperative thread (which other suites may hold for long) is free to resume it.
    @Test(.timeLimit(.minutes(1)))
    func aReaderNeverMovesAsideAGoodFileAWriterStoredAfterItsRead() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "FileCacheRaceTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = FileCache<User>(url: folder.appendingPathComponent("users.json"))
        try cache.store(Self.good)
        let race = RaceRecord()
        // A bound on a busy machine; alone, the 12,000 loads take about two seconds.
        let deadline = Date().addingTimeInterval(10)
        let group = DispatchGroup()
        for _ in 0..<2 {
            Self.onThread(in: group) {
                do { race.addWrites(try Self.write(to: cache, untilReadersDoneIn: race)) } catch {
                    race.addUnexpected("a write failed: \(error)")
                }
            }
            Self.onThread(in: group) {
                Self.read(cache, times: 6_000, before: deadline, into: race)
                race.addFinishedReader()
            }
        }
        group.wait()

        #expect(race.unexpected.isEmpty, "\(race.unexpected)")
        #expect(try cache.loadAll() == Self.good, "the last write stored a good file; it must load")
        let keptAside = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.contains(".corrupt-") }
        for name in keptAside {
            let kept = try Data(contentsOf: folder.appendingPathComponent(name))
            #expect(kept == Self.damaged, "\(name), moved aside as corrupt, was a good file")
        }
        #expect(race.writes > 10, "the writers must race the readers, not finish first")
    }

    /// Runs `body` on a thread of its own, inside `group`.
    private static func onThread(in group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread {
            body()
            group.leave()
        }.start()
    }

    /// Writes, in turn, damaged bytes directly (replacing the file, or overwriting it in place) and the
    /// good value twice through the cache, until both readers are done and the last write was a good one.
    ///
    /// - Returns: The number of writes.
    private static func write(to cache: FileCache<User>, untilReadersDoneIn race: RaceRecord) throws -> Int {
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
        } while race.finishedReaders < 2 || round % 3 == 1
        return round
    }

    /// Loads `times` times, or until `deadline`; a load may find the good value, a corrupt file or no
    /// file, and anything else goes to `race`.
    private static func read(_ cache: FileCache<User>, times: Int, before deadline: Date, into race: RaceRecord) {
        for _ in 0..<times where Date() < deadline {
            do {
                let users = try cache.loadAll()
                if users != good && !users.isEmpty { race.addUnexpected("a load returned \(users.count) users") }
            } catch FileCacheError.corrupt, FileCacheError.readFailed {
                continue
            } catch {
                race.addUnexpected("a load threw \(error)")
            }
        }
    }
}

/// What the race's threads report: their writes, the readers done and anything unexpected.
private final class RaceRecord: @unchecked Sendable {
    // @unchecked: every stored property is only read and written while `lock` is held.
    private let lock = NSLock()
    private var writeCount = 0
    private var finishedReaderCount = 0
    private var unexpectedEvents: [String] = []

    var writes: Int { lock.withLock { writeCount } }
    var finishedReaders: Int { lock.withLock { finishedReaderCount } }
    var unexpected: [String] { lock.withLock { unexpectedEvents } }

    func addWrites(_ count: Int) { lock.withLock { writeCount += count } }
    func addFinishedReader() { lock.withLock { finishedReaderCount += 1 } }
    func addUnexpected(_ event: String) { lock.withLock { unexpectedEvents.append(event) } }
}
