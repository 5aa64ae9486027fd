/// A naming convention for keys: snake_case, kebab-case, camelCase, PascalCase or SCREAMING_SNAKE_CASE.
///
/// A style splits any identifier into words (at `_`, `-`, spaces, lower-to-upper changes and the end
/// of an acronym) and joins them its own way. Camel and Pascal case keep the style's acronyms
/// (``commonAcronyms`` unless others are given to ``init(_:acronyms:)``) in capitals and capitalize
/// any other word normally.
///
/// ```swift
/// KeyStyle.snakeCase.apply(to: "imageURL")       // "image_url"
/// KeyStyle.snakeCase.apply(to: "HTTPStatus")     // "http_status"
/// KeyStyle.camelCase.apply(to: "user_id")        // "userID"
/// KeyStyle.camelCase.apply(to: "myABBRKey")      // "myAbbrKey"
/// ```
public struct KeyStyle: Hashable, Sendable {
    /// How words are joined.
    ///
    /// ```swift
    /// KeyStyle(.kebab).apply(to: "userName")   // "user-name"
    /// ```
    public enum Convention: Hashable, Sendable {
        case snake, kebab, camel, pascal, screamingSnake
    }

    /// The convention this style writes.
    package let convention: Convention
    /// Words written in capitals by camel and Pascal case (`"ID"`, `"URL"`), compared case-insensitively.
    package let acronyms: Set<String>

    /// Creates a style with its own list of acronyms.
    ///
    /// ```swift
    /// let plainCamel = KeyStyle(.camel, acronyms: [])       // user_id -> userId
    /// ```
    public init(_ convention: Convention, acronyms: Set<String> = KeyStyle.commonAcronyms) {
        self.convention = convention
        self.acronyms = Set(acronyms.map { $0.uppercased() })
    }

    /// Acronyms kept in capitals by default: ID, URL, URI, UUID, HTTP, HTTPS, JSON, XML, HTML, API, IP, SQL.
    public static let commonAcronyms: Set<String> = [
        "ID", "URL", "URI", "UUID", "HTTP", "HTTPS", "JSON", "XML", "HTML", "API", "IP", "SQL",
    ]

    /// `user_name`
    public static let snakeCase = KeyStyle(.snake)
    /// `user-name`
    public static let kebabCase = KeyStyle(.kebab)
    /// `userName`
    public static let camelCase = KeyStyle(.camel)
    /// `UserName`
    public static let pascalCase = KeyStyle(.pascal)
    /// `USER_NAME`
    public static let screamingSnakeCase = KeyStyle(.screamingSnake)

    /// Converts `name`, written in any style, to this style. Leading and trailing underscores are kept
    /// as they are, as Foundation's `convertFromSnakeCase` keeps them.
    ///
    /// ```swift
    /// KeyStyle.screamingSnakeCase.apply(to: "userName")   // "USER_NAME"
    /// KeyStyle.camelCase.apply(to: "_asd_ert_")           // "_asdErt_"
    /// ```
    ///
    /// - Complexity: O(n) in the length of `name`.
    public func apply(to name: String) -> String {
        let leading = name.prefix { $0 == "_" }
        guard leading.endIndex != name.endIndex else { return name }
        let trailingCount = name.reversed().prefix { $0 == "_" }.count
        let core = name[leading.endIndex..<name.index(name.endIndex, offsetBy: -trailingCount)]
        return leading + join(KeyStyle.words(in: String(core))) + String(repeating: "_", count: trailingCount)
    }

    private func join(_ words: [String]) -> String {
        switch convention {
        case .snake: return words.map { $0.lowercased() }.joined(separator: "_")
        case .kebab: return words.map { $0.lowercased() }.joined(separator: "-")
        case .screamingSnake: return words.map { $0.uppercased() }.joined(separator: "_")
        case .camel, .pascal:
            var result = ""
            for (index, word) in words.enumerated() {
                if index == 0 && convention == .camel {
                    result += word.lowercased()
                } else if acronyms.contains(word.uppercased()) {
                    result += word.uppercased()
                } else {
                    result += word.prefix(1).uppercased() + word.dropFirst().lowercased()
                }
            }
            return result
        }
    }

    /// Splits an identifier in any style into its words, keeping their letter case.
    ///
    /// ```swift
    /// KeyStyle.words(in: "HTTPStatusCode")   // ["HTTP", "Status", "Code"]
    /// KeyStyle.words(in: "user_id")          // ["user", "id"]
    /// KeyStyle.words(in: "base64Value")      // ["base64", "Value"]
    /// ```
    ///
    /// - Complexity: O(n) in the length of `name`.
    package static func words(in name: String) -> [String] {
        var words: [String] = []
        let characters = Array(name)
        var current = ""
        func flush() {
            if !current.isEmpty { words.append(current) }
            current = ""
        }
        for index in characters.indices {
            let character = characters[index]
            if character == "_" || character == "-" || character == " " || character == "." {
                flush()
                continue
            }
            if character.isUppercase, let previous = current.last {
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                // A capital starts a word after a lower-case letter or digit ("userName"), and ends an
                // acronym when a lower-case letter follows it ("HTTPStatus" -> "HTTP", "Status").
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    flush()
                }
            }
            current.append(character)
        }
        flush()
        return words
    }
}
