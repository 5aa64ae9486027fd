import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body` with every thread of the process (and those it starts meanwhile) confined to one CPU,
/// then gives them back every CPU they had: the same work timed on one core and on all of them, in
/// one run. Linux only; elsewhere `body` runs unconfined.
func onOneCore<T>(_ body: () throws -> T) rethrows -> T {
    #if os(Linux)
        // Glibc declares these only under _GNU_SOURCE, which Swift's Glibc module does not define.
        typealias Affinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer?) -> Int32
        guard let getSymbol = dlsym(dlopen(nil, RTLD_NOW), "sched_getaffinity"),
            let setSymbol = dlsym(dlopen(nil, RTLD_NOW), "sched_setaffinity")
        else { return try body() }
        let sched_getaffinity = unsafeBitCast(getSymbol, to: Affinity.self)
        let sched_setaffinity = unsafeBitCast(setSymbol, to: Affinity.self)
        var original = cpu_set_t()
        guard sched_getaffinity(0, MemoryLayout<cpu_set_t>.size, &original) == 0 else { return try body() }
        var single = cpu_set_t()
        // The lowest CPU the process may use: cpu_set_t is a bit mask, bit n for CPU n.
        withUnsafeBytes(of: original) { source in
            withUnsafeMutableBytes(of: &single) { target in
                for (index, byte) in source.enumerated() where byte != 0 {
                    target[index] = byte & (~byte &+ 1)
                    break
                }
            }
        }
        func setEveryThread(_ mask: inout cpu_set_t) {
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            for thread in threads.compactMap({ pid_t($0) }) {
                _ = sched_setaffinity(thread, MemoryLayout<cpu_set_t>.size, &mask)
            }
        }
        setEveryThread(&single)
        defer { setEveryThread(&original) }
    #endif
    return try body()
}
