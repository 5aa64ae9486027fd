/// A record with the records of another table that reference it, from
/// ``Repository/fetch(where:sortedBy:limit:including:by:)``.
///
/// ```swift
/// for thread in try await posts.fetch(including: Comment.self, by: \.postID) {
///     print(thread.parent.title, thread.children.count)
/// }
/// ```
public struct Related<Parent: Sendable, Child: Sendable>: Sendable {
    /// The record.
    public let parent: Parent
    /// The records that reference it, by their primary key.
    public let children: [Child]
}

extension Related: Equatable where Parent: Equatable, Child: Equatable {}
