import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A Django REST Framework list of realistic users that other clients keep editing: every record in
/// `updated_at` order, served in pages by `updated_at__gte` (the records from that instant on, the one
/// at it first) with `next` links asking from each page's last record, as the recipe's pull reads them
/// (``RealisticUser/drfAPI(lookBack:)``). An edit is the record written again with a later `updated_at`,
/// after every other; its older copy stays where it was, far behind any sync's boundary.
///
/// `@unchecked Sendable`: the records change under `lock` only; the loopback server's thread reads them
/// under it too.
final class RealisticFeed: @unchecked Sendable {
    private let lock = NSLock()
    private let pageSize: Int
    /// Each record's `updated_at` in microseconds, ascending.
    private var stamps: [Int64]
    /// Each record's JSON, by the same index.
    private var records: [String]
    /// How many users the list started with: the ids edits choose from.
    private let users: Int

    /// The first `count` users (``RealisticUser/make(_:)``), none of them deleted.
    init(count: Int, pageSize: Int) {
        self.pageSize = pageSize
        users = count
        let made = (0..<count).map(RealisticUser.make)
        stamps = made.map { RealisticUser.microseconds($0.updatedAt) }
        records = made.map { $0.serverJSON(isDeleted: false) }
    }

    /// Writes `count` users again, with a new bio and `updated_at` 1.25 ms apart after the last record's:
    /// users spread over the first nine tenths of the list, different in each `round`.
    func edit(count: Int, round: Int) {
        lock.withLock {
            var last = stamps.last ?? RealisticUser.firstUpdate
            for change in 0..<count {
                var user = RealisticUser.make((round &* 7_919 &+ change &* 104_729) % (users * 9 / 10))
                last += 1_250
                user.bio = "Edited in round \(round)."
                user.updatedAt = RealisticUser.date(microseconds: last)
                stamps.append(last)
                records.append(user.serverJSON(isDeleted: false))
            }
        }
    }

    /// The page a request asks for: `{"count", "next", "previous", "results"}` from `updated_at__gte`
    /// (the first record when it is absent), at most `limit` (or the page size) records; `nil` for a
    /// value that is not a DRF timestamp.
    func page(origin: URL, query: [URLQueryItem]) -> Data? {
        let limit = query.first { $0.name == "limit" }?.value.flatMap { Int($0) } ?? pageSize
        var since = Int64.min
        if let from = query.first(where: { $0.name == "updated_at__gte" })?.value {
            guard let value = Self.microseconds(drfTimestamp: from) else { return nil }
            since = value
        }
        return lock.withLock {
            var (low, high) = (0, stamps.count)
            while low < high {
                let middle = (low + high) / 2
                if stamps[middle] < since { low = middle + 1 } else { high = middle }
            }
            let range = low..<min(low + limit, stamps.count)
            var next = "null"
            if range.upperBound < stamps.count, let last = range.last {
                let value = RealisticUser.drfTimestamp(RealisticUser.date(microseconds: stamps[last]))
                next =
                    "\"\(origin.absoluteString)users/?updated_at__gte="
                    + (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") + "&limit=\(limit)\""
            }
            let results = records[range].joined(separator: ",")
            return Data(
                "{\"count\":\(stamps.count - low),\"next\":\(next),\"previous\":null,\"results\":[\(results)]}".utf8)
        }
    }

    /// `2026-11-02T10:00:00.123Z` (any number of fraction digits, or none; `Z` or `+00:00`) in
    /// microseconds since 1970; `nil` for anything else.
    static func microseconds(drfTimestamp text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int32? {
            guard start + count <= bytes.count else { return nil }
            var value: Int32 = 0
            for byte in bytes[start..<(start + count)] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int32(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 20, let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2)
        else { return nil }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (year - 1900, month - 1, day)
        (parts.tm_hour, parts.tm_min, parts.tm_sec) = (hour, minute, second)
        var position = 19
        var fraction: Int64 = 0
        var scale: Int64 = 1_000_000
        if bytes[position] == UInt8(ascii: ".") {
            position += 1
            while position < bytes.count, (0x30...0x39).contains(bytes[position]) {
                if scale > 1 {
                    scale /= 10
                    fraction += Int64(bytes[position] - 0x30) * scale
                }
                position += 1
            }
        }
        let zone = String(decoding: bytes[position...], as: UTF8.self)
        guard zone == "Z" || zone == "+00:00" else { return nil }
        return Int64(timegm(&parts)) * 1_000_000 + fraction
    }
}
