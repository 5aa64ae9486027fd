public import Foundation
public import VariablyCodable

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
/// inspection; it is never silently replaced by an empty value.
///
/// ```swift
/// let cache = FileCache<User>(url: folder.appendingPathComponent("current-user.json"))
/// try cache.store(user)                      // {"USER_NAME": "ada", "EMAIL": ...}
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
    public let format: Format
    /// The key set the file uses.
    public let source: CodingSource

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
    public init(url: URL, format: Format = .json, source: CodingSource = .local) {
        self.url = url
        self.format = format
        self.source = source
    }

    // MARK: - Reading and writing

    /// Writes one model, atomically.
    ///
    /// ```swift
    /// try cache.store(currentUser)
    /// ```
    ///
    /// - Throws: ``FileCacheError/writeFailed(file:underlying:)`` or the model's encoding error.
    public func store(_ value: Model) throws {
        try write(value)
    }

    /// Writes a collection of models, atomically.
    ///
    /// ```swift
    /// try cache.store(recentUsers)
    /// ```
    ///
    /// - Throws: ``FileCacheError/writeFailed(file:underlying:)`` or the models' encoding error.
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
    ///   aside, or ``FileCacheError/readFailed(file:underlying:)``.
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
    ///   aside, or ``FileCacheError/readFailed(file:underlying:)``.
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
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).tmp-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try data.write(to: temporary)
            // rename(2) replaces the destination atomically on the same file system.
            guard rename(temporary.path, url.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw FileCacheError.writeFailed(file: url, underlying: error)
        }
    }

    private func read<Value: Decodable>(_ type: Value.Type) throws -> Value? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw FileCacheError.readFailed(file: url, underlying: error)
        }
        do {
            switch format {
            case .json: return try JSONDecoder(source: source).decode(type, from: data)
            case .propertyList:
                // The core's guarded read: XML nesting and binary structure are checked first.
                return try PropertyListDecoder().decode(type, from: data, source: source)
            }
        } catch {
            let keptAt = try keepAside()
            throw FileCacheError.corrupt(
                file: url, keptAt: keptAt, codingPath: FileCacheError.codingPath(of: error), underlying: error)
        }
    }

    /// Moves the unreadable file to `<name>.corrupt-<n>`, with the first `n` not taken.
    private func keepAside() throws -> URL {
        var number = 1
        var destination: URL
        repeat {
            destination = url.deletingLastPathComponent().appendingPathComponent(
                "\(url.lastPathComponent).corrupt-\(number)")
            number += 1
        } while FileManager.default.fileExists(atPath: destination.path)
        do {
            try FileManager.default.moveItem(at: url, to: destination)
        } catch {
            throw FileCacheError.readFailed(file: url, underlying: error)
        }
        return destination
    }
}
