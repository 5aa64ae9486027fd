import Foundation
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// The "Related models" group: a full sync of N rows split across three related types (authors, their
/// posts, the posts' comments; deferred foreign keys on, pulled through a `SyncStore` table by table,
/// and through one feed in checkpoints) against the single-model sync of N rows of the same width
/// (`BenchFlat`: four fields, one indexed integer column, no reference), at two sizes, and an
/// incremental sync of 250 mixed changes (edits and new rows of all three types) at each size. Every
/// side pulls from simulated servers, whose page building counts on all of them.
///
/// Full mode: 100,000 and 1,000,000 rows, median of 3 interleaved rounds (one at 1M); `--quick`:
/// 30,000 rows, one round.
struct RelatedModelsBenchmark {
    static let name = "Related models"

    let sizes: [Int]
    let rounds: Int

    init(configuration: Configuration) {
        sizes = configuration.isQuick ? [30_000] : [100_000, 1_000_000]
        rounds = configuration.isQuick ? 1 : min(configuration.rounds, 3)
    }

    func run() throws {
        print("")
        print(
            "| \(Self.name) | rows | single model (rows/s) | related, per table (rows/s) | ratio | related, one feed (rows/s) | ratio "
                + "| 250 mixed changes, per table / feed (s) |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for size in sizes {
            var single: [Double] = []
            var perTable: [(Double, Double)] = []
            var feed: [(Double, Double)] = []
            let rounds = size >= 1_000_000 ? 1 : self.rounds
            for round in 0..<rounds {
                // Rotate which side goes first: drift on a shared machine hits all alike.
                let order = [0, 1, 2].map { ($0 + round) % 3 }
                for side in order {
                    switch side {
                    case 0: single.append(try syncSingle(size))
                    case 1: perTable.append(try syncRelated(size, throughFeed: false))
                    default: feed.append(try syncRelated(size, throughFeed: true))
                    }
                }
            }
            let a = median(single)
            let (b, c) = (median(perTable.map(\.0)), median(feed.map(\.0)))
            print(
                String(
                    format: "| full sync | %d | %.0fk | %.0fk | %.2f | %.0fk | %.2f | %.3f / %.3f |", size, a / 1e3,
                    b / 1e3, b / a,
                    c / 1e3, c / a, median(perTable.map(\.1)), median(feed.map(\.1))))
            FileHandle.standardError.write(Data("measured \(Self.name) at \(size)\n".utf8))
        }
    }

    /// Rows per second of a full sync of `size` rows of one type, as wide as the related ones.
    private func syncSingle(_ size: Int) throws -> Double {
        let server = try SimulatedServer(records: (0..<size).lazy.map { BenchFlat.make($0, groups: size / 3) }, seed: 5)
        let file = try TemporaryDatabase()
        let repository = try Repository<BenchFlat>(database: try SQLiteDatabase(path: file.path), remote: server)
        let start = DispatchTime.now().uptimeNanoseconds
        let report = try runBlocking { try await repository.sync() }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard report.inserted == size else { throw BenchmarkError("synced \(report.inserted) of \(size)") }
        return Double(size) / seconds
    }

    /// Rows per second of a full sync of `size` rows across the three types, table by table or through
    /// one feed, and the seconds of a sync of 250 mixed changes after it.
    private func syncRelated(_ size: Int, throughFeed: Bool) throws -> (Double, Double) {
        let third = size / 3
        let clock = SimulatedClock()
        let authors = try SimulatedServer(records: (0..<third).lazy.map(BenchAuthor.make), seed: 6, clock: clock)
        let posts = try SimulatedServer(
            records: (0..<third).lazy.map { BenchPost.make($0, authors: third) }, seed: 7, clock: clock)
        let comments = try SimulatedServer(
            records: (0..<(size - 2 * third)).lazy.map { BenchComment.make($0, posts: third) }, seed: 8, clock: clock)
        let file = try TemporaryDatabase()
        let database = try SQLiteDatabase(path: file.path)
        let repositories = (
            try Repository(database: database, remote: comments), try Repository(database: database, remote: posts),
            try Repository(database: database, remote: authors)
        )
        let store =
            try throughFeed
            ? SyncStore(
                repositories.0, repositories.1, repositories.2, feed: SimulatedChangeFeed(authors, posts, comments))
            : SyncStore(repositories.0, repositories.1, repositories.2)
        let start = DispatchTime.now().uptimeNanoseconds
        let report = try runBlocking { try await store.sync() }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let inserted =
            (report.for(BenchAuthor.self)?.inserted ?? 0) + (report.for(BenchPost.self)?.inserted ?? 0)
            + (report.for(BenchComment.self)?.inserted ?? 0)
        guard inserted == size else { throw BenchmarkError("synced \(inserted) of \(size) related rows") }

        // 250 mixed changes: edits of each type, new posts with comments.
        _ = try runBlocking {
            try await authors.simulateOtherClients(edits: 50) { author, _ in author.name += "!" }
            let newPosts = (0..<50).map { BenchPost.make(third + $0, authors: third) }
            try await posts.simulateOtherClients(edits: 50, insertions: newPosts) { post, _ in post.score += 1 }
            let newComments = (0..<50).map {
                BenchComment(id: Int64(size + $0 + 1), postID: Int64(third + $0 + 1), body: "new", score: 0)
            }
            return try await comments.simulateOtherClients(edits: 50, insertions: newComments) { comment, _ in
                comment.score += 1
            }
        }
        let changesStart = DispatchTime.now().uptimeNanoseconds
        let changes = try runBlocking { try await store.sync() }
        let changesSeconds = Double(DispatchTime.now().uptimeNanoseconds - changesStart) / 1e9
        let pulled =
            (changes.for(BenchAuthor.self)?.pulled ?? 0) + (changes.for(BenchPost.self)?.pulled ?? 0)
            + (changes.for(BenchComment.self)?.pulled ?? 0)
        guard pulled == 250 else { throw BenchmarkError("pulled \(pulled) of 250 mixed changes") }
        return (Double(size) / seconds, changesSeconds)
    }
}

/// One type as wide as each related one (an id, an indexed integer, a text, a number) without a
/// reference: the single-model side of the "Related models" comparison. (With group numbers that jump
/// about, say `index % 1000`, each index insert lands on another page, and at 1M rows, past SQLite's
/// page cache, the sync runs 8x slower: the cost of a random index, not of the sync.)
struct BenchFlat: VariablyCodable, SQLiteStorable, Identifiable, Sendable {
    var id: Int64
    var groupID: Int64
    var title: String
    var score: Double

    init(id: Int64, groupID: Int64, title: String, score: Double) {
        (self.id, self.groupID, self.title, self.score) = (id, groupID, title, score)
    }
    init(from container: DecodingContainer<BenchFlat>) throws {
        id = try container.decode(\.id)
        groupID = try container.decode(\.groupID)
        title = try container.decode(\.title)
        score = try container.decode(\.score)
    }

    static let keySets = KeySets<BenchFlat>(defaultSource: .remote) {
        KeySet(.remote, style: .snakeCase) {
            Key(\.id); Key(\.groupID, "group_id"); Key(\.title); Key(\.score)
        }
        KeySet(.sqlite, style: .snakeCase)
    }
    static let sqliteTable = SQLiteTable<BenchFlat>("bench_flat", primaryKey: \.id, [.index(\.groupID)])

    /// Row `index`: its group number runs up to `groups` and starts again, as the posts' authors and the
    /// comments' posts do, so that the index grows the same way on both sides.
    static func make(_ index: Int, groups: Int) -> BenchFlat {
        BenchFlat(id: Int64(index + 1), groupID: Int64(index % max(groups, 1) + 1), title: "post \(index)", score: 0)
    }
}

/// An author: the parent of posts.
struct BenchAuthor: VariablyCodable, SQLiteStorable, Identifiable, Sendable {
    var id: Int64
    var name: String
    var email: String
    var score: Double

    init(id: Int64, name: String, email: String, score: Double) {
        (self.id, self.name, self.email, self.score) = (id, name, email, score)
    }
    init(from container: DecodingContainer<BenchAuthor>) throws {
        id = try container.decode(\.id)
        name = try container.decode(\.name)
        email = try container.decode(\.email)
        score = try container.decode(\.score)
    }

    static let keySets = KeySets<BenchAuthor>(defaultSource: .remote) {
        KeySet(.remote, style: .snakeCase) {
            Key(\.id); Key(\.name); Key(\.email); Key(\.score)
        }
        KeySet(.sqlite, style: .snakeCase)
    }
    static let sqliteTable = SQLiteTable<BenchAuthor>("bench_authors", primaryKey: \.id)

    static func make(_ index: Int) -> BenchAuthor {
        BenchAuthor(
            id: Int64(index + 1), name: "author \(index)", email: "author\(index)@example.com",
            score: Double(index % 100))
    }
}

/// A post by an author, deleted with it.
struct BenchPost: VariablyCodable, SQLiteStorable, Identifiable, Sendable {
    var id: Int64
    var authorID: Int64
    var title: String
    var score: Double

    init(id: Int64, authorID: Int64, title: String, score: Double) {
        (self.id, self.authorID, self.title, self.score) = (id, authorID, title, score)
    }
    init(from container: DecodingContainer<BenchPost>) throws {
        id = try container.decode(\.id)
        authorID = try container.decode(\.authorID)
        title = try container.decode(\.title)
        score = try container.decode(\.score)
    }

    static let keySets = KeySets<BenchPost>(defaultSource: .remote) {
        KeySet(.remote, style: .snakeCase) {
            Key(\.id); Key(\.authorID, "author_id"); Key(\.title); Key(\.score)
        }
        KeySet(.sqlite, style: .snakeCase)
    }
    static let sqliteTable = SQLiteTable<BenchPost>(
        "bench_posts", primaryKey: \.id,
        [.references(\.authorID, BenchAuthor.self, onDelete: .cascade), .index(\.authorID)])

    static func make(_ index: Int, authors: Int) -> BenchPost {
        BenchPost(id: Int64(index + 1), authorID: Int64(index % authors + 1), title: "post \(index)", score: 0)
    }
}

/// A comment on a post, deleted with it.
struct BenchComment: VariablyCodable, SQLiteStorable, Identifiable, Sendable {
    var id: Int64
    var postID: Int64
    var body: String
    var score: Double

    init(id: Int64, postID: Int64, body: String, score: Double) {
        (self.id, self.postID, self.body, self.score) = (id, postID, body, score)
    }
    init(from container: DecodingContainer<BenchComment>) throws {
        id = try container.decode(\.id)
        postID = try container.decode(\.postID)
        body = try container.decode(\.body)
        score = try container.decode(\.score)
    }

    static let keySets = KeySets<BenchComment>(defaultSource: .remote) {
        KeySet(.remote, style: .snakeCase) {
            Key(\.id); Key(\.postID, "post_id"); Key(\.body); Key(\.score)
        }
        KeySet(.sqlite, style: .snakeCase)
    }
    static let sqliteTable = SQLiteTable<BenchComment>(
        "bench_comments", primaryKey: \.id,
        [.references(\.postID, BenchPost.self, onDelete: .cascade), .index(\.postID)])

    static func make(_ index: Int, posts: Int) -> BenchComment {
        BenchComment(id: Int64(index + 1), postID: Int64(index % posts + 1), body: "comment \(index)", score: 0)
    }
}
