import Foundation

// MARK: - The server's records, as the checks read them

extension PocketBaseManyDevicesTests {
    /// A `comments` record as PocketBase writes it.
    struct ServerComment: Decodable {
        var id: String
        var post: String
        var reply_to: String
        var body: String
        var deleted: Bool
    }

    /// The server's comments but its tombstones.
    static func liveComments(on server: PocketBaseServer) async throws -> [ServerComment] {
        try await server.records("comments", as: ServerComment.self).filter { !$0.deleted }
    }

    /// A `posts` record as PocketBase writes it.
    struct ServerPost: Decodable {
        var id: String
    }
}
