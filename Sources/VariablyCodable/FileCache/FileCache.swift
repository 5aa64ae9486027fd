public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value or a collection of models kept in one file, as JSON or a property list, in the model's
/// ``CodingSource/local`` key set (or another source you name).
///
/// Writes are atomic: the data goes to a temporary file in the same folder, which is then renamed over
/// the old one, so a crash leaves either the old file or the new one. A file that no longer decodes
/// throws ``FileCacheError/corrupt(file:keptAt:codingPath:underlying:)`` and is moved aside for
/// inspection; it is never silently replaced by an empty value. A file replaced by a writer while it
/// was being read is read again, not moved aside. Through a symbolic link, the file it points to is
/// replaced and the link kept. Every read and write first removes the temporary files that dead
/// writers left behind (killed between writing and renaming), and only those: a temporary file names
/// its writer's process id and stays locked while its writer lives (see `FileCache+TemporaryFiles.swift`). A file larger than `maximumFileSize` is refused before it is read
/// (``FileCacheError/tooLarge(file:size:limit:)``) and left as it is; so is a value whose encoding
/// would be larger, so that the cache never writes a file it would refuse to read.
///
/// ```swift
/// let cache = FileCache<User>(url: folder.appendingPathComponent("current-user.json"))
/// try cache.store(user)                      // {"AGE": 36, "EMAIL": ..., "USER_NAME": "ada"}
/// let restored = try cache.load()            // User?
/// ```
public struct FileCache<Model: VariablyCodable & Sendable>: Sendable {
    /// How the file is written.
    public enum Format: Sendable, Equatable {
        /// JSON, pretty-printed with sorted keys so that diffs stay readable.
        case json
        /// A binary property list.
        case propertyList
    }

    /// The file.
    public let url: URL
    /// How the file is written.
    package let format: Format
    /// The key set the file uses.
    package let source: CodingSource
    /// The largest file read or written, in bytes.
    package let maximumFileSize: Int

    /// Creates a cache for the file at `url`; nothing is read or written yet.
    ///
    /// ```swift
    /// let cache = FileCache<User>(url: url, format: .propertyList)
    /// ```
    ///
    /// - Parameters:
    ///   - url: The file.
    ///   - format: JSON or a property list.
    ///   - source: The key set to use; ``CodingSource/local`` by default.
    ///   - maximumFileSize: The largest file read or written, in bytes (256 MiB by default): a larger file
    ///     throws ``FileCacheError/tooLarge(file:size:limit:)`` before any of it is read into memory.
    public init(url: URL, format: Format = .json, source: CodingSource = .local, maximumFileSize: Int = 256 << 20) {
        precondition(maximumFileSize > 0, "FileCache needs a maximumFileSize of at least one byte.")
        self.url = url
        self.format = format
        self.source = source
        self.maximumFileSize = maximumFileSize
    }

    // MARK: - Reading and writing

    /// Writes one model, atomically.
    ///
    /// ```swift
    /// try cache.store(currentUser)
    /// ```
    ///
    /// - Throws: ``FileCacheError/writeFailed(file:underlying:)``, ``FileCacheError/tooLarge(file:size:limit:)``
    ///   (the previous file is left as it is) or the model's encoding error.
    public func store(_ value: Model) throws {
        try write(value)
    }

    /// Writes a collection of models, atomically.
    ///
    /// ```swift
    /// try cache.store(recentUsers)
    /// ```
    ///
    /// - Throws: ``FileCacheError/writeFailed(file:underlying:)``, ``FileCacheError/tooLarge(file:size:limit:)``
    ///   (the previous file is left as it is) or the models' encoding error.
    /// - Complexity: O(n).
    public func store(_ values: [Model]) throws {
        try write(values)
    }

    /// Reads the model stored by ``store(_:)-(Model)``, or `nil` if there is no file.
    ///
    /// ```swift
    /// if let user = try cache.load() { print(user.userName) }
    /// ```
    ///
    /// - Throws: ``FileCacheError/corrupt(file:keptAt:codingPath:underlying:)`` after moving the file
    ///   aside, ``FileCacheError/tooLarge(file:size:limit:)`` or
    ///   ``FileCacheError/notARegularFile(file:kind:)`` without reading the file, or
    ///   ``FileCacheError/readFailed(file:underlying:)``.
    public func load() throws -> Model? {
        try read(Model.self)
    }

    /// Reads the collection stored by ``store(_:)-([Model])``, or an empty array if there is no file.
    ///
    /// ```swift
    /// let users = try cache.loadAll()
    /// ```
    ///
    /// - Throws: ``FileCacheError/corrupt(file:keptAt:codingPath:underlying:)`` after moving the file
    ///   aside, ``FileCacheError/tooLarge(file:size:limit:)`` or
    ///   ``FileCacheError/notARegularFile(file:kind:)`` without reading the file, or
    ///   ``FileCacheError/readFailed(file:underlying:)``.
    /// - Complexity: O(n).
    public func loadAll() throws -> [Model] {
        try read([Model].self) ?? []
    }

    /// Deletes the file if it exists.
    ///
    /// - Throws: ``FileCacheError/writeFailed(file:underlying:)``.
    public func remove() throws {
        do {
            if FileManager.default.fileExists(atPath: url.path) {
                try FileManager.default.removeItem(at: url)
            }
        } catch {
            throw FileCacheError.writeFailed(file: url, underlying: error)
        }
    }

    // MARK: - Internals

    private func write(_ value: some Encodable) throws {
        let data: Data
        switch format {
        case .json:
            let encoder = JSONEncoder(source: source)
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            data = try encoder.encode(value)
        case .propertyList:
            let encoder = PropertyListEncoder(source: source)
            encoder.outputFormat = .binary
            data = try encoder.encode(value)
        }
        guard data.count <= maximumFileSize else {
            throw FileCacheError.tooLarge(file: url, size: data.count, limit: maximumFileSize)
        }
        // Through a symbolic link, the file it points to is replaced and the link stays.
        let target = url.resolvingSymlinksInPath()
        let folder = target.deletingLastPathComponent()
        var temporary: (url: URL, descriptor: Int32)?
        // Closed after the rename: the lock on the temporary file is held until it is in place.
        defer { if let temporary { close(temporary.descriptor) } }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            Self.removeAbandonedTemporaryFiles(of: target)
            let written = try Self.makeLockedTemporaryFile(for: target, data: data)
            temporary = written
            // rename(2) replaces the destination atomically on the same file system.
            guard rename(written.url.path, target.path) == 0 else { throw Self.lastPOSIXError() }
        } catch {
            if let temporary { unlink(temporary.url.path) }
            throw FileCacheError.writeFailed(file: url, underlying: error)
        }
    }

    /// What a file of type `type` (`st_mode & S_IFMT`) is, in words.
    private static func kind(of type: mode_t) -> String {
        switch type {
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFDIR: return "a folder"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }

    private func read<Value: Decodable>(_ type: Value.Type, attempts: Int = 3) throws -> Value? {
        Self.removeAbandonedTemporaryFiles(of: url.resolvingSymlinksInPath())
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let (data, opened) = try readBytes()
        // Open until the end of the read: the file's inode number cannot go to a writer's new file
        // while the file that was read is open, so that number identifies it.
        defer { withExtendedLifetime(opened.handle) {} }
        do {
            switch format {
            case .json: return try JSONDecoder(source: source).decode(type, from: data)
            case .propertyList:
                // The core's guarded read: XML nesting and binary structure are checked first.
                return try PropertyListDecoder().decode(type, from: data, source: source)
            }
        } catch {
            guard let keptAt = try keepAside(ifStill: opened.identity) else {
                // Replaced by a writer since it was read: read the new file.
                if attempts > 1 { return try read(type, attempts: attempts - 1) }
                throw FileCacheError.readFailed(file: url, underlying: error)
            }
            throw FileCacheError.corrupt(
                file: url, keptAt: keptAt, codingPath: FileCacheError.codingPath(of: error), underlying: error)
        }
    }

    /// The file's bytes. What is not a regular file (a FIFO, a device, a folder), through a symbolic
    /// link or not, is refused before any byte is read; so is a file larger than ``maximumFileSize``.
    /// One that grows meanwhile is refused one byte past the limit.
    ///
    /// The path is opened without blocking and the descriptor checked (`fstat`), not the path before
    /// opening it: opening a FIFO for reading waits for a writer, and a path checked first could be
    /// replaced before it is opened.
    ///
    /// - Returns: The bytes, the open file and its identity when it was read.
    private func readBytes() throws -> (Data, (handle: FileHandle, identity: FileIdentity)) {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw FileCacheError.readFailed(file: url, underlying: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw FileCacheError.readFailed(file: url, underlying: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
        }
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG else {
            throw FileCacheError.notARegularFile(file: url, kind: Self.kind(of: type))
        }
        // Reads of a regular file never wait; the flag goes, so that nothing reads it as a short read.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        if Int64(status.st_size) > Int64(maximumFileSize) {
            throw FileCacheError.tooLarge(file: url, size: Int(status.st_size), limit: maximumFileSize)
        }
        let data: Data
        do {
            data = try handle.read(upToCount: maximumFileSize + 1) ?? Data()
        } catch {
            throw FileCacheError.readFailed(file: url, underlying: error)
        }
        guard data.count <= maximumFileSize else {
            throw FileCacheError.tooLarge(file: url, size: data.count, limit: maximumFileSize)
        }
        return (data, (handle, FileIdentity(status)))
    }
}
