import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct FileCacheTests {
    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "FileCacheTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test(arguments: [FileCache<User>.Format.json, .propertyList])
    func roundTripsOneUserAndACollection(format: FileCache<User>.Format) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let single = FileCache<User>(url: folder.appendingPathComponent("current"), format: format)
        let many = FileCache<User>(url: folder.appendingPathComponent("recent"), format: format)
        #expect(try single.load() == nil)
        #expect(try many.loadAll() == [])
        try single.store(User.sample(7))
        try many.store(User.samples(50))
        #expect(try single.load() == User.sample(7))
        #expect(try many.loadAll() == User.samples(50))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "temporary files must be renamed into place")
    }

    @Test func jsonFileUsesTheLocalKeys() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = FileCache<User>(url: folder.appendingPathComponent("user.json"))
        try cache.store(User.sample(1))
        let text = try String(contentsOf: cache.url, encoding: .utf8)
        #expect(text.contains("\"USER_NAME\" : \"user1\""))
        #expect(text.contains("\"IS_ACTIVE\""))
        #expect(!text.contains("user_name"))
    }

    @Test func storeReplacesThePreviousFileWhole() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = FileCache<User>(url: folder.appendingPathComponent("users.json"))
        try cache.store(User.samples(100))
        try cache.store(User.samples(2))
        #expect(try cache.loadAll() == User.samples(2))
    }

    @Test func corruptFileThrowsNamesThePathAndIsKeptAside() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = FileCache<User>(url: folder.appendingPathComponent("users.json"))
        try cache.store(User.samples(5))
        var text = try String(contentsOf: cache.url, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"USER_NAME\" : \"user3\"", with: "\"USER_NAME\" : 3")
        try Data(text.utf8).write(to: cache.url)

        do {
            _ = try cache.loadAll()
            Issue.record("a corrupt file must throw")
        } catch let FileCacheError.corrupt(file, keptAt, codingPath, underlying) {
            #expect(file == cache.url)
            #expect(codingPath == "[3].USER_NAME")
            #expect(underlying is VariablyCodingError)
            #expect(keptAt.lastPathComponent == "users.json.corrupt-1")
            #expect(try String(contentsOf: keptAt, encoding: .utf8) == text)
        }
        #expect(!FileManager.default.fileExists(atPath: cache.url.path))
        try cache.store(User.samples(1))
        #expect(try cache.loadAll() == User.samples(1))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("users.json.corrupt-1").path))
    }

    @Test func unparsableFileReportsTheTopLevel() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = FileCache<User>(url: folder.appendingPathComponent("user.json"))
        try Data("{ not json".utf8).write(to: cache.url)
        let error = try #require(throws: FileCacheError.self) { try cache.load() }
        #expect("\(error)".contains("user.json is corrupt at top level"))
        try Data("{ not json".utf8).write(to: cache.url)
        guard
            case .corrupt(_, let keptAt, _, _) = try #require(
                throws: FileCacheError.self, performing: { try cache.load() })
        else {
            Issue.record("expected corrupt")
            return
        }
        #expect(keptAt.lastPathComponent == "user.json.corrupt-2")
    }

    @Test func corruptPropertyListIsKeptAsideToo() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = FileCache<User>(url: folder.appendingPathComponent("users.plist"), format: .propertyList)
        try cache.store(User.samples(3))
        let original = try Data(contentsOf: cache.url)
        try Data(original.prefix(original.count / 2)).write(to: cache.url)
        let error = try #require(throws: FileCacheError.self) { try cache.loadAll() }
        guard case .corrupt(let file, let keptAt, _, _) = error else {
            Issue.record("expected corrupt, got \(error)")
            return
        }
        #expect(file == cache.url)
        #expect(try Data(contentsOf: keptAt) == Data(original.prefix(original.count / 2)))
        #expect(try cache.loadAll() == [], "the corrupt file is aside, not replaced by an empty one")
    }

    @Test func deeplyNestedXMLPropertyListIsCorruptNotACrash() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = FileCache<User>(url: folder.appendingPathComponent("users.plist"), format: .propertyList)
        let xml =
            #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"#
            + String(repeating: "<array>", count: 10_000)
            + String(repeating: "</array>", count: 10_000) + "</plist>"
        try Data(xml.utf8).write(to: cache.url)
        let error = try #require(throws: FileCacheError.self) { try cache.loadAll() }
        #expect("\(error)".contains("deeper than 512"))

        let shallow = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><array></array></plist>"#
        try Data(shallow.utf8).write(to: cache.url)
        #expect(try cache.loadAll() == [])
    }

    @Test func damagedBinaryPropertyListIsCorruptNotACrash() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = FileCache<User>(url: folder.appendingPathComponent("user.plist"), format: .propertyList)
        // A dictionary whose count runs past the end of the file: Foundation's reader traps on it.
        let damaged = try #require(
            Data(
                base64Encoded:
                    "YnBsaXN0MDDZAQIDBAUGBwgJCgsMDQ4PEhMUUklEWUlTX0FDVElWRVlVU0VSX05BTUVaQ1JFQVRFRF9BVFhOSUNLTkFNRVRUQUdTU0FHRVVFTUFJTFVTQ09SRRACCVV1c2VyMTNBxYIUXgAAAFVuaWM/MaIQEVR0YWcxVmdyb3VwMd8TXxARdXNlcjFAZXhhbXBsZS5jb20jP8AAAAAAAAAIGx4oMj1GS09VW11eZG1zdnuChJgAAAAAAAABAQAAAAAAAAAVAAAAAAAAAAAAAAAAAAAAoQ=="
            ))
        try damaged.write(to: cache.url)
        let error = try #require(throws: FileCacheError.self) { try cache.load() }
        #expect("\(error)".contains("binary property list is damaged"))

        try cache.store(User.samples(20))
        #expect(try cache.loadAll() == User.samples(20), "sound files still pass the check")
    }

    @Test func binaryPropertyListThatExpandsExponentiallyIsCorrupt() throws {
        // 80 arrays, each holding the previous one twice: 2^80 values once expanded.
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = [bytes.count]
        bytes += [0x10, 0x01]
        for index in 1...80 {
            offsets.append(bytes.count)
            bytes += [0xA2, UInt8(index - 1), UInt8(index - 1)]
        }
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1]  // unused, sort version, offset size 2, reference size 1
        for value in [offsets.count, offsets.count - 1, table] {
            bytes += (0..<8).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) }
        }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = FileCache<User>(url: folder.appendingPathComponent("bomb.plist"), format: .propertyList)
        try Data(bytes).write(to: cache.url)
        let error = try #require(throws: FileCacheError.self) { try cache.loadAll() }
        #expect("\(error)".contains("expands to more than"))
    }

    @Test func aSymbolicLinkIsWrittenThroughAndKept() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let real = folder.appendingPathComponent("data").appendingPathComponent("users.json")
        let link = folder.appendingPathComponent("users.json")
        try FileManager.default.createDirectory(at: real.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("[]".utf8).write(to: real)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        let cache = FileCache<User>(url: link)
        try cache.store(User.samples(3))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == real.path)
        #expect(try FileCache<User>(url: real).loadAll() == User.samples(3))
        #expect(try cache.loadAll() == User.samples(3))
    }

    // MARK: - Size limit

    /// The file and kind of the `FileCacheError.notARegularFile` that `body` throws.
    private func notARegularFile(_ body: () throws -> some Any) -> (file: URL, kind: String)? {
        do {
            _ = try body()
        } catch FileCacheError.notARegularFile(let file, let kind) {
            return (file, kind)
        } catch {
            Issue.record("expected notARegularFile, got \(error)")
        }
        return nil
    }

    /// The file, size and limit of the `FileCacheError.tooLarge` that `body` throws.
    private func tooLarge(_ body: () throws -> some Any) -> (file: URL, size: Int, limit: Int)? {
        do {
            _ = try body()
        } catch FileCacheError.tooLarge(let file, let size, let limit) {
            return (file, size, limit)
        } catch {
            Issue.record("expected FileCacheError.tooLarge, got \(error)")
        }
        return nil
    }

    /// Every `.corrupt-` file beside the cache's.
    private func keptAside(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".corrupt-") }
    }

    @Test func aFileLargerThanTheLimitIsRefusedBeforeItIsReadAndKept() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = FileCache<User>(url: folder.appendingPathComponent("users.json"))
        // 2 GiB, sparse: no disk is used, and reading it would take 2 GiB of memory.
        let size = 2 << 30
        #expect(FileManager.default.createFile(atPath: cache.url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: cache.url)
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        for refused in [tooLarge { try cache.loadAll() }, tooLarge { try cache.load() }] {
            #expect(refused?.file == cache.url && refused?.size == size && refused?.limit == 256 << 20)
        }
        let error = try #require(throws: FileCacheError.self) { try cache.loadAll() }
        #expect("\(error)".contains("users.json: 2147483648 bytes, more than the cache's limit of 268435456 bytes"))
        #expect(try FileManager.default.attributesOfItem(atPath: cache.url.path)[.size] as? Int == size)
        #expect(try keptAside(in: folder).isEmpty, "a file too large is not corrupt: it stays where it is")
    }

    /// A link to `/dev/zero` was read up to the limit (256 MiB by default) before it was refused.
    @Test func aLinkToAnEndlessDeviceIsRefusedBeforeAnyByteIsRead() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("users.json")
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: "/dev/zero")
        let cache = FileCache<User>(url: url)
        #expect(
            notARegularFile { try cache.loadAll() }.map { $0.file == url && $0.kind == "a character device" } == true)
        #expect(notARegularFile { try cache.load() }.map { $0.file == url && $0.kind == "a character device" } == true)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: url.path) == "/dev/zero")
    }

    /// A FIFO at the path made `loadAll()` wait forever for a writer.
    @Test(.timeLimit(.minutes(1))) func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("users.json")
        #expect(mkfifo(url.path, 0o600) == 0)
        let cache = FileCache<User>(url: url)
        #expect(notARegularFile { try cache.loadAll() }.map { $0.file == url && $0.kind == "a FIFO" } == true)
        let error = try #require(throws: FileCacheError.self) { try cache.load() }
        #expect(error.file == url)
        #expect(error.description.contains("users.json is a FIFO, not a regular file"), "\(error)")
        // Left as it is: still a FIFO, nothing kept aside.
        var status = stat()
        #expect(lstat(url.path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["users.json"])
    }

    @Test func aFolderAtThePathIsRefused() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("users.json")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        #expect(
            notARegularFile { try FileCache<User>(url: url).loadAll() }.map { $0.file == url && $0.kind == "a folder" }
                == true)
    }

    @Test func aValueLargerThanTheLimitIsNotWritten() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = FileCache<User>(url: folder.appendingPathComponent("users.json"), maximumFileSize: 4_096)
        try cache.store(User.samples(2))
        let refused = tooLarge { try cache.store(User.samples(100)) }
        #expect(refused?.file == cache.url && refused.map { $0.size > 4_096 } == true && refused?.limit == 4_096)
        #expect(try cache.loadAll() == User.samples(2))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["users.json"])
    }

    // MARK: - Temporary files

    @Test func aWriteRemovesTemporaryFilesOfKilledWritersOnly() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = FileCache<User>(url: folder.appendingPathComponent("users.json"))
        let abandoned = folder.appendingPathComponent(".users.json.tmp-ABANDONED")
        let inFlight = folder.appendingPathComponent(".users.json.tmp-IN-FLIGHT")
        try Data("{".utf8).write(to: abandoned)
        try Data("{".utf8).write(to: inFlight)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-3_600)], ofItemAtPath: abandoned.path)
        try cache.store(User.samples(2))
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
        // A recent one may belong to a writer still running in another process.
        #expect(FileManager.default.fileExists(atPath: inFlight.path))
    }

    @Test func onlyDamagedFilesAreKeptAsideWhileAWriterReplacesThem() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("users.json")
        let cache = FileCache<User>(url: url)
        try cache.store(User.samples(20))
        let writer = Task.detached {
            for round in 0..<150 {
                if round % 2 == 0 {
                    // A damaged file, replaced atomically as a crashed foreign writer might leave it.
                    try Data("[{\"USER_NAME\": ".utf8).write(to: url, options: .atomic)
                } else {
                    try cache.store(User.samples(20))
                }
            }
        }
        for _ in 0..<300 {
            _ = try? cache.loadAll()
        }
        try await writer.value
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.contains(".corrupt-") {
            let kept = try Data(contentsOf: folder.appendingPathComponent(name))
            #expect(throws: (any Error).self, "\(name) was a good file") {
                try JSONDecoder(source: .local).decode([User].self, from: kept)
            }
        }
    }
}
