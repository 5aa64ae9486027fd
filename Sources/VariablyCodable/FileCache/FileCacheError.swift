public import Foundation

/// A failure of a ``FileCache``, naming the file.
///
/// ```swift
/// do {
///     let user = try cache.load()
/// } catch let FileCacheError.corrupt(file, keptAt, codingPath, _) {
///     print("\(file.lastPathComponent) is unreadable at \(codingPath); kept as \(keptAt.lastPathComponent)")
/// }
/// ```
public enum FileCacheError: Error, CustomStringConvertible {
    /// The file exists but does not decode. It was moved to `keptAt`; `codingPath` says where decoding
    /// failed (`[3].USER_NAME`), `underlying` is the ``VariablyCodingError`` or `DecodingError`.
    case corrupt(file: URL, keptAt: URL, codingPath: String, underlying: any Error)
    /// The file exists but could not be read.
    case readFailed(file: URL, underlying: any Error)
    /// The file could not be written (or removed); the previous file, if any, is unchanged.
    case writeFailed(file: URL, underlying: any Error)
    /// The file on disk, or the encoding of a value to store, is `size` bytes, more than the cache's
    /// `maximumFileSize` (`limit`). Nothing was read into memory beyond the limit and nothing was moved
    /// or written: the file on disk is left as it is. `size` is at least `limit + 1` for a file that
    /// grew while it was read or has no size (a device).
    ///
    /// ```swift
    /// let cache = FileCache<User>(url: url, maximumFileSize: 1 << 20)
    /// do {
    ///     _ = try cache.loadAll()
    /// } catch let FileCacheError.tooLarge(file, size, limit) {
    ///     print("\(file.lastPathComponent): \(size) bytes, the limit is \(limit)")
    /// }
    /// ```
    case tooLarge(file: URL, size: Int, limit: Int)
    /// The path names something that is not a regular file (`kind`: `a FIFO`, `a character device`,
    /// `a folder`, ...), directly or through a symbolic link. It was refused before any byte was read
    /// (a FIFO would wait for a writer, `/dev/zero` never ends) and left as it is.
    ///
    /// ```swift
    /// do {
    ///     _ = try cache.loadAll()
    /// } catch let FileCacheError.notARegularFile(file, kind) {
    ///     print("\(file.lastPathComponent) is \(kind)")
    /// }
    /// ```
    case notARegularFile(file: URL, kind: String)

    /// The file concerned.
    public var file: URL {
        switch self {
        case .corrupt(let file, _, _, _), .readFailed(let file, _), .writeFailed(let file, _),
            .tooLarge(let file, _, _),
            .notARegularFile(let file, _):
            return file
        }
    }

    /// The file and what went wrong, e.g. `/tmp/users.json is corrupt at [3].USER_NAME (kept as users.json.corrupt-1): ...`.
    public var description: String {
        switch self {
        case .corrupt(let file, let keptAt, let codingPath, let underlying):
            return "\(file.path) is corrupt at \(codingPath) (kept as \(keptAt.lastPathComponent)): \(underlying)"
        case .readFailed(let file, let underlying):
            return "cannot read \(file.path): \(underlying)"
        case .writeFailed(let file, let underlying):
            return "cannot write \(file.path): \(underlying)"
        case .tooLarge(let file, let size, let limit):
            return "\(file.path): \(size) bytes, more than the cache's limit of \(limit) bytes (maximumFileSize); "
                + "the file on disk is left as it is"
        case .notARegularFile(let file, let kind):
            return "\(file.path) is \(kind), not a regular file; it was not read and is left as it is"
        }
    }

    /// `[3].USER_NAME` for a failure inside the fourth element; `top level` for an empty path.
    static func codingPath(of error: any Error) -> String {
        let path: [any CodingKey]
        switch error {
        case let error as VariablyCodingError:
            // A missing key's path stops at its object; name the key the source uses for it.
            let missing = error.reason == .keyNotFound ? error.keys.map { [AnyCodingKey($0.primary.description)] } : nil
            path = error.codingPath + (missing ?? [])
        case let error as DecodingError:
            switch error {
            case .keyNotFound(let key, let context): path = context.codingPath + [key]
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                path = context.codingPath
            @unknown default: path = []
            }
        default:
            path = []
        }
        guard !path.isEmpty else { return "top level" }
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}
