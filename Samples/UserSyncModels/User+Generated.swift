import Foundation

extension User {
    private static let firstNames = [
        "ada", "alan", "barbara", "claude", "donald", "edsger", "frances", "grace", "hedy", "ivan",
        "john", "katherine", "leslie", "margaret", "niklaus", "ole", "radia", "shafi", "tim", "whitfield",
    ]
    // Capitalized once: `capitalized` per user would be a noticeable part of generating a million.
    private static let nicknames = firstNames.map(\.capitalized)
    private static let lastNames = [
        "allen", "backus", "cerf", "dijkstra", "engelbart", "floyd", "hamilton", "hopper", "kay", "knuth",
        "lamport", "liskov", "mccarthy", "perlman", "ritchie", "shannon", "sutherland", "thompson", "turing", "wirth",
    ]

    /// A deterministic user: the same index always gives the same values.
    public static func generated(_ index: Int) -> User {
        let first = firstNames[index % firstNames.count]
        let last = lastNames[(index / firstNames.count) % lastNames.count]
        return User(
            id: Int64(index + 1), userName: "\(first).\(last)\(index)", email: "\(first).\(last)\(index)@example.com",
            age: 18 + (index * 7) % 60, isActive: index % 3 != 0, score: Double((index * 37) % 1000) / 10,
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60),
            tags: index % 4 == 0 ? [] : ["team\(index % 5)", "level\(index % 3)"],
            nickname: index % 5 == 0 ? nil : nicknames[index % firstNames.count])
    }
}
