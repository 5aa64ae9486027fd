import Foundation

/// One request of ``HTTPRemoteSource``, independent of the transport that sends it.
struct HTTPRequestHead: Sendable {
    var method: String
    var url: URL
    var headers: [(name: String, value: String)]
    var body: Data?

    /// `GET /users/changes` — what error messages name (never the query: it may hold a cursor).
    var summary: String { "\(method) \(url.path)" }

    /// Whether `text` may be sent as a header name or value: no line breaks or NULs (they would let a
    /// value write further headers).
    static func isSafeHeaderText(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }
    }

    /// `value` for a query string: every byte of its UTF-8 but RFC 3986's unreserved characters
    /// (`A-Z a-z 0-9 - . _ ~`, §2.3) as `%XX`. Stricter than `URLQueryItem`, which leaves `+`, `/`, `=`
    /// and `?` alone: many servers read a `+` in a query as a space, so `ab+c/d==` must go as
    /// `ab%2Bc%2Fd%3D%3D`.
    static func percentEncodedQueryValue(_ value: String) -> String {
        var encoded = ""
        encoded.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(digits[Int(byte >> 4)])
                encoded.unicodeScalars.append(digits[Int(byte & 0x0F)])
            }
        }
        return encoded
    }

    /// The origin of `url` (https://www.rfc-editor.org/rfc/rfc6454#section-4): its scheme and host,
    /// lowercased, and its port, the scheme's default when none is written.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}
