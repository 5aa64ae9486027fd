import Foundation
import VariablyCodable

extension CodingSource {
    /// A second server API version, as users declare their own sources.
    static let remoteV2: CodingSource = "remote.v2"
}

enum Role: String, Codable, Hashable, Sendable {
    case admin, member
}

struct Address: VariablyCodable, Hashable, Sendable, EmptyInitializable {
    var street = ""
    var city = ""

    static let keySets = KeySets<Address> {
        KeySet(.remote) {
            Key(\.street, "street_line")
            Key(\.city, "city")
        }
        KeySet(.local, style: .screamingSnakeCase)
        KeySet(.remoteV2, style: .snakeCase)
    }
}

/// A model exercising every value kind the container must carry.
struct Profile: VariablyCodable, Hashable, Sendable, EmptyInitializable {
    var name = ""
    var role = Role.member
    var joined = Date(timeIntervalSince1970: 0)
    var avatar = Data()
    var homepage: URL?
    var token = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    var balance = Decimal(0)
    var limits: [String: Int] = [:]
    var address = Address()
    var previous: [Address] = []
    var scores: [Double]? = nil

    static let keySets = KeySets<Profile>(defaultSource: .remote) {
        KeySet(.remote, style: .snakeCase) {
            Key(\.name, "data.profile.name")
            Key(\.role, "data.profile.role")
            Key(\.joined)
            Key(\.avatar)
            Key(\.homepage)
            Key(\.token)
            Key(\.balance)
            Key(\.limits)
            Key(\.address)
            Key(\.previous, "previous_addresses")
            Key(\.scores)
        }
        KeySet(.local, style: .screamingSnakeCase)
    }
}

/// A model with `let` properties decoded by hand, and a key that moved between API versions.
struct Account: VariablyCodable, Hashable, Sendable {
    let id: Int
    let owner: String
    let address: Address?

    init(id: Int, owner: String, address: Address?) {
        self.id = id
        self.owner = owner
        self.address = address
    }

    init(from container: DecodingContainer<Account>) throws {
        id = try container.decode(\.id)
        owner = try container.decode(\.owner)
        address = try container.decode(\.address)
    }

    static let keySets = KeySets<Account> {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.owner, ["owner_name", "owner"])
            Key(\.address, "address")
        }
        KeySet(.remoteV2) {
            Key(\.id, "account_id")
            Key(\.owner, "meta.owner")
            Key(\.address, "meta.address")
        }
    }
}

func json(_ text: String) -> Data { Data(text.utf8) }
