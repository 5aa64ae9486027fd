import Foundation

/// Reads `Link` headers (https://www.rfc-editor.org/rfc/rfc8288): `<https://…?page=3>; rel="next", <…>; rel="last"`.
enum HTTPLinkHeader {
    /// The target of the first link whose relation types include `next`.
    static func next(in header: String) -> String? {
        var rest = Substring(header)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { return nil }
            let target = rest[rest.index(after: open)..<close]
            // The parameters run to the next link (a comma outside quotes followed by `<`) or the end.
            var parameters = Substring()
            var index = rest.index(after: close)
            var inQuotes = false
            while index < rest.endIndex {
                let character = rest[index]
                if character == "\"" { inQuotes.toggle() }
                if !inQuotes, character == "<" { break }
                index = rest.index(after: index)
            }
            parameters = rest[rest.index(after: close)..<index]
            if isNext(parameters) { return String(target).trimmingCharacters(in: .whitespaces) }
            rest = rest[index...]
        }
        return nil
    }

    /// Whether `rel` (quoted or not, a space-separated list) includes `next`, case-insensitively.
    private static func isNext(_ parameters: Substring) -> Bool {
        for parameter in parameters.split(separator: ";") {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else {
                continue
            }
            let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: " \t\",")).lowercased()
            if value.split(separator: " ").contains("next") { return true }
        }
        return false
    }
}
