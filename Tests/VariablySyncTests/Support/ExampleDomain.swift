import Foundation
import UserSyncModels
import VariablyCodable

/// The example domain's comment: Swift Testing also declares a `Comment` (an expectation's note), and a
/// declaration of this module is the one that unqualified code here finds first.
typealias Comment = UserSyncModels.Comment

extension User {
    /// `User(id:userName:)` as the server's JSON object, for tests that write a server's rows by hand.
    static func remoteObject(id: Int64, userName: String) -> [String: Any] {
        let data = try! JSONEncoder(source: .remote).encode(User(id: id, userName: userName))
        return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    /// `User(id:userName:)` as the server's JSON text.
    static func remoteJSON(id: Int64, userName: String) -> String {
        String(decoding: try! JSONEncoder(source: .remote).encode(User(id: id, userName: userName)), as: UTF8.self)
    }
}
