import Foundation

/// How a device makes the ids of the records it creates, where the server keeps the id a create sends
/// (PocketBase, a `PUT` of a new record): a UUID by default, or random text of a declared length and
/// alphabet where the server accepts only ids of its own form.
///
/// ```swift
/// let endpoints = HTTPRecordEndpoints(path: "api/collections/users/records", newIDs: .pocketBase)
/// let user = try await users.create { User(id: $0, userName: "offline") }   // id: "k3v9x0q2m7c1z5a"
/// ```
public struct NewRecordIDs: Sendable, Equatable, CustomStringConvertible {
    /// What the ids are made of.
    enum Form: Sendable, Equatable {
        case uuid
        case random(length: Int, characters: [Character])
    }

    let form: Form

    /// A UUID in lower case, such as `9f1c2d4e-…`: what a server with `UUIDField` or `uuid` ids takes.
    public static let uuid = NewRecordIDs(form: .uuid)

    /// PocketBase's form: 15 characters of `[a-z0-9]`.
    public static let pocketBase = random(length: 15, characters: "abcdefghijklmnopqrstuvwxyz0123456789")

    /// Random text of `length` characters drawn from `characters`, such as PocketBase's 15 of `[a-z0-9]`.
    ///
    /// ```swift
    /// let ids = NewRecordIDs.random(length: 12, characters: "0123456789abcdef")
    /// ```
    ///
    /// - Parameters:
    ///   - length: The number of characters of each id; at least 1.
    ///   - characters: The alphabet, without repeats; at least 2 characters.
    public static func random(length: Int, characters: String) -> NewRecordIDs {
        NewRecordIDs(form: .random(length: length, characters: Array(characters)))
    }

    /// What a form that cannot make ids needs, such as `a length of at least 1 (it is 0)`, or `nil` when
    /// it can: checked when the repository opens and when a record is created.
    var problem: String? {
        guard case .random(let length, let characters) = form else { return nil }
        if length < 1 { return "a length of at least 1 (it is \(length))" }
        if Set(characters).count < 2 || Set(characters).count != characters.count {
            return "an alphabet of at least 2 characters, each once (it is \"\(String(characters))\")"
        }
        return nil
    }

    /// A new id.
    func make(using generator: inout some RandomNumberGenerator) -> String {
        switch form {
        case .uuid:
            return UUID().uuidString.lowercased()
        case .random(let length, let characters):
            return String((0..<length).map { _ in characters.randomElement(using: &generator)! })
        }
    }

    /// `uuid`, or `random(length:characters:)` with its length and alphabet.
    public var description: String {
        switch form {
        case .uuid: "uuid"
        case .random(let length, let characters): "random(length: \(length), characters: \"\(String(characters))\")"
        }
    }
}
