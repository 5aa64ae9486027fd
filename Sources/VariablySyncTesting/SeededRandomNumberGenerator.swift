import VariablySync

/// A small, fast, seeded random number generator (SplitMix64): the same seed gives the same sequence
/// on every platform, which keeps ``SimulatedServer`` reproducible in tests and demos.
///
/// ```swift
/// var random = SeededRandomNumberGenerator(seed: 42)
/// let roll = Double.random(in: 0..<1, using: &random)
/// ```
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var base: SplitMix64

    /// Creates a generator whose sequence is determined by `seed`.
    public init(seed: UInt64) {
        base = SplitMix64(seed: seed)
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        base.next()
    }
}
