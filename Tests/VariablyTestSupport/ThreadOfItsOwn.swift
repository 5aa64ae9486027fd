import Foundation

/// Runs `body`, which blocks (a child process starting, a pipe read with a deadline), on a thread of its
/// own, and waits for it without holding one of Swift's cooperative threads.
///
/// The cooperative pool has one thread per core: on a two-core machine, two tests blocked in a
/// server's start hold the whole pool, and every other test (and every URLSession callback scheduled
/// behind them) waits until they end.
///
/// ```swift
/// let server = try await onThreadOfItsOwn { try PythonScriptProcess(script: script, arguments: [], name: "echo") }
/// ```
package func onThreadOfItsOwn<T>(_ body: @escaping @Sendable () throws -> sending T) async throws -> sending T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
