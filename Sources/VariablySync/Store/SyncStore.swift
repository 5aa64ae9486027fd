public import VariablySQLite

/// Repositories of related models on one database, synced as one graph: local changes are pushed in
/// the order of their tables' references (creates and updates parents first, deletions children
/// first), then each table is pulled, parents first.
///
/// ```swift
/// let store = SyncStore(users, posts, comments)   // Repository<User>, Repository<Post>, Repository<Comment>
/// let report = try await store.sync()
/// print(report.for(Post.self)?.held ?? [])        // posts waiting for a user the server refused
/// ```
///
/// References are declared once, on the tables (`SQLiteTable(…, [.references(\.authorID, User.self)])`):
/// they are deferred foreign keys in SQLite, and a record that references one the server does not have
/// yet is held until that one's create is accepted, in the same sync when the parent comes first. A
/// server-assigned id replaces a provisional one in the children's rows in the same transaction
/// (`ON UPDATE CASCADE`). Each repository stays usable on its own; a ``Repository`` synced alone is
/// the one-table case of the same engine, and holds its records the same way.
///
/// A store pulls each table in its own transactions, parents first. The foreign keys never let an
/// orphan in: a child page whose parent the server wrote after this sync pulled the parent's table
/// fails its transaction and is pulled again after the parents are, up to three times.
public actor SyncStore {
    /// One repository, type-erased: its table, the tables it references, and its sync phases.
    struct Member: Sendable {
        let table: String
        let parents: Set<String>
        let type: ObjectIdentifier
        let run: @Sendable (SyncPhase) async throws -> any SyncReportMerging
    }

    /// The repositories in push order: each after the tables it references.
    let members: [Member]

    /// How many times a pull refused for a missing parent is tried again, its parents pulled first.
    static var maximumPullPasses: Int { 3 }

    /// A store of `repositories`, on one database, in any order: the order of the sync comes from
    /// their tables' references.
    ///
    /// ```swift
    /// let store = SyncStore(users, posts, comments)
    /// ```
    ///
    /// - Parameter repositories: One repository per model, all on the same database.
    public init<each Model: SQLiteStorable & Identifiable & Sendable>(_ repositories: repeat Repository<each Model>) {
        var members: [Member] = []
        for repository in repeat each repositories {
            members.append(Member(repository))
        }
        self.members = Self.ordered(members)
    }

    /// Pushes every repository's local changes in dependency order, then pulls every table, parents
    /// first.
    ///
    /// ```swift
    /// let report = try await store.sync()
    /// if let posts = report.for(Post.self) { print(posts) }
    /// ```
    ///
    /// - Returns: One report per model.
    /// - Throws: The first error of a repository's sync; what was pushed or pulled before it stays done,
    ///   and each repository's ``Repository/lastReport`` tells what its part did.
    /// - Complexity: The sum of the repositories' syncs.
    @discardableResult
    public func sync() async throws -> SyncStoreReport {
        var reports: [ObjectIdentifier: any SyncReportMerging] = [:]
        let pushes = members.map { ($0, SyncPhase.pushSaves) } + members.reversed().map { ($0, SyncPhase.pushDeletions) }
        for (member, phase) in pushes {
            let report = try await member.run(phase)
            reports[member.type] = reports[member.type].map { $0.merged(with: report) } ?? report
        }
        // A child page whose parent the server wrote after this sync pulled the parent's table fails its
        // transaction (the deferred key), which leaves the child's cursor before it: the parents are
        // pulled again, then the child, a few times at most.
        for pass in 1...Self.maximumPullPasses {
            var isRefused = false
            for member in members {
                do {
                    let report = try await member.run(.pull)
                    reports[member.type] = reports[member.type].map { $0.merged(with: report) } ?? report
                } catch let error as SQLiteError where error.code == .constraintForeignKey && pass < Self.maximumPullPasses {
                    isRefused = true
                }
            }
            if !isRefused { break }
        }
        return SyncStoreReport(reports: reports)
    }

    /// `members` with each after the tables it references (a self-reference aside); members of a cycle
    /// keep the order they were given in.
    static func ordered(_ members: [Member]) -> [Member] {
        var placed: [Member] = []
        var remaining = members
        while !remaining.isEmpty {
            let tables = Set(remaining.map(\.table))
            let ready = remaining.firstIndex { member in member.parents.allSatisfy { $0 == member.table || !tables.contains($0) } }
            placed.append(remaining.remove(at: ready ?? 0))
        }
        return placed
    }
}

extension SyncStore.Member {
    init<Model>(_ repository: Repository<Model>) {
        let key = PrimaryKey<Model>()
        table = key.table
        parents = Set(key.references.map(\.parentTable))
        type = ObjectIdentifier(Model.self)
        run = { phase in try await repository.sync(phase) }
    }
}
