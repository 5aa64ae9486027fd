// The harnesses' model is the example domain's `User`: Fuzz/run compiles Samples/UserSyncModels into
// each harness.

/// Traps with `message` so that libFuzzer records the input as a crash.
func fuzzFailure(_ message: String) -> Never {
    fatalError("fuzz invariant broken: \(message)")
}
