import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySync
import VariablySyncTesting
import VariablyTestSupport

// Cache files that the current model cannot read: written by an older key set, truncated, flipped,
// huge, deeply nested. Each load gives `FileCacheError.corrupt` naming the coding path, keeps the
// file aside byte for byte, and never replaces it with an empty value.

/// Version 1 of a profile, with the local keys an older release wrote.
struct ReliabilityProfileV1: VariablyCodable, Equatable, Sendable {
    var userName: String
    var email: String
    var age: Int

    init(userName: String, email: String, age: Int) {
        self.userName = userName
        self.email = email
        self.age = age
    }

    init(from container: DecodingContainer<ReliabilityProfileV1>) throws {
        userName = try container.decode(\.userName)
        email = try container.decode(\.email)
        age = try container.decode(\.age)
    }

    static let keySets = KeySets<ReliabilityProfileV1>(defaultSource: .local) {
        KeySet(.local) {
            Key(\.userName, "USERNAME")
            Key(\.email, "MAIL")
            Key(\.age, "AGE")
        }
    }
}

/// Version 2: renamed keys and a new required property, no alternatives for the old names.
struct ReliabilityProfileV2: VariablyCodable, Equatable, Sendable {
    var userName: String
    var email: String
    var age: Int
    var createdAt: Date

    init(from container: DecodingContainer<ReliabilityProfileV2>) throws {
        userName = try container.decode(\.userName)
        email = try container.decode(\.email)
        age = try container.decode(\.age)
        createdAt = try container.decode(\.createdAt)
    }

    static let keySets = KeySets<ReliabilityProfileV2>(defaultSource: .local) {
        KeySet(.local, style: .screamingSnakeCase) {
            Key(\.userName)
            Key(\.email)
            Key(\.age)
            Key(\.createdAt)
        }
    }
}

/// Version 2 done right: the old names as alternatives and a default for the new property.
struct ReliabilityProfileV2Tolerant: VariablyCodable, Equatable, Sendable {
    var userName: String
    var email: String
    var age: Int
    var createdAt: Date

    init(from container: DecodingContainer<ReliabilityProfileV2Tolerant>) throws {
        userName = try container.decode(\.userName)
        email = try container.decode(\.email)
        age = try container.decode(\.age)
        createdAt = try container.decode(\.createdAt, default: Date(timeIntervalSince1970: 0))
    }

    static let keySets = KeySets<ReliabilityProfileV2Tolerant>(defaultSource: .local) {
        KeySet(.local) {
            Key(\.userName, ["USER_NAME", "USERNAME"])
            Key(\.email, ["EMAIL", "MAIL"])
            Key(\.age, "AGE")
            Key(\.createdAt, "CREATED_AT")
        }
    }
}

@Suite("Reliability: file cache bad input")
struct ReliabilityFileCacheBadInputTests {
    static let profiles = (0..<20).map {
        ReliabilityProfileV1(userName: "user\($0)", email: "u\($0)@example.com", age: 20 + $0)
    }

    @Test(arguments: [FileCache<ReliabilityProfileV1>.Format.json, .propertyList])
    func olderKeySetGivesATypedErrorAndKeepsTheFile(_ format: FileCache<ReliabilityProfileV1>.Format) throws {
        let directory = try ReliabilityTemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("profiles.cache")
        try FileCache<ReliabilityProfileV1>(url: url, format: format).store(Self.profiles)
        let original = try Data(contentsOf: url)
        let newFormat: FileCache<ReliabilityProfileV2>.Format = format == .json ? .json : .propertyList
        let current = FileCache<ReliabilityProfileV2>(url: url, format: newFormat)
        do {
            _ = try current.loadAll()
            Issue.record("a cache of the older key set loaded")
        } catch FileCacheError.corrupt(let file, let keptAt, let codingPath, let underlying) {
            #expect(file == url)
            #expect(codingPath.hasPrefix("[0]"), "\(codingPath)")
            #expect(codingPath.contains("USER_NAME"), "\(codingPath)")
            let error = try #require(underlying as? VariablyCodingError)
            #expect(error.source == .local)
            #expect(error.propertyName == "userName")
            #expect(error.reason == .keyNotFound)
            // Kept aside byte for byte, not replaced with an empty cache.
            #expect(try Data(contentsOf: keptAt) == original)
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
        #expect(try current.loadAll() == [])
        // The documented upgrade path: alternative keys and a default read the old file.
        let keptAt = url.deletingLastPathComponent().appendingPathComponent("profiles.cache.corrupt-1")
        try FileManager.default.moveItem(at: keptAt, to: url)
        let tolerantFormat: FileCache<ReliabilityProfileV2Tolerant>.Format = format == .json ? .json : .propertyList
        let upgraded = try FileCache<ReliabilityProfileV2Tolerant>(url: url, format: tolerantFormat).loadAll()
        #expect(upgraded.map(\.userName) == Self.profiles.map(\.userName))
        #expect(upgraded.map(\.email) == Self.profiles.map(\.email))
    }

    /// Damaged files: each gives `.corrupt` with the file kept aside, never a crash or an empty value.
    @Test(arguments: [FileCache<ReliabilityProfileV1>.Format.json, .propertyList])
    func damagedFilesGiveTypedErrors(_ format: FileCache<ReliabilityProfileV1>.Format) throws {
        let directory = try ReliabilityTemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("profiles.cache")
        let cache = FileCache<ReliabilityProfileV1>(url: url, format: format)
        try cache.store(Self.profiles)
        // JSON is written with sorted keys; a binary plist's key order follows the process's hash
        // seed, so a fixed file keeps the corruptions (and their outcome) the same in every run.
        let valid = format == .json ? try Data(contentsOf: url) : Self.fixedBinaryPropertyList
        var random = ReliabilityRandom(seed: format == .json ? 31 : 32)
        var damaged: [Data] = [Data(), Data("{".utf8), Data(repeating: 0, count: 4096)]
        damaged += stride(from: 1, to: valid.count, by: max(1, valid.count / 40)).map { valid.prefix($0) }
        for _ in 0..<ReliabilityBudget.iterations(60) {
            var bytes = [UInt8](valid)
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            damaged.append(Data(bytes))
        }
        damaged.append(Data((String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).utf8))
        damaged.append(Data(("[{\"USERNAME\":\"" + String(repeating: "x", count: 10 * 1024 * 1024) + "\"}]").utf8))
        var corrupt = 0
        var loaded = 0
        for (index, data) in damaged.enumerated() {
            try data.write(to: url)
            do {
                // A flipped byte inside a string value may still be a valid file: that is a load.
                _ = try cache.loadAll()
                loaded += 1
            } catch FileCacheError.corrupt(_, let keptAt, _, _) {
                corrupt += 1
                #expect(try Data(contentsOf: keptAt) == data, "input \(index)")
                try FileManager.default.removeItem(at: keptAt)
            }
        }
        #expect(corrupt + loaded == damaged.count)
        #expect(corrupt >= damaged.count / 2)
        reportFigure(
            "file cache \(format): \(damaged.count) damaged files, \(corrupt) corrupt (kept aside), \(loaded) still readable"
        )
    }

    /// Three `ReliabilityProfileV1` in the local keys, as a binary plist fixed once.
    static let fixedBinaryPropertyList = Data(
        base64Encoded:
            "YnBsaXN0MDCjAQgM0wIDBAUGB1hVU0VSTkFNRVRNQUlMU0FHRVV1c2VyMF51MEBleGFtcGxlLmNvbRAU0wIDBAkKC1V1c2VyMV51MUBleGFtcGxlLmNvbRAV0wIDBA0OD1V1c2VyMl51MkBleGFtcGxlLmNvbRAWCAwTHCElKzo8Q0lYWmFndgAAAAAAAAEBAAAAAAAAABAAAAAAAAAAAAAAAAAAAAB4"
    )!

    @Test func fixedBinaryPropertyListLoads() throws {
        let directory = try ReliabilityTemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("profiles.plist")
        try Self.fixedBinaryPropertyList.write(to: url)
        #expect(
            try FileCache<ReliabilityProfileV1>(url: url, format: .propertyList).loadAll()
                == Array(Self.profiles.prefix(3)))
    }

    // A corrupted binary plist on which Foundation's binary plist scanner traps (SIGILL), see
    // ReliabilityBadPropertyListCorpusTests.crashingBinaryPropertyList.
    @Test
    func corruptedBinaryPropertyListCacheIsCorrupt() throws {
        let directory = try ReliabilityTemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("user.plist")
        let crashing = Data(
            base64Encoded:
                "YnBsaXN0MDDZAQIDBAUGBwgJCgsMDQ4PEhMUUklEWUlTX0FDVElWRVlVU0VSX05BTUVaQ1JFQVRFRF9BVFhOSUNLTkFNRVRUQUdTU0FHRVVFTUFJTFVTQ09SRRACCVV1c2VyMTNBxYIUXgAAAFVuaWM/MaIQEVR0YWcxVmdyb3VwMd8TXxARdXNlcjFAZXhhbXBsZS5jb20jP8AAAAAAAAAIGx4oMj1GS09VW11eZG1zdnuChJgAAAAAAAABAQAAAAAAAAAVAAAAAAAAAAAAAAAAAAAAoQ=="
        )!
        try crashing.write(to: url)
        #expect(throws: FileCacheError.self) { try FileCache<User>(url: url, format: .propertyList).load() }
    }

    // See ReliabilityBadPropertyListCorpusTests: Foundation's XML plist reader overflows the stack on
    // deep nesting, so a damaged property-list cache kills the app instead of giving `.corrupt`.
    @Test
    func deeplyNestedPropertyListCacheIsCorrupt() throws {
        let directory = try ReliabilityTemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("profiles.plist")
        let xml =
            #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"#
            + String(repeating: "<array>", count: 10_000)
            + String(repeating: "</array>", count: 10_000) + "</plist>"
        try Data(xml.utf8).write(to: url)
        #expect(throws: FileCacheError.self) {
            try FileCache<ReliabilityProfileV1>(url: url, format: .propertyList).loadAll()
        }
    }
}
