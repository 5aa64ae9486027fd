package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Temporary files

/// A cache's temporary files, and the rule that tells a dead writer's from a live one's.
///
/// A writer writes `.<name>.tmp-<pid>-<uuid>` beside the cache file, its process id in the name, and
/// holds an exclusive `flock(2)` lock on it from just after creating it until it is renamed into
/// place. The kernel drops the lock when the writer ends, however it ends (SIGKILL included). A
/// temporary file of the cache is removed when both hold:
///
/// 1. no process holds its lock: no writer is between writing it and renaming it;
/// 2. its writer is gone: the process id in its name is not running (`kill(pid, 0)` fails with
///    `ESRCH`), or the file is older than ``FileCache/abandonedTemporaryFileAge`` (the process id was
///    reused since, or the name, from an earlier version, carries none).
///
/// Either rule alone could take a live writer's file: the lock is not yet taken in the instant
/// between a writer's `open` and its `flock`, when its process id is running; a process id means
/// nothing to another pid namespace (a container sharing the folder), whose live writer holds the lock.
/// Only files whose names follow the pattern are touched.
extension FileCache {
    /// How old a writer's temporary file must be before it is removed without its process id being
    /// known dead: far longer than any write takes.
    static var abandonedTemporaryFileAge: TimeInterval { 600 }

    /// The beginning of the names of the temporary files of the cache file `target`.
    static func temporaryPrefix(of target: URL) -> String { ".\(target.lastPathComponent).tmp-" }

    /// Creates a temporary file beside `target` (`.<name>.tmp-<pid>-<uuid>`), locks it and writes
    /// `data` to it. The caller renames it and then closes the descriptor, which releases the lock.
    ///
    /// - Returns: The file and its open descriptor.
    package static func makeLockedTemporaryFile(for target: URL, data: Data) throws -> (url: URL, descriptor: Int32) {
        let name = temporaryPrefix(of: target) + "\(getpid())-\(UUID().uuidString)"
        let url = target.deletingLastPathComponent().appendingPathComponent(name)
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw Self.lastPOSIXError() }
        do {
            guard flock(descriptor, LOCK_EX) == 0 else { throw Self.lastPOSIXError() }
            try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                guard let base = raw.baseAddress else { return }
                var written = 0
                while written < raw.count {
                    let result = Self.systemWrite(descriptor, base + written, raw.count - written)
                    if result < 0 {
                        if errno == EINTR { continue }
                        throw Self.lastPOSIXError()
                    }
                    written += result
                }
            }
        } catch {
            close(descriptor)
            unlink(url.path)
            throw error
        }
        return (url, descriptor)
    }

    /// Removes the temporary files that dead writers left beside `target` (see the rule above).
    ///
    /// - Complexity: One listing of the folder; one `open`, `flock` and `kill(pid, 0)` per temporary
    ///   file of this cache.
    static func removeAbandonedTemporaryFiles(of target: URL) {
        let folder = target.deletingLastPathComponent()
        let prefix = temporaryPrefix(of: target)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        let cutoff = Date().addingTimeInterval(-abandonedTemporaryFileAge)
        for name in names where name.hasPrefix(prefix) {
            let path = folder.appendingPathComponent(name).path
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            // Held: a writer is between writing and renaming it.
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }
            let isWriterDead = writerProcess(inName: name.dropFirst(prefix.count)).map {
                kill($0, 0) != 0 && errno == ESRCH
            }
            var status = stat()
            let isOld =
                fstat(descriptor, &status) == 0
                && Date(timeIntervalSince1970: TimeInterval(Self.modificationSeconds(status))) < cutoff
            if isWriterDead == true || isOld { unlink(path) }
        }
    }

    /// The process id in `<pid>-<uuid>`, `nil` for any other name (those of earlier versions).
    private static func writerProcess(inName suffix: Substring) -> pid_t? {
        let parts = suffix.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, UUID(uuidString: String(parts[1])) != nil, let pid = pid_t(parts[0]), pid > 0 else {
            return nil
        }
        return pid
    }

    private static func modificationSeconds(_ status: stat) -> Int {
        #if canImport(Darwin)
            Int(status.st_mtimespec.tv_sec)
        #else
            Int(status.st_mtim.tv_sec)
        #endif
    }

    private static func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
            Darwin.write(descriptor, buffer, count)
        #else
            Glibc.write(descriptor, buffer, count)
        #endif
    }

    static func lastPOSIXError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
