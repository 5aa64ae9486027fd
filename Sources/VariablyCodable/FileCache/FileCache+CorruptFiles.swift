import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Corrupt files

/// A cache's unreadable files, and the rule that moves aside only the file that was read.
///
/// Writers replace the cache file at any moment by renaming a new file over it, and the file system
/// gives a freed inode number to the next file created: the good file a writer stores just after a
/// damaged one was read may carry the damaged file's number. So the reader keeps the file it read open
/// until it is done with it (an open file's inode number is not given to another file), and moves a
/// file aside only when it is that file, unchanged since the read (same device, inode number, size and
/// modification time). The file is hard-linked aside first (the link names whatever is at the path),
/// checked, then taken off the path by a rename that is checked too: a writer's file taken by mistake
/// goes back, unless an even newer one arrived meanwhile (link(2) never replaces).
extension FileCache {
    /// Moves the unreadable file to `<name>.corrupt-<n>`, with the first `n` not taken, if it still is
    /// the file that was read (`identity`, taken while that file is still open).
    ///
    /// - Returns: Where the file was moved, or `nil` when it was replaced or changed since it was read.
    /// - Throws: ``FileCacheError/readFailed(file:underlying:)`` when the folder refuses the link.
    func keepAside(ifStill identity: FileIdentity) throws -> URL? {
        // Through a symbolic link, the file it points to is kept aside, beside it.
        let file = url.resolvingSymlinksInPath()
        let folder = file.deletingLastPathComponent()
        var number = 1
        var destination: URL
        while true {
            destination = folder.appendingPathComponent("\(file.lastPathComponent).corrupt-\(number)")
            if link(file.path, destination.path) == 0 { break }
            if errno == ENOENT { return nil }  // removed since it was read
            guard errno == EEXIST else {
                throw FileCacheError.readFailed(
                    file: url, underlying: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
            }
            number += 1
        }
        guard FileIdentity(of: destination) == identity else {
            unlink(destination.path)
            return nil
        }
        let taken = folder.appendingPathComponent(".\(file.lastPathComponent).taken-\(UUID().uuidString)")
        guard rename(file.path, taken.path) == 0 else { return destination }  // already gone
        // Both names exist now, so equal inode numbers mean one file.
        if FileIdentity(of: taken)?.isSameFile(as: identity) != true {
            // A writer's new file: put it back, unless an even newer one is already in place.
            _ = link(taken.path, file.path)
        }
        unlink(taken.path)
        return destination
    }
}

/// What tells a cache file from its replacement: the file (device and inode number), and its size and
/// modification time, which a write in place changes.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modificationSeconds: Int64
    let modificationNanoseconds: Int64

    /// The identity of a file from its `stat`.
    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        #if canImport(Darwin)
            modificationSeconds = Int64(status.st_mtimespec.tv_sec)
            modificationNanoseconds = Int64(status.st_mtimespec.tv_nsec)
        #else
            modificationSeconds = Int64(status.st_mtim.tv_sec)
            modificationNanoseconds = Int64(status.st_mtim.tv_nsec)
        #endif
    }

    /// The identity of the file at `file` now, not following a symbolic link; `nil` if there is none.
    init?(of file: URL) {
        var status = stat()
        guard lstat(file.path, &status) == 0 else { return nil }
        self.init(status)
    }

    /// Whether `other` is the same file, changed or not.
    func isSameFile(as other: FileIdentity) -> Bool {
        device == other.device && inode == other.inode
    }
}
