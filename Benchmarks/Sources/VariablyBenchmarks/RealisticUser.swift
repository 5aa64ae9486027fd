import Foundation
import VariablyCodable
import VariablySQLite

#if canImport(Glibc)
    import Glibc
#endif

/// The benchmark model as a Django REST Framework server writes it: a string field, a nested `profile`
/// object read through nested key paths, ISO 8601 timestamps with microseconds (`created_at`,
/// `updated_at`, the latter read-only and the records' version), and `is_deleted` on every record,
/// which the pull shape reads as the deletion flag (the model has no such property).
///
/// ```json
/// {"id": 1, "user_name": "user0", "email": "user0@example.com",
///  "profile": {"city": "Zürich", "bio": "Writes \"tests\" first…"}, "is_staff": false,
///  "is_deleted": false, "created_at": "2024-01-01T00:00:00Z", "updated_at": "2026-11-02T10:00:00.001251Z"}
/// ```
struct RealisticUser: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    var id: Int64
    var userName: String
    var email: String
    var city: String
    var bio: String
    var isStaff: Bool
    var createdAt: Date
    var updatedAt: Date

    init(
        id: Int64, userName: String, email: String, city: String, bio: String, isStaff: Bool, createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.userName = userName
        self.email = email
        self.city = city
        self.bio = bio
        self.isStaff = isStaff
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    init(from container: DecodingContainer<RealisticUser>) throws {
        id = try container.decode(\.id)
        userName = try container.decode(\.userName)
        email = try container.decode(\.email)
        city = try container.decode(\.city)
        bio = try container.decode(\.bio)
        isStaff = try container.decode(\.isStaff)
        createdAt = try container.decode(\.createdAt)
        updatedAt = try container.decode(\.updatedAt)
    }

    static let keySets = KeySets<RealisticUser>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.userName, "user_name")
            Key(\.email, "email")
            Key(\.city, "profile.city")
            Key(\.bio, "profile.bio")
            Key(\.isStaff, "is_staff")
            Key(\.createdAt, "created_at").dates(.flexible)
            Key(\.updatedAt, "updated_at").dates(.flexible)
        }
        KeySet(.sqlite, style: .snakeCase)
    }

    static let sqliteTable = SQLiteTable<RealisticUser>(
        "realistic_users", primaryKey: \.id, [.index(\.userName), .index(\.updatedAt)])
}

// MARK: - The server's records

extension RealisticUser {
    /// `updated_at` of record 0, 2026-11-02T10:00:00Z, in microseconds since 1970.
    static let firstUpdate: Int64 = 1_793_613_600 * 1_000_000

    private static let cities = ["Lyon", "Zürich", "São Paulo", "Osaka", "Nairobi", "Montréal", "Kraków"]

    /// The user at `index` (id `index + 1`): `updated_at` strictly increasing with the index, about
    /// 1.25 ms apart, its fraction 0 (written without one, as DRF does) for one record in 800.
    static func make(_ index: Int) -> RealisticUser {
        let quote = index % 5 == 0 ? #" "Ships" on Fridays."# : " Ships on Fridays."
        return RealisticUser(
            id: Int64(index + 1), userName: "user\(index)", email: "user\(index)@example.com",
            city: cities[index % cities.count],
            bio: "Member #\(index), writes tests first and reviews the rest.\(quote)", isStaff: index % 97 == 0,
            createdAt: date(microseconds: 1_704_067_200 * 1_000_000 + Int64(index) * 3_600_000_017),
            updatedAt: date(microseconds: firstUpdate + Int64(index) * 1_250 + Int64(index % 800 == 0 ? 0 : index % 7)))
    }

    /// Whether the server lists the user at `index` as deleted (`"is_deleted": true`): one in fifty.
    static func isDeleted(_ index: Int) -> Bool { index % 50 == 49 }

    /// The record as the server writes it: `is_deleted` and the timestamps as Django REST Framework
    /// writes them (microseconds, none when they are 0, `Z`).
    func serverJSON(isDeleted: Bool) -> String {
        "{\"id\":\(id),\"user_name\":\(Self.quoted(userName)),\"email\":\(Self.quoted(email)),"
            + "\"profile\":{\"city\":\(Self.quoted(city)),\"bio\":\(Self.quoted(bio))},\"is_staff\":\(isStaff),"
            + "\"is_deleted\":\(isDeleted),\"created_at\":\"\(Self.drfTimestamp(createdAt))\","
            + "\"updated_at\":\"\(Self.drfTimestamp(updatedAt))\"}"
    }

    /// `2026-11-02T10:00:00.123456Z`, or `2026-11-02T10:00:00Z` when the microseconds are 0, as DRF
    /// writes a `DateTimeField` in UTC.
    static func drfTimestamp(_ date: Date) -> String {
        let microseconds = microseconds(date)
        var seconds = time_t(microseconds / 1_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let fraction = microseconds % 1_000_000
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec) + (fraction == 0 ? "" : String(format: ".%06d", fraction)) + "Z"
    }

    static func date(microseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(microseconds) / 1e6) }

    /// `date` in microseconds since 1970, rounded: the inverse of ``date(microseconds:)``.
    static func microseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1e6).rounded()) }

    /// `text` as a JSON string; the model's texts need only `"` and `\` escaped.
    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
