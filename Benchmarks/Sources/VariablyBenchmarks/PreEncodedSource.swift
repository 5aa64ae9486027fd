import Foundation
import VariablySync
import VariablySyncTesting

/// A remote source that answers pulls with pages built and encoded in advance by a `SimulatedServer`:
/// a sync timed against it counts the client's work only (decoding, SQLite), not the server's
/// building and encoding of pages. Pushes are refused; these groups only pull.
struct PreEncodedSource: RemoteSource {
    typealias Model = BenchUser

    /// Each page, by the cursor that asks for it ("" for the first page).
    let pages: [String: RemotePage<Int64>]
    /// The pages in the order a full sync reads them.
    let ordered: [RemotePage<Int64>]

    /// Reads every page `server` gives for `pageSize`, now.
    init(serving server: SimulatedServer<BenchUser>, pageSize: Int) throws {
        var pages: [String: RemotePage<Int64>] = [:]
        var ordered: [RemotePage<Int64>] = []
        var cursor: SyncCursor?
        while true {
            let after = cursor
            let page = try runBlocking { try await server.pull(after: after, limit: pageSize) }
            pages[after?.rawValue ?? ""] = page
            ordered.append(page)
            cursor = page.nextCursor
            if !page.hasMore { break }
        }
        self.pages = pages
        self.ordered = ordered
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        guard let page = pages[cursor?.rawValue ?? ""] else { throw RemoteSourceError.invalidCursor(cursor!) }
        return page
    }

    var acceptsPushes: Bool { false }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        throw RemoteSourceError.unavailable("a pre-encoded source takes no pushes")
    }
}
