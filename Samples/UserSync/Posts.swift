import Foundation
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// Step 6: posts and comments beside the users, synced as one graph.
func syncPostsAndComments(users: Repository<User>, userServer: SimulatedServer<User>, needsResync: Bool) async throws {
    // The servers' posts and comments are by users the user server has.
    let authors = await userServer.allRecords().map(\.id).sorted()
    let postCount = max(1, options.users / 10)
    let postServer = try SimulatedServer(
        records: (0..<postCount).map { Post.generated($0, authors: authors) }, seed: 11)
    let commentServer = try SimulatedServer(
        records: (0..<(postCount * 2)).map { Comment.generated($0, authors: authors) }, seed: 12)
    let posts = try await Repository<Post>.open(database: users.database, remote: postServer)
    let comments = try await Repository<Comment>.open(database: users.database, remote: commentServer)
    if needsResync {
        // This run's servers are new: parents first, as the store would.
        try await posts.resync()
        try await comments.resync()
    }
    let store = try SyncStore(comments, posts, users)
    let first = try await store.sync()
    print("  posts:    \(first.for(Post.self).map { "\($0)" } ?? "-")")
    print("  comments: \(first.for(Comment.self).map { "\($0)" } ?? "-")")

    // Offline: a post by user 42 with two comments, and a post by a new user the server will refuse
    // (its email has no @): that post and its comment wait for their parent, not sent, not lost.
    let nextPost =
        try await (posts.fetch(sortedBy: [SortDescriptor(\.id, order: .reverse)], limit: 1).first?.id ?? 0) + 1
    let nextComment =
        try await (comments.fetch(sortedBy: [SortDescriptor(\.id, order: .reverse)], limit: 1).first?.id ?? 0) + 1
    let newcomer = User(
        id: Int64(options.users + 1_000_000), userName: "newcomer", email: "no-at-sign", age: 30, isActive: true,
        score: 0, updatedAt: Date(timeIntervalSince1970: 1_800_000_000), tags: [], nickname: nil)
    try await users.database.write { db in
        try db.upsert(Post(id: nextPost, authorID: 42, title: "Written offline"))
        try db.upsert(Comment(id: nextComment, postID: nextPost, authorID: 42, body: "first!"))
        try db.upsert(Comment(id: nextComment + 1, postID: nextPost, authorID: nil, body: "anonymous"))
        try db.upsert(newcomer)
        try db.upsert(Post(id: nextPost + 1, authorID: newcomer.id, title: "By a newcomer"))
        try db.upsert(Comment(id: nextComment + 2, postID: nextPost + 1, authorID: 42, body: "welcome"))
    }
    let pushed = try await store.sync()
    print(
        "  pushed: \(pushed.for(User.self)?.pushed ?? 0) user(s), \(pushed.for(Post.self)?.pushed ?? 0) post(s), "
            + "\(pushed.for(Comment.self)?.pushed ?? 0) comment(s), parents first")
    for refusal in pushed.for(User.self)?.failed ?? [] { print("  refused user \(refusal)") }
    for waiting in (pushed.for(Post.self)?.waitingForParent ?? []).map({ "post \($0)" })
        + (pushed.for(Comment.self)?.waitingForParent ?? []).map({ "comment \($0)" })
    {
        print("  \(waiting)")
    }
    print("  the server has post \(nextPost): \(await postServer.record(id: nextPost) != nil)")

    // User 42's posts with their comments, in one snapshot.
    let feed = try await posts.fetch(
        where: #Predicate { $0.authorID == 42 }, sortedBy: [SortDescriptor(\.id)], including: Comment.self, by: \.postID
    )
    for entry in feed.suffix(3) {
        print("  \(entry.parent.title): \(entry.children.map(\.body).joined(separator: ", "))")
    }
}
