public import Foundation

/// A seeded, deterministic generator (SplitMix64) for the reliability suites: the same seed always
/// gives the same hostile inputs, so a failure names a seed that reproduces it.
///
/// ```swift
/// var random = ReliabilityRandom(seed: 42)
/// let value = random.hostileString()
/// ```
public struct ReliabilityRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; equal seeds give equal sequences.
    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Fragments that mean something to SQL, LIKE, JSON or a shell.
    public static let hostileFragments: [String] = [
        "'", "''", "\"", "\"\"", "`", "--", ";", "/*", "*/", "\\", "%", "_", "[", "]", "?", "?1", ":name", "@x", "$y",
        "\0", "\u{1}", "\n", "\r\n", "\t", " OR 1=1", "'; DROP TABLE users; --", "\"); DELETE FROM \"users\"; --",
        "NULL", "null", "é", "e\u{301}", "ß", "İ", "Σ", "日本語", "👩‍👩‍👧", "\u{FEFF}", "\u{202E}", "\u{FFFD}", "\u{10FFFF}",
        "ESCAPE", "LIKE", "GLOB", "x'00'", "X'FF'", "0x7F", "1e309", "-0", "NaN",
    ]

    /// A string made of hostile fragments and random scalars (never empty).
    ///
    /// - Parameters:
    ///   - maxParts: The most fragments or scalars joined.
    ///   - allowNUL: Whether `"\0"` may appear.
    public mutating func hostileString(maxParts: Int = 8, allowNUL: Bool = true) -> String {
        var text = ""
        let parts = Int.random(in: 1...max(1, maxParts), using: &self)
        for _ in 0..<parts {
            switch Int.random(in: 0..<4, using: &self) {
            case 0, 1:
                text += Self.hostileFragments.randomElement(using: &self)!
            case 2:
                text.unicodeScalars.append(randomScalar())
            default:
                text += String(Int.random(in: -1000...1000, using: &self))
            }
        }
        if !allowNUL { text = text.replacingOccurrences(of: "\0", with: "") }
        return text.isEmpty ? "'" : text
    }

    /// A random Unicode scalar: ASCII most of the time, then the BMP and the astral planes.
    public mutating func randomScalar() -> Unicode.Scalar {
        while true {
            let value: UInt32 =
                switch Int.random(in: 0..<10, using: &self) {
                case 0..<6: UInt32.random(in: 0...0x7F, using: &self)
                case 6..<9: UInt32.random(in: 0x80...0xFFFF, using: &self)
                default: UInt32.random(in: 0x10000...0x10FFFF, using: &self)
                }
            if let scalar = Unicode.Scalar(value) { return scalar }
        }
    }
}

/// How long the reliability suites run: `VARIABLY_RELIABILITY_SCALE=20 swift test --filter Reliability`
/// multiplies every iteration count by 20 (soak runs); CI uses 1.
public enum ReliabilityBudget {
    /// The multiplier, from `VARIABLY_RELIABILITY_SCALE` (at least 1).
    public static let scale: Int = {
        guard let text = ProcessInfo.processInfo.environment["VARIABLY_RELIABILITY_SCALE"], let value = Int(text) else {
            return 1
        }
        return max(1, value)
    }()

    /// Added to the seeds of loops that support it, from `VARIABLY_RELIABILITY_SEED_OFFSET` (0 by
    /// default): several soak runs then explore different sequences.
    public static let seedOffset: UInt64 = {
        ProcessInfo.processInfo.environment["VARIABLY_RELIABILITY_SEED_OFFSET"].flatMap { UInt64($0) } ?? 0
    }()

    /// `base` iterations times ``scale``.
    public static func iterations(_ base: Int) -> Int {
        base * scale
    }
}

/// A fresh temporary directory, removed by ``remove()``.
///
/// ```swift
/// let directory = try ReliabilityTemporaryDirectory()
/// defer { directory.remove() }
/// ```
public struct ReliabilityTemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates the directory under the system's temporary folder.
    ///
    /// - Throws: What `FileManager` throws.
    public init(prefix: String = "variably-reliability") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Removes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
