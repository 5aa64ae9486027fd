import Foundation
public import UserSyncModels

extension User {
    /// A deterministic user: the same `index` always gives the same values.
    public static func sample(_ index: Int) -> User {
        User(
            id: Int64(index + 1),
            userName: "user\(index)",
            email: "user\(index)@example.com",
            age: 18 + index % 60,
            isActive: index % 3 != 0,
            score: Double(index % 1000) / 8,
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60),
            tags: index % 4 == 0 ? [] : ["tag\(index % 7)", "group\(index % 3)"],
            nickname: index % 5 == 0 ? nil : "nick\(index)")
    }

    /// `count` deterministic users.
    public static func samples(_ count: Int) -> [User] {
        (0..<count).map(sample)
    }
}
