/// The kinds of JSON values.
enum JSONKind: UInt8 {
    case null = 1
    case `true` = 2
    case `false` = 3
    case string = 4
    case number = 5
    case array = 6
    case object = 7

    /// As Foundation names them in its type mismatch messages.
    var description: String {
        switch self {
        case .null: "null"
        case .true, .false: "bool"
        case .string: "a string"
        case .number: "number"
        case .array: "array"
        case .object: "dictionary"
        }
    }

    /// With an article, for messages that say what was found: `"a string"`, `"an array"`.
    var nameWithArticle: String {
        switch self {
        case .null: "null"
        case .true, .false: "a bool"
        case .string: "a string"
        case .number: "a number"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
